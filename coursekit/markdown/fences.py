"""The fenced blocks of a Markdown page: the one scanner every reader of a page uses.

The build, the drift check, the chapter notebooks and the quizzes all ask this module
which fences a page has, where each starts and ends, and what its info string says, so
they can never disagree about which blocks run or on which line an error is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from coursekit.errors import CourseError
from coursekit.markdown import options

# An opening fence: indentation, three or more backticks or tildes, the language, options.
_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w+-]*)(?P<rest>.*)$")

PYTHON = frozenset({"python", "py", "python3"})


class FenceError(CourseError, ValueError):
    """A Markdown fence that cannot be run; the message names file and line."""


@dataclass(frozen=True)
class Fence:
    """One fenced code block: where it starts and ends, and what its info string says."""

    path: str  # the page, e.g. "docs/chapters/chain-rule.md"
    line: int  # 1-based line of the opening fence (in the text that was scanned)
    end: int  # 1-based line of the closing fence (one past the last line if it never closes)
    indent: str
    lang: str
    attrs: dict[str, str] = field(default_factory=dict)
    body: str = ""
    opening: str = ""  # the opening line as written

    @property
    def executed(self) -> bool:
        return self.lang in PYTHON and options.is_on(self.attrs.get("exec"))

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


def scan(text: str, path: str) -> list[Fence]:
    """Every fenced block of ``text``, in document order.

    A fence inside another fence's body is that fence's content, not a fence; fences
    inside ``///`` blocks or list items are found (with their indentation).
    """
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
                end=end + 1,
                indent=match["indent"],
                lang=match["lang"].lower(),
                attrs=options.parse(match["rest"]),
                body=body,
                opening=lines[i],
            )
        )
        i = end + 1
    return fences


def executed(fences: list[Fence], line_offset: int = 0) -> list[Fence]:
    """The fences that run at build time, checked to be runnable by the drift check too.

    ``line_offset`` lines (front matter stripped by MkDocs) precede the scanned text in
    the file; errors name the file's own line.
    """
    found = [f for f in fences if f.executed]
    for fence in found:
        if fence.indent:
            # pytest-markdown-docs (markdown-it) cannot see indented fences, so such a
            # block would be built but never drift-checked. Use `///` blocks instead.
            raise FenceError(
                f"{fence.path}:{fence.line + line_offset}: an executed block must start at "
                "column 0 (put it in a `/// details` or `/// tab` block, not an indented one)"
            )
    return found
