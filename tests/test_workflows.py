"""The GitHub Actions workflows pass actionlint and zizmor with no finding."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def _tool(name: str) -> str:
    # Prefer the copy installed beside this Python (the project's venv).
    local = Path(sys.executable).parent / name
    found = str(local) if local.exists() else shutil.which(name)
    if not found:
        pytest.fail(f"{name} is not installed: run `pip install -e '.[test]'`", pytrace=False)
    return found


def test_there_are_workflows() -> None:
    names = {path.name for path in WORKFLOWS}
    assert {"ci.yml", "deploy.yml", "drift.yml"} <= names


def test_actionlint_finds_nothing() -> None:
    result = subprocess.run(
        [_tool("actionlint"), *map(str, WORKFLOWS)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_zizmor_finds_nothing() -> None:
    result = subprocess.run(
        [_tool("zizmor"), "--offline", "--no-progress", *map(str, WORKFLOWS)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
