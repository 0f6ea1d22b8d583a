"""The one model of an executed block, shared by the build, the drift check and the bench.

A :class:`Block` knows where it is (the page and the absolute line of its opening
fence in the ``.md`` file, front matter counted), what it runs (the fence body with
its ``--8<--`` includes expanded) and how (``raises=``, ``timeout=``, ``html=``,
``session=``, ``timing=``, and ``changed=`` when an older PyTorch printed something else).
Its :attr:`Block.key` names it in the record of outputs:

1. an explicit ``id="..."`` fence option (the author's choice always wins);
2. else the include region, when the block is a single include
   (``chapters/chain_rule.py:composite``);
3. else its position, ``block-N`` (N counts the page's executed blocks from 1).

Inserting a block therefore renumbers only the position-keyed blocks after it.
"""

from __future__ import annotations

from dataclasses import dataclass

from coursekit.markdown import options
from coursekit.markdown.fences import Fence, FenceError
from coursekit.markdown.includes import ONE_INCLUDE

DEFAULT_TIMEOUT = 60.0  # seconds; the plugin's `block_timeout` option sets another


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
    timing: bool = False  # prints measured times: the record compares it without numbers
    changed: str = ""  # a version note's name: older PyTorch printed something else
    # (file, line) of each line of ``code``: an included line's own snippet file and line
    origins: tuple[tuple[str, int], ...] = ()
    # (file, SHA-256 of the whole file) of each snippet file the block includes from: a
    # block may run more of its file than it includes (a launcher that runs the file)
    sources: tuple[tuple[str, str], ...] = ()

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def first_code_line(self) -> int:
        return self.line + 1

    def origin(self, code_line: int) -> tuple[str, int]:
        """Where line ``code_line`` of the compiled block (page numbering) really is."""
        index = code_line - self.first_code_line
        if 0 <= index < len(self.origins):
            return self.origins[index]
        return self.page, code_line


def keys(fences: list[Fence]) -> list[str]:
    """The record key of each executed fence, unique within the page."""
    found: list[str] = []
    seen: dict[str, int] = {}
    for number, fence in enumerate(fences, start=1):
        key = fence.attrs.get("id") or include_target(fence.body) or f"block-{number}"
        seen[key] = seen.get(key, 0) + 1
        # The same region included twice: the second one is "region#2".
        found.append(key if seen[key] == 1 else f"{key}#{seen[key]}")
    return found


def include_target(body: str) -> str | None:
    """``chapters/x.py:region`` when ``body`` is one include line and nothing else."""
    lines = [line for line in body.split("\n") if line.strip()]
    if len(lines) == 1 and (match := ONE_INCLUDE.match(lines[0])):
        return match["target"]
    return None


def block(
    fence: Fence,
    *,
    number: int,
    key: str,
    code: str,
    line: int,
    default_timeout: float,
    origins: tuple[tuple[str, int], ...] = (),
    sources: tuple[tuple[str, str], ...] = (),
) -> Block:
    """The block of an executed ``fence`` whose opening line is ``line`` of its file."""
    attrs = fence.attrs
    try:
        timeout = float(attrs.get("timeout", default_timeout))
    except ValueError:
        raise FenceError(
            f"{fence.path}:{line}: timeout={attrs['timeout']!r} is not a number of seconds"
        ) from None
    return Block(
        page=fence.path,
        line=line,
        number=number,
        key=key,
        code=code,
        raises=attrs.get("raises", ""),
        timeout=timeout,
        html=options.is_on(attrs.get("html")),
        session=attrs.get("session", ""),
        timing=options.is_on(attrs.get("timing")),
        changed=attrs.get("changed", ""),
        origins=origins,
        sources=sources,
    )
