"""Execute the exercise notebooks in the build's own process, one cell after another.

A Jupyter kernel per notebook imported torch again every time, and the seven kernels
were most of a cold build. The build already has torch loaded, so here each notebook's
code cells run in a fresh namespace of the build process, in order, with what they
print captured into the notebook's outputs as a kernel would record them (``stream``
outputs, and ``execute_result`` for a final expression). An error fails the build,
naming the notebook and the cell. mkdocs-jupyter then renders the executed copy (its
own ``execute`` is off); the download stays the clean notebook.

A test runs one exercise notebook in a real Jupyter kernel and checks that the kernel
prints exactly what this in-process run printed (tests/test_notebooks.py); the tests
then use this run for the untouched, solved and wrongly solved variants.

:func:`executed_copy` keeps executed copies in a cache folder, keyed by the notebook's
content and the versions (written whole or not at all); an existing copy is reused.
"""

from __future__ import annotations

import ast
import contextlib
import io
import linecache
import sys
import warnings
from pathlib import Path
from typing import Any, Literal

import nbformat

from coursekit import files
from coursekit.errors import CourseError
from coursekit.execution.runner import time_limit

TIMEOUT = 300  # seconds per cell, as the kernel had


class CellError(CourseError):
    """A notebook cell raised; the message names the notebook and the cell."""


def _run_cell(
    source: str, namespace: dict[str, Any], filename: str
) -> tuple[str, str, Any, Exception | None]:
    """Run one cell: (stdout, stderr, value of a final expression or None, its error)."""
    # Tracebacks and warnings quote the cell's own lines, as a kernel's do.
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    tree = ast.parse(source, filename)
    # A final bare expression is the cell's value, as Jupyter shows it.
    last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    if last is not None:
        tree.body.pop()
    out, err = io.StringIO(), io.StringIO()
    value, error = None, None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            exec(compile(tree, filename, "exec"), namespace)
            if last is not None:
                expression = ast.Expression(last.value)
                value = eval(compile(expression, filename, "eval"), namespace)
        except Exception as raised:  # what it printed until then is kept, as a kernel does
            error = raised
    return out.getvalue(), err.getvalue(), value, error


# Python's default warning filters, as a Jupyter kernel runs with them; the last one listed
# is tried first: a DeprecationWarning of the notebook's own code is shown.
KERNEL_FILTERS: tuple[tuple[Literal["default", "ignore"], type[Warning], str], ...] = (
    ("ignore", ResourceWarning, ""),
    ("ignore", ImportWarning, ""),
    ("ignore", PendingDeprecationWarning, ""),
    ("ignore", DeprecationWarning, ""),
    ("default", DeprecationWarning, "__main__"),
)


def execute(
    notebook: nbformat.NotebookNode, name: str, *, allow_errors: bool = False
) -> nbformat.NotebookNode:
    """Run every code cell of ``notebook`` in order, in place. A cell that raises fails
    with CellError; with ``allow_errors``, its error is its output and the next cell runs
    (as when a learner runs the check after a cell that failed)."""
    namespace: dict[str, Any] = {"__name__": "__main__"}
    with warnings.catch_warnings():  # a notebook's warning settings stay in the notebook
        # A kernel's filters, whoever runs the build: pytest's would also show the
        # DeprecationWarnings raised inside libraries, once per process, so a page's output
        # would depend on what ran before it.
        warnings.resetwarnings()
        for action, category, module in KERNEL_FILTERS:
            warnings.filterwarnings(action, category=category, module=module)
        # As a kernel shows them: on the cell's stderr, whoever else is listening.
        warnings.showwarning = _show_on_stderr
        _execute_cells(notebook, namespace, name, allow_errors)
    return notebook


def _show_on_stderr(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def _execute_cells(
    notebook: nbformat.NotebookNode, namespace: dict[str, Any], name: str, allow_errors: bool
) -> None:
    count = 0
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        count += 1
        where = f"{name}: code cell {count}"
        with time_limit(TIMEOUT, TimeoutError(f"{where} ran for more than {TIMEOUT:g} s")):
            stdout, stderr, value, error = _run_cell(cell.source, namespace, f"<{where}>")
        if error is not None and not allow_errors:
            raise CellError(f"{where} failed: {type(error).__name__}: {error}") from error
        outputs = [
            nbformat.v4.new_output("stream", name=stream, text=text)
            for stream, text in (("stdout", stdout), ("stderr", stderr))
            if text
        ]
        if error is not None:
            outputs.append(
                nbformat.v4.new_output(
                    "error", ename=type(error).__name__, evalue=str(error), traceback=[]
                )
            )
        if value is not None:
            outputs.append(
                nbformat.v4.new_output(
                    "execute_result", data={"text/plain": repr(value)}, execution_count=count
                )
            )
        cell.outputs = outputs
        cell.execution_count = count


def cache_key(source: Path, fingerprint: tuple[tuple[str, str], ...]) -> str:
    """What an executed copy depends on: the notebook and the versions
    (:func:`coursekit.versions.fingerprint`, taken once per build: it runs d2)."""
    return files.digest(source.read_bytes(), fingerprint)[:20]


def executed_copy(source: Path, target: Path, name: str) -> Path:
    """``target``: ``source`` executed (reused when it exists). Raises CellError."""
    if target.exists():
        return target
    notebook = nbformat.read(source, as_version=4)
    execute(notebook, name)
    files.atomic_write(target, nbformat.writes(notebook))  # never half a copy
    return target
