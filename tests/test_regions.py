"""The one reader of snippet regions (coursekit/markdown/regions.py) reads every region
of the project exactly as pymdownx.snippets includes it, and knows each line's place."""

from __future__ import annotations

from pathlib import Path

import markdown
import pytest
from support import ROOT

from coursekit.markdown.regions import RegionError, read_region, region_names

SNIPPETS = sorted([*(ROOT / "snippets").rglob("*.py"), *(ROOT / "tests" / "mistakes").glob("*.py")])


def _pymdownx() -> object:
    md = markdown.Markdown(
        extensions=["pymdownx.snippets"],
        extension_configs={"pymdownx.snippets": {"dedent_subsections": True}},
    )
    return md.preprocessors["snippet"]


@pytest.mark.parametrize("path", SNIPPETS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_region_reads_as_pymdownx_includes_it(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").split("\n")
    extract = _pymdownx().extract_section  # type: ignore[attr-defined]
    for name in region_names(path):
        region = read_region(path, name)
        assert list(region.lines) == extract(name, lines), name
        for number, line in zip(region.numbers, region.lines, strict=True):
            assert lines[number - 1].strip() == line.strip(), (name, number)


def test_nested_markers_escapes_and_line_numbers(tmp_path: Path) -> None:
    snippet = tmp_path / "s.py"
    snippet.write_text(
        "# --8<-- [start:outer]\n"
        "if True:\n"
        "    a = 1\n"
        "    # --8<-- [start:inner]\n"
        "    b = 2  # ;--8<-- [start:text]\n"
        "    # --8<-- [end:inner]\n"
        "# --8<-- [end:outer]\n",
        encoding="utf-8",
    )
    outer = read_region(snippet, "outer")
    assert outer.lines == ("if True:", "    a = 1", "    b = 2  # --8<-- [start:text]")
    assert outer.numbers == (2, 3, 5)
    inner = read_region(snippet, "inner")
    assert inner.lines == ("b = 2  # --8<-- [start:text]",)  # dedented
    assert inner.source().split("\n")[4] == "b = 2  # --8<-- [start:text]"  # at line 5
    assert region_names(snippet) == ["outer", "inner"]
    with pytest.raises(RegionError, match="no region"):
        read_region(snippet, "absent")
