"""The code is ruff clean (lint and format), mypy clean (coursekit/, typed hooks) and keeps
the engine's import contracts (import-linter: pyproject.toml, [tool.importlinter])."""

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


def test_import_contracts() -> None:
    # The layers of coursekit/ and which of them may import MkDocs (pyproject.toml).
    lint_imports = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run(
        [str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout
