"""What keeps pages fast, checked so an upgrade or a config edit cannot undo it silently.

The scores themselves come from `make audit` (Lighthouse, a benchmark, not a test).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import material
import yaml

ROOT = Path(__file__).resolve().parent.parent


def _features() -> list[str]:
    # mkdocs.yml holds !ENV and !!python/name tags: read only the plain theme section.
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    theme = text.split("\ntheme:\n", 1)[1].split("\n\n", 1)[0]
    return yaml.safe_load("theme:\n" + theme)["theme"]["features"]


def test_material_still_knows_the_lazy_code_block_flag() -> None:
    """`content.lazy` is undocumented: if Material drops it, every code block is mounted
    at load again (about 55 forced layouts on the longest chapter)."""
    bundles = list(
        Path(material.__file__).parent.glob("templates/assets/javascripts/bundle.*.min.js")
    )
    assert bundles, "Material's JavaScript bundle not found"
    assert '"content.lazy"' in bundles[0].read_text(encoding="utf-8")
    assert "content.lazy" in _features()


def test_no_unused_pyodide_assets(built_site: Path) -> None:
    assert not list(built_site.rglob("_markdown_exec_pyodide*"))
    for page in built_site.rglob("*.html"):
        assert "_markdown_exec_pyodide" not in page.read_text(encoding="utf-8"), page


def test_pages_ship_the_lazy_flag(built_site: Path) -> None:
    html = (built_site / "index.html").read_text(encoding="utf-8")
    config = json.loads(
        re.search(r'<script id="__config" type="application/json">(.*?)</script>', html, re.S)[1]
    )
    assert "content.lazy" in config["features"]


def test_heavy_blocks_skip_offscreen_rendering() -> None:
    css = (ROOT / "docs/assets/stylesheets/course.css").read_text(encoding="utf-8")
    rule = re.search(r"([^{}]+)\{\s*content-visibility:\s*auto;", css)
    assert rule, "course.css lost its content-visibility rule"
    for selector in (".md-typeset > .highlight", ".md-typeset > .result", ".md-typeset > figure"):
        assert selector in rule[1]
