"""The record does not depend on the CPU: every block prints it on MKL's AVX2 and AVX-512
code paths too, as it does on the pinned COMPATIBLE one (coursekit/testing/portability.py).

A block that fails here prints digits that hang on the last bits of its floats: another
CPU could print them differently, even with the pin. Compute it in float64, or print less.
"""

from __future__ import annotations

import sys

import pytest
from support import ROOT, run

from coursekit.testing.portability import MKL_PATHS


@pytest.mark.parametrize("mkl", MKL_PATHS)
def test_every_block_prints_its_record_on_another_mkl_path(mkl: str) -> None:
    done = run([sys.executable, "-m", "coursekit", "portability", "--mkl", mkl], ROOT, 1200)
    assert done.returncode == 0, done.stderr[-6000:] + done.stdout
    assert "0 do not print their record" in done.stdout
