"""The one model of an executed block, shared by the build, the drift check and the bench.

A :class:`Block` knows where it is (the page and the absolute line of its opening
fence in the ``.md`` file, front matter counted), what it runs (the fence body with
its ``--8<--`` includes expanded) and how (``raises=``, ``timeout=``, ``html=``,
``session=``). Its :attr:`Block.key` names it in ``tests/recorded_outputs.yml``:

1. an explicit ``id="..."`` fence option (the author's choice always wins);
2. else the include region, when the block is a single include
   (``chapters/chain_rule.py:composite``);
3. else its position, ``block-N`` (N counts the page's executed blocks from 1).

Inserting a block therefore renumbers only the position-keyed blocks after it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coursekit import includes
from coursekit.execution import DEFAULT_TIMEOUT
from coursekit.fences import Fence, FenceError, executed_fences

# One include line and nothing else: `--8<-- "chapters/chain_rule.py:composite"`.
_SINGLE_INCLUDE = re.compile(r"""^\s*-{1,}8<-{1,}\s+(["'])(?P<target>[^"']+)\1\s*$""")
_OFF = {"", "no", "off", "false", "0"}  # markdown-exec's own reading of a boolean option


@dataclass(frozen=True)
class Block:
    """One executed fence of a page, ready to run."""

    page: str  # "docs/chapters/chain-rule.md", relative to the project root
    line: int  # 1-based line of the opening fence in the .md file (front matter counted)
    number: int  # 1 = the page's first executed block
    key: str  # the block's name in the record (see the module docstring)
    code: str  # the fence body, includes expanded: exactly what runs
    raises: str = ""
    timeout: float = DEFAULT_TIMEOUT
    html: bool = False
    session: str = ""  # "" = the page's own session; others are scoped to the page too

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def first_code_line(self) -> int:
        return self.line + 1


def is_on(value: str) -> bool:
    return value.lower() not in _OFF


def block_keys(fences: list[Fence]) -> list[str]:
    """The record key of each executed fence, unique within the page."""
    keys: list[str] = []
    seen: dict[str, int] = {}
    for number, fence in enumerate(fences, start=1):
        key = fence.attrs.get("id") or _include_target(fence.body) or f"block-{number}"
        seen[key] = seen.get(key, 0) + 1
        # The same region included twice: the second one is "region#2".
        keys.append(key if seen[key] == 1 else f"{key}#{seen[key]}")
    return keys


def _include_target(body: str) -> str | None:
    lines = [line for line in body.split("\n") if line.strip()]
    if len(lines) == 1 and (match := _SINGLE_INCLUDE.match(lines[0])):
        return match["target"]
    return None


def page_blocks(
    text: str,
    page: str,
    *,
    snippets: Mapping[str, Any],
    base_dir: Path,
    line_offset: int = 0,
) -> list[Block]:
    """Every executed block of a page, in order, includes expanded.

    ``snippets`` are the pymdownx.snippets options of ``mkdocs.yml``; ``base_dir`` is the
    folder of ``mkdocs.yml``. Raises :class:`FenceError` or :class:`includes.IncludeError`
    (both start with file:line).
    """
    fences = executed_fences(text, page, line_offset)
    blocks = []
    for number, (fence, key) in enumerate(zip(fences, block_keys(fences), strict=True), 1):
        line = fence.line + line_offset
        try:
            timeout = float(fence.attrs.get("timeout", DEFAULT_TIMEOUT))
        except ValueError:
            raise FenceError(
                f"{page}:{line}: timeout={fence.attrs['timeout']!r} is not a number of seconds"
            ) from None
        code = includes.expand(fence.body, page, line + 1, dict(snippets), base_dir)
        blocks.append(
            Block(
                page=page,
                line=line,
                number=number,
                key=key,
                code=code,
                raises=fence.attrs.get("raises", ""),
                timeout=timeout,
                html=is_on(fence.attrs.get("html", "")),
                session=fence.attrs.get("session", ""),
            )
        )
    return blocks


def file_blocks(path: Path, root: Path, config_file: Path) -> list[Block]:
    """The blocks of a Markdown file read from disk (the drift check and the bench)."""
    page = path.resolve().relative_to(root.resolve()).as_posix()
    return page_blocks(
        path.read_text(encoding="utf-8"),
        page,
        snippets=dict(includes.snippet_options(config_file)),
        base_dir=config_file.parent,
    )


def file_keys(path: Path, root: Path) -> list[str]:
    """The record keys of a Markdown file, without expanding or running anything."""
    page = path.resolve().relative_to(root.resolve()).as_posix()
    return block_keys(executed_fences(path.read_text(encoding="utf-8"), page))
