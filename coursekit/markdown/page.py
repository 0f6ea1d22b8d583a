"""A page's source, read once: its fences, its includes expanded, its executed blocks.

Everything that needs a page's blocks (the build, the drift check, the chapter
notebooks, the bench) reads the page through :func:`read_page`, and the build hands
MkDocs the :attr:`PageSource.text` it made, so a page's includes are expanded once per
build: pymdownx.snippets then finds nothing left to do.

Lines: ``line_offset`` lines (the front matter MkDocs strips) come before the given
text in the file. Fences are found in the text as written, so that an included file can
never open or close a fence of the page; each line of it is then expanded in place, and
:meth:`PageSource.expanded_line` tells where a written line went.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from coursekit.markdown import blocks as blocks_module
from coursekit.markdown.blocks import DEFAULT_TIMEOUT, Block
from coursekit.markdown.fences import Fence, executed, scan
from coursekit.markdown.includes import INCLUDE, Includes


@dataclass(frozen=True)
class PageSource:
    """One page as every tool sees it."""

    path: str  # "docs/chapters/chain-rule.md", relative to the project root
    written: str  # the Markdown as given (front matter stripped by MkDocs, or not)
    text: str  # the same with every include expanded: what MkDocs renders
    line_offset: int  # lines of the file before ``written`` (the front matter)
    fences: tuple[Fence, ...]  # every fence, in ``written`` coordinates
    blocks: tuple[Block, ...]  # the executed ones, includes expanded, file lines
    _starts: tuple[int, ...]  # 0-based line of ``text`` where each written line starts

    def expanded_line(self, written_line: int) -> int:
        """The 1-based line of ``text`` where 1-based ``written_line`` now starts."""
        return self._starts[written_line - 1] + 1

    def file_line(self, written_line: int) -> int:
        """The line of the .md file a line of ``written`` is on (front matter counted)."""
        return written_line + self.line_offset

    def executed_fences(self) -> list[Fence]:
        return [f for f in self.fences if f.executed]


def read_page(
    written: str,
    path: str,
    includes: Includes,
    *,
    line_offset: int = 0,
    default_timeout: float = DEFAULT_TIMEOUT,
) -> PageSource:
    """Read a page: raises FenceError or IncludeError, both starting with file:line."""
    fences = scan(written, path)
    to_run = executed(fences, line_offset)
    lines = written.split("\n")
    out: list[str] = []
    where: list[tuple[str, int]] = []  # the file and line each line of ``out`` comes from
    read: list[tuple[str, str] | None] = []  # the snippet file (and digest) it was read from
    starts: list[int] = []
    for index, line in enumerate(lines):
        starts.append(len(out))
        here = (path, index + 1 + line_offset)
        if INCLUDE.match(line):
            expanded = includes.expand_line(line, f"{path}:{here[1]}")
            out.extend(expanded)
            where.extend(includes.origins(line, expanded) or [here] * len(expanded))
            read.extend([includes.source(line, f"{path}:{here[1]}")] * len(expanded))
        else:
            out.append(line)
            where.append(here)
            read.append(None)
    text = "\n".join(out)
    found = []
    record_keys = blocks_module.keys(to_run)
    for number, (fence, key) in enumerate(zip(to_run, record_keys, strict=True), start=1):
        # The body as it now stands in the expanded text: what markdown-exec will show.
        first = starts[fence.line] if fence.line < len(starts) else len(out)
        last = starts[fence.end - 1] if fence.end - 1 < len(starts) else len(out)
        code = "\n".join(out[first:last])
        found.append(
            blocks_module.block(
                fence,
                number=number,
                key=key,
                code=code,
                line=fence.line + line_offset,
                default_timeout=default_timeout,
                origins=tuple(where[first:last]),
                sources=tuple(sorted({source for source in read[first:last] if source})),
            )
        )
    return PageSource(
        path=path,
        written=written,
        text=text,
        line_offset=line_offset,
        fences=tuple(fences),
        blocks=tuple(found),
        _starts=tuple(starts),
    )


def read_file(
    file: Path, root: Path, includes: Includes, *, default_timeout: float = DEFAULT_TIMEOUT
) -> PageSource:
    """A page read from disk, front matter included (the drift check, notebooks, bench)."""
    path = file.resolve().relative_to(root.resolve()).as_posix()
    return read_page(
        file.read_text(encoding="utf-8"), path, includes, default_timeout=default_timeout
    )


def title(text: str) -> str:
    """A page's H1 (``# Title`` on a line of its own), or "" without one."""
    found = re.search(r"^# (.+)$", text, re.M)
    return found[1].strip() if found else ""
