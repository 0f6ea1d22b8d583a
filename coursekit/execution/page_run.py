"""Run the executed blocks of one page, in order: the one loop of the project.

The build (``coursekit.mkdocs_adapter``), the drift check (``coursekit.testing.drift``)
and the benchmark (``scripts/bench.py``) all call :func:`run_page`, so they run the
same code in the same sessions with the same options.

* Each page starts from fresh namespaces: one for the page, one per explicit
  ``session=`` name, both private to this call.
* A block that fails does not stop the page: the blocks after it still run, in the
  same namespaces, and are marked ``after_failure``. A drift report then still shows
  whether they print what they used to (a later failure may of course come from a name
  the failed block never defined: the report says which block failed first).
* A page cannot leave torch's global switches (grad mode, default dtype, anomaly
  detection) changed for the next page: they are put back after every page.
* A failure is described as Python would, pointed at the page:
  ``docs/page.md:LINE: ExceptionType: message`` and a traceback of the page's own
  frames (no runner frames, no generated source).
"""

from __future__ import annotations

import re
import sys
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from coursekit.execution.runner import BlockError, run_block
from coursekit.markdown.blocks import Block


@dataclass(frozen=True)
class BlockFailure:
    """Why a block failed, located in its Markdown page."""

    block: Block
    line: int  # the line to look at first, of ``file``
    kind: str  # the exception's class name
    message: str
    # (file, line, code) of the page's own frames: the page, or the snippet it includes
    frames: tuple[tuple[str, int, str], ...] = ()
    file: str = ""  # "" = the page; else the snippet file that holds ``line``

    @property
    def headline(self) -> str:
        where = f"{self.block.page}:{self.line}"
        if self.file:  # included code: its own file and line, then the block that includes it
            where = f"{self.file}:{self.line} (included by {self.block.where})"
        return f"{where}: {self.kind}: {self.message}"

    def report(self) -> str:
        """The headline, then a traceback limited to the page's code."""
        if not self.frames:
            return self.headline
        lines = [self.headline, "Traceback (the page's code, most recent call last):"]
        for file, line, code in self.frames:
            lines.append(f'  File "{file}", line {line}')
            if code:
                lines.append(f"    {code}")
        return "\n".join(lines)


@dataclass(frozen=True)
class BlockResult:
    block: Block
    output: str = ""  # what the learner sees (HTML for html="on" blocks)
    failure: BlockFailure | None = None
    after_failure: bool = False  # an earlier block of the page failed before this one ran

    @property
    def ok(self) -> bool:
        return self.failure is None and not self.after_failure


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


@contextmanager
def _torch_switches() -> Iterator[None]:
    """Put back torch's process-wide switches after a page (if the page imported torch)."""
    torch: Any = sys.modules.get("torch")
    saved = (
        (torch.is_grad_enabled(), torch.get_default_dtype(), torch.is_anomaly_enabled())
        if torch is not None
        else None
    )
    try:
        yield
    finally:
        torch = sys.modules.get("torch")
        if torch is not None:
            grad, dtype, anomaly = saved or (True, torch.float32, False)
            torch.set_grad_enabled(grad)
            torch.set_default_dtype(dtype)
            torch.autograd.set_detect_anomaly(anomaly)


def run_page(blocks: Sequence[Block]) -> list[BlockResult]:
    """Run ``blocks`` (one page's, in order) and return one result per block."""
    results: list[BlockResult] = []
    if not blocks:
        return results
    sessions = _Sessions(blocks[0].page)
    with _torch_switches():
        _run_blocks(blocks, sessions, results)
    return results


def _run_blocks(blocks: Sequence[Block], sessions: _Sessions, results: list[BlockResult]) -> None:
    failed = False
    try:
        for block in blocks:
            after_failure = failed
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
            results.append(BlockResult(block, "".join(chunks), failure, after_failure))
    finally:
        sessions.close()


def first_failure(results: Sequence[BlockResult]) -> BlockFailure | None:
    return next((r.failure for r in results if r.failure is not None), None)


def describe(block: Block, error: BaseException) -> BlockFailure:
    """A failure as Python would print it, keeping only the frames inside the page."""
    if isinstance(error, SyntaxError) and error.filename == block.page:
        file, line = block.origin(error.lineno or block.line)
        code = (error.text or "").strip()
        return BlockFailure(
            block, line, "SyntaxError", error.msg, ((file, line, code),), _named(block, file)
        )
    frames = tuple(
        (*block.origin(frame.lineno or block.line), (frame.line or "").strip())
        for frame in traceback.extract_tb(error.__traceback__)
        if frame.filename == block.page
    )
    message = str(error) if not isinstance(error, SystemExit) else f"exit({error.code!r})"
    # A broken promise of the page (no expected error, a refused output) is about the
    # whole block; an exception points at the deepest line of the page it reached.
    if isinstance(error, BlockError) or not frames:
        return BlockFailure(block, block.line, type(error).__name__, message, frames)
    file, line, _ = frames[-1]
    return BlockFailure(block, line, type(error).__name__, message, frames, _named(block, file))


def _named(block: Block, file: str) -> str:
    """``file`` when it is not the block's page (an included snippet), else ""."""
    return "" if file == block.page else file
