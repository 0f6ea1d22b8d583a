"""Run one code block the way a learner would see it.

Called for every block by :func:`coursekit.execution.page_run.run_page`, which the
build, the drift check and the benchmark all use, so the three print exactly the same
thing:

* ``print`` behaves like the real one (``sep``/``end``), whoever captures it;
* Python warnings are printed where they happen, as ``UserWarning: ...``;
* a block marked ``raises="RuntimeError"`` must raise it; the page then shows
  ``RuntimeError: <PyTorch's message>``, without build paths or tool frames;
* a block that runs too long is stopped;
* output that would differ between machines (memory addresses, local paths)
  is refused instead of being published.
"""

from __future__ import annotations

import builtins
import linecache
import re
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from coursekit.errors import CourseError

_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")


class BlockError(CourseError):
    """A block did not behave as its page says (the caller adds file and line)."""


class BlockTimeout(BlockError):
    """The block ran longer than its time limit."""


class ExpectedErrorMissing(BlockError):
    """A ``raises=`` block ran without raising."""


class RefusedOutput(BlockError):
    """The output would differ between machines (a memory address, a local path)."""


def _local_paths() -> list[str]:
    """Paths that must never leak into a page (they differ on every machine)."""
    paths = {str(Path.cwd()), sys.prefix, sys.base_prefix, str(Path.home())}
    return sorted((p for p in paths if len(p) > 1), key=len, reverse=True)


def _make_print(write: Callable[[str], Any]) -> Callable[..., None]:
    def course_print(
        *values: object,
        sep: str | None = " ",
        end: str | None = "\n",
        file: Any = None,
        flush: bool = False,
    ) -> None:
        if file is not None and file not in (sys.stdout, sys.stderr):
            builtins.print(*values, sep=sep, end=end, file=file, flush=flush)
            return
        write((" " if sep is None else sep).join(map(str, values)) + ("\n" if end is None else end))

    return course_print


@contextmanager
def time_limit(seconds: float, error: Exception) -> Iterator[None]:
    """Raise ``error`` in the running code once ``seconds`` have passed (0: no limit)."""
    # Signals only work in the main thread; `mkdocs serve` rebuilds in a worker
    # thread, where a runaway block is left to the author's Ctrl-C.
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return

    def _stop(signum: int, frame: object) -> None:
        raise error

    previous = signal.signal(signal.SIGALRM, _stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# PyTorch's C++ warnings end with the file of PyTorch's own build machine, e.g.
# "(Triggered internally at /__w/pytorch/.../TensorBody.h:493.)": noise to a learner, and
# a path that changes with every PyTorch build.
_SOURCE_LOCATION = re.compile(r"\s*\(Triggered internally at [^)]*\)")


def _without_source_location(message: str) -> str:
    return _SOURCE_LOCATION.sub("", message)


def _exception_matches(error: BaseException, expected: str) -> bool:
    return any(cls.__name__ == expected for cls in type(error).__mro__)


def run_block(
    code: str,
    namespace: dict[str, Any],
    write: Callable[[str], Any],
    *,
    filename: str,
    first_line: int = 1,
    raises: str = "",
    timeout: float = 0,
) -> None:
    """Execute ``code`` in ``namespace``; everything the learner would see goes to ``write``.

    The code is compiled under ``filename`` (the Markdown page), shifted so that its
    first line is ``first_line``: tracebacks then point into the page. ``timeout``
    seconds stop it (0: no limit). Raises the block's own exception, ``SyntaxError``,
    or a :class:`BlockError`.
    """
    chunks: list[str] = []
    namespace["print"] = _make_print(chunks.append)
    source = "\n" * (first_line - 1) + code
    # Tracebacks then quote the block's own lines (includes expanded), whatever the cwd.
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    compiled = compile(source, filename, "exec", dont_inherit=True)

    def _show_warning(
        message: Warning | str, category: type[Warning], *args: object, **kwargs: object
    ) -> None:
        chunks.append(f"{category.__name__}: {_without_source_location(str(message))}\n")

    try:
        with (
            warnings.catch_warnings(),
            time_limit(
                timeout, BlockTimeout(f"the block ran for more than {timeout:g} s and was stopped")
            ),
        ):
            warnings.simplefilter("always")
            warnings.showwarning = _show_warning
            try:
                exec(compiled, namespace)
            except Exception as error:
                if not raises or not _exception_matches(error, raises):
                    raise
                chunks.append(f"{type(error).__name__}: {error}\n")
            else:
                if raises:
                    raise ExpectedErrorMissing(
                        f"the page says this block raises {raises}, but it ran "
                        "without an error. PyTorch's behaviour changed: update the page."
                    )
    finally:
        output = "".join(chunks)
        write(output)
    _check_deterministic(output)


def _check_deterministic(output: str) -> None:
    address = _ADDRESS.search(output)
    if address:
        raise RefusedOutput(
            f"the output contains the memory address {address[0]}, which changes "
            "on every run; print a name (e.g. type(t.grad_fn).__name__) instead"
        )
    for path in _local_paths():
        if path in output:
            raise RefusedOutput(f"the output contains the local path {path!r}")
