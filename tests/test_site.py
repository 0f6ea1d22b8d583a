"""The whole site builds strictly, twice: as a local build and as the deploy workflow makes
it (tests/conftest.py). The run schedules this test first (tests/harness/parallel.py), so
one worker builds while the others run the tests that need no site."""

from __future__ import annotations

import json

import pytest
from conftest import SITES, site_builds


def test_the_site_builds_strictly(tmp_path_factory: pytest.TempPathFactory) -> None:
    shared = site_builds(tmp_path_factory)
    for name in SITES:
        result = json.loads((shared / f"{name}.json").read_text(encoding="utf-8"))
        assert result["returncode"] == 0, f"the strict build ({name}) failed:\n{result['log']}"
