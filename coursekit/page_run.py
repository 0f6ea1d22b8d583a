"""Run the executed blocks of one page, in order: the one loop of the project.

The build (``coursekit.build_exec``), the drift check (``coursekit.pytest_plugin``)
and the benchmark (``scripts/bench.py``) all call :func:`run_page`, so they run the
same code in the same sessions with the same options.

* Each page starts from fresh namespaces: one for the page, one per explicit
  ``session=`` name, both private to this call.
* A block that fails stops the page: the blocks after it are not run (they would
  only fail again on names the failed block never defined).
* A failure is described as Python would, pointed at the page:
  ``docs/page.md:LINE: ExceptionType: message`` and a traceback of the page's own
  frames (no runner frames, no generated source).
"""

from __future__ import annotations

import re
import sys
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from coursekit.blocks import Block
from coursekit.execution import BlockError, run_block


@dataclass(frozen=True)
class BlockFailure:
    """Why a block failed, located in its Markdown page."""

    block: Block
    line: int  # the page line to look at first
    kind: str  # the exception's class name
    message: str
    frames: tuple[tuple[int, str], ...] = ()  # (line, code) of the page's own frames

    @property
    def headline(self) -> str:
        return f"{self.block.page}:{self.line}: {self.kind}: {self.message}"

    def report(self) -> str:
        """The headline, then a traceback limited to the page's code."""
        if not self.frames:
            return self.headline
        lines = [self.headline, "Traceback (the page's code, most recent call last):"]
        for line, code in self.frames:
            lines.append(f'  File "{self.block.page}", line {line}')
            if code:
                lines.append(f"    {code}")
        return "\n".join(lines)


@dataclass(frozen=True)
class BlockResult:
    block: Block
    output: str = ""  # what the learner sees (HTML for html="on" blocks)
    failure: BlockFailure | None = None
    ran: bool = True  # False: an earlier block of the page failed

    @property
    def ok(self) -> bool:
        return self.ran and self.failure is None


@dataclass
class _Sessions:
    """The namespaces of one page run; each is a registered module so that classes
    defined in a block (dataclasses, pickling) find their module."""

    page: str
    modules: dict[str, ModuleType] = field(default_factory=dict)

    def namespace(self, session: str) -> dict[str, Any]:
        if session not in self.modules:
            name = "course_" + re.sub(r"\W+", "_", f"{self.page}_{session}")
            module = ModuleType(name)
            sys.modules[name] = module
            self.modules[session] = module
        return self.modules[session].__dict__

    def close(self) -> None:
        for module in self.modules.values():
            sys.modules.pop(module.__name__, None)


def run_page(blocks: Sequence[Block]) -> list[BlockResult]:
    """Run ``blocks`` (one page's, in order) and return one result per block."""
    results: list[BlockResult] = []
    if not blocks:
        return results
    sessions = _Sessions(blocks[0].page)
    failed = False
    try:
        for block in blocks:
            if failed:
                results.append(BlockResult(block, ran=False))
                continue
            chunks: list[str] = []
            failure = None
            try:
                run_block(
                    block.code,
                    sessions.namespace(block.session),
                    chunks.append,
                    filename=block.page,
                    first_line=block.first_code_line,
                    raises=block.raises,
                    timeout=block.timeout,
                )
            except (Exception, SystemExit) as error:
                failure = describe(block, error)
                failed = True
            results.append(BlockResult(block, "".join(chunks), failure))
    finally:
        sessions.close()
    return results


def describe(block: Block, error: BaseException) -> BlockFailure:
    """A failure as Python would print it, keeping only the frames inside the page."""
    if isinstance(error, SyntaxError) and error.filename == block.page:
        line = error.lineno or block.line
        code = (error.text or "").strip()
        return BlockFailure(block, line, "SyntaxError", error.msg, ((line, code),))
    frames = tuple(
        (frame.lineno or block.line, (frame.line or "").strip())
        for frame in traceback.extract_tb(error.__traceback__)
        if frame.filename == block.page
    )
    # A broken promise of the page (no expected error, a refused output) is about the
    # whole block; an exception points at the deepest line of the page it reached.
    line = block.line if isinstance(error, BlockError) or not frames else frames[-1][0]
    message = str(error) if not isinstance(error, SystemExit) else f"exit({error.code!r})"
    return BlockFailure(block, line, type(error).__name__, message, frames)
