"""Property tests: autograd agrees with every formula derived by hand in the chapters."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType


def load_snippet(name: str) -> ModuleType:
    """Import ``snippets/chapters/<name>.py`` so a test checks the page's own functions."""
    path = Path(__file__).resolve().parents[2] / "snippets" / "chapters" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"course_snippet_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
