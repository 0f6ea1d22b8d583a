"""Where a fence stands, handed to the fence that renders it.

A superfences formatter sees a fence's code and options, never its page or line. So the
build writes one option into every fence it renders itself (executed Python, ``d2``,
``quiz``, ``quiz-index``) before MkDocs converts the page: ``at="docs/<page>.md:<line>"``,
the line of the opening fence in the Markdown file. Each fence's validator takes it out
again (:func:`pop`): its errors name that file and line, and an executed fence finds its
block's result by it. This is the one way a fence learns where it is.
"""

from __future__ import annotations

from collections.abc import Collection, MutableMapping
from dataclasses import dataclass

from coursekit.markdown.fences import PYTHON
from coursekit.markdown.page import PageSource

AT = "at"


@dataclass(frozen=True)
class Where:
    page: str  # "docs/chapters/chain-rule.md", from the project's root
    line: int  # the opening fence's line in the file (front matter counted)

    def __str__(self) -> str:
        return f"{self.page}:{self.line}"


def tag(source: PageSource, languages: Collection[str]) -> str:
    """The page's text (includes expanded) with ``at="page:line"`` on the opening line
    of every fence in ``languages`` (a Python fence only if it is executed)."""
    lines = source.text.split("\n")
    for fence in source.fences:
        if fence.lang in languages and (fence.lang not in PYTHON or fence.executed):
            index = source.expanded_line(fence.line) - 1
            where = Where(source.path, source.file_line(fence.line))
            lines[index] = f'{lines[index]} {AT}="{where}"'
    return "\n".join(lines)


def pop(inputs: MutableMapping[str, str]) -> Where | None:
    """Take the tag out of a fence's options (None: the build wrote none)."""
    value = inputs.pop(AT, None)
    if value is None:
        return None
    page, _, line = value.rpartition(":")
    return Where(page, int(line))
