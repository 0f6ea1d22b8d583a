"""Find the executed Python fences of a Markdown page.

The build (MkDocs) and the drift check (pytest) both need to agree on which
blocks run, in which order, and on which line each one starts, so both use
this one scanner instead of their own parsers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

# An opening fence: indentation, three or more backticks or tildes, the language, options.
_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w+-]*)(?P<rest>.*)$")
_ATTR = re.compile(r'(?P<key>[\w-]+)="(?P<value>[^"]*)"')

PYTHON_LANGS = {"python", "py", "python3"}


class FenceError(ValueError):
    """A Markdown fence that cannot be run; the message names file and line."""


@dataclass(frozen=True)
class Fence:
    """One fenced code block: where it starts and what its info string says."""

    path: str
    line: int  # 1-based line of the opening fence
    indent: str
    lang: str
    attrs: dict[str, str] = field(default_factory=dict)
    body: str = ""

    @property
    def executed(self) -> bool:
        return self.lang in PYTHON_LANGS and self.attrs.get("exec", "").lower() in {
            "on",
            "1",
            "yes",
            "true",
        }

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


def parse_attrs(info: str) -> dict[str, str]:
    """`exec="on" session="x"` -> {"exec": "on", "session": "x"}."""
    return {m["key"]: m["value"] for m in _ATTR.finditer(info)}


def scan(text: str, path: str) -> list[Fence]:
    """Every fenced block of ``text``, in document order (nested fences included)."""
    fences: list[Fence] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        match = _OPEN.match(lines[i])
        if not match:
            i += 1
            continue
        marker = match["fence"]
        closing = re.compile(rf"^[ \t]*{re.escape(marker[0])}{{{len(marker)},}}\s*$")
        end = i + 1
        while end < len(lines) and not closing.match(lines[end]):
            end += 1
        body = "\n".join(line.removeprefix(match["indent"]) for line in lines[i + 1 : end])
        fences.append(
            Fence(
                path=path,
                line=i + 1,
                indent=match["indent"],
                lang=match["lang"].lower(),
                attrs=parse_attrs(match["rest"]),
                body=body,
            )
        )
        i = end + 1
    return fences


def executed_fences(text: str, path: str, line_offset: int = 0) -> list[Fence]:
    """The fences that run at build time, checked to be runnable by the drift check too.

    ``line_offset`` lines (front matter stripped by MkDocs) precede ``text`` in the file;
    errors name the file's own line.
    """
    found = [f for f in scan(text, path) if f.executed]
    for fence in found:
        if fence.indent:
            # pytest-markdown-docs (markdown-it) cannot see indented fences, so such a
            # block would be built but never drift-checked. Use `///` blocks instead.
            raise FenceError(
                f"{path}:{fence.line + line_offset}: an executed block must start at column 0 "
                "(put it in a `/// details` or `/// tab` block, not an indented one)"
            )
    return found


def executed_fences_in_file(path: Path, root: Path) -> list[Fence]:
    return executed_fences(path.read_text(encoding="utf-8"), path.relative_to(root).as_posix())


def tag_fences(text: str, page: str, offset: int = 0) -> str:
    """Add ``mdpage``/``mdline`` to the d2 fences, so that their errors name file and line.

    ``offset`` is the number of front-matter lines MkDocs stripped from ``text``.
    (Executed Python fences carry a :class:`coursekit.blocks.Block` instead.)
    """
    lines = text.split("\n")
    for fence in scan(text, page):
        if fence.lang == "d2":
            lines[fence.line - 1] += f' mdpage="{page}" mdline="{fence.line + offset}"'
    return "\n".join(lines)
