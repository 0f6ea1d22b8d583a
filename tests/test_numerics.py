"""Every process that runs blocks pins the numerical code paths before torch loads.

The build (the MkDocs plugin), the tests (the pytest plugin) and ``python -m coursekit``
each pin them themselves, so a command run by hand agrees with the Makefile. Each is
started here with none of the settings in its environment.
"""

from __future__ import annotations

import os
import subprocess
import sys

import torch

from coursekit import numerics
from coursekit.numerics import PINNED

REPORT = (
    "import os, torch; print(torch.backends.cpu.get_cpu_capability(), torch.get_num_threads(), "
    f"*(os.environ.get(k) for k in {list(PINNED)!r}))"
)
EXPECTED = " ".join(["DEFAULT", "1", *PINNED.values()])


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in PINNED}


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_test_processes_are_pinned() -> None:
    assert torch.backends.cpu.get_cpu_capability() == "DEFAULT"
    assert torch.get_num_threads() == 1
    assert {k: os.environ.get(k) for k in PINNED} == dict(PINNED)


def test_the_mkdocs_plugin_pins_before_a_block_imports_torch() -> None:
    # MkDocs makes the plugin while it reads mkdocs.yml; blocks run later.
    code = "from coursekit.mkdocs_adapter.plugin import CoursePlugin; CoursePlugin(); " + REPORT
    done = _python(code)
    assert done.stdout.strip() == EXPECTED, done.stderr


def test_python_m_coursekit_pins() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "coursekit", "numerics"],
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "ATen CPU capability: DEFAULT, threads: 1" in done.stdout
    assert "MKL_CBWR=COMPATIBLE" in done.stdout


def test_torch_imported_first_with_other_settings_fails_loudly() -> None:
    done = _python("import torch; from coursekit import numerics; numerics.pin()")
    assert done.returncode != 0
    assert "NumericsError: torch was imported before coursekit pinned" in done.stderr


def test_pinning_again_after_torch_loaded_only_checks() -> None:
    numerics.pin()  # this process was pinned in time: nothing to refuse
