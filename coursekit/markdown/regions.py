"""A named region of a snippet, read exactly as pymdownx.snippets includes it.

``--8<-- "chapters/chain_rule.py:composite"`` includes the lines between
``# --8<-- [start:composite]`` and ``# --8<-- [end:composite]``. pymdownx decides what
that means (its own marker pattern; markers of other regions inside are left out; an
escaped marker ``;--8<--`` is kept, unescaped; the lines dedented as a block). This is
the one reader of regions for the engine (includes, exercise notebooks) and the tests
(``tests/maths``): it follows pymdownx's ``extract_section`` line for line, with
pymdownx's own marker pattern, and also keeps where each line stands in the file, so
that an error in included code names the snippet's own line.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path

from pymdownx.snippets import SnippetPreprocessor

from coursekit.errors import CourseError

MARKER = SnippetPreprocessor.RE_SNIPPET_SECTION  # pymdownx's own pattern of a marker


class RegionError(CourseError, LookupError):
    """A region that the snippet does not have."""


@dataclass(frozen=True)
class Region:
    """The lines a region includes, and the 1-based line of each in its file."""

    path: Path
    name: str
    lines: tuple[str, ...]
    numbers: tuple[int, ...]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def source(self) -> str:
        """The region as code that keeps the file's line numbers: each line at its own
        line, the markers of regions nested in it blank (for compile())."""
        placed = [""] * (self.numbers[-1] if self.numbers else 0)
        for number, line in zip(self.numbers, self.lines, strict=True):
            placed[number - 1] = line
        return "\n".join(placed) + "\n"


def _marker(line: str) -> tuple[str, str, str] | None:
    """(type, name, the line unescaped) of a marker line, as pymdownx reads it."""
    match = MARKER.match(line) if "8<-" in line else None
    if match is None:
        return None
    if match["escape"]:  # ;--8<-- is text: one ; goes, the rest is kept
        kept = match["escape"].replace(";", "", 1)
        text = match["pre"] + kept + match["inline_marker"] + match["section"] + match["post"]
        return "text", "", text
    return match["type"].lower(), match["name"], line


def read_region(path: Path, name: str, *, dedent: bool = True) -> Region:
    """Region ``name`` of ``path`` (pymdownx's ``extract_section``, with line numbers;
    ``dedent`` as mkdocs.yml's ``dedent_subsections``)."""
    lines: list[str] = []
    numbers: list[int] = []
    inside = found = False
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        marker = _marker(line)
        if marker is not None and marker[0] == "text":
            line = marker[2]
        elif marker is not None and marker[1] == name:
            kind = marker[0]
            if kind == "start" and not inside:
                inside = found = True
                continue
            if kind == "start":
                continue  # a second start is ignored
            break  # its end, or an end before any start
        elif marker is not None and inside:
            continue  # a marker of another region
        if inside:
            lines.append(line)
            numbers.append(number)
    if not found:
        raise RegionError(f"{path}: no region [start:{name}] ... [end:{name}]")
    if dedent and lines:
        lines = textwrap.dedent("\n".join(lines)).split("\n")
    return Region(path, name, tuple(lines), tuple(numbers))


def region_names(path: Path) -> list[str]:
    """The names of the regions of a snippet, in the order they start."""
    names: list[str] = []
    for line in path.read_text(encoding="utf-8").split("\n"):
        marker = _marker(line)
        if marker is not None and marker[0] == "start" and marker[1] not in names:
            names.append(marker[1])
    return names
