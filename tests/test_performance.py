"""What keeps pages fast, checked so an upgrade or a config edit cannot undo it silently.

The scores themselves come from `make audit` (Lighthouse, a benchmark, not a test).
"""

from __future__ import annotations

from pathlib import Path


def test_no_unused_pyodide_assets(built_site: Path) -> None:
    assert not list(built_site.rglob("_markdown_exec_pyodide*"))
    for page in built_site.rglob("*.html"):
        assert "_markdown_exec_pyodide" not in page.read_text(encoding="utf-8"), page
