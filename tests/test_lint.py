"""The code is ruff clean (lint and format) and mypy clean (coursekit/, typed hooks)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_ruff_check() -> None:
    result = _ruff("check", ".")
    assert result.returncode == 0, result.stdout


def test_ruff_format() -> None:
    result = _ruff("format", "--check", ".")
    assert result.returncode == 0, result.stdout


def test_mypy() -> None:
    # Settings and the checked folder are in pyproject.toml ([tool.mypy]).
    result = subprocess.run(
        [sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout
