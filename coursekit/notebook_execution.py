"""Execute the exercise notebooks in the build's own process, one cell after another.

A Jupyter kernel per notebook imported torch again every time, and the seven kernels
were most of a cold build. The build already has torch loaded, so here each notebook's
code cells run in a fresh namespace of the build process, in order, with what they
print captured into the notebook's outputs as a kernel would record them (``stream``
outputs, and ``execute_result`` for a final expression). An error fails the build,
naming the notebook and the cell. mkdocs-jupyter then renders the executed copy (its
own ``execute`` is off); the download stays the clean notebook.

The notebooks still run in a real Jupyter kernel in the tests (tests/test_notebooks.py:
untouched, solved and wrongly solved), which also check that a kernel prints exactly
what this in-process run printed.

Executed copies are written to .cache/notebooks/, keyed by the notebook's content and
the PyTorch version (written whole or not at all); an existing copy is reused.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import io
import os
import warnings
from importlib.metadata import version
from pathlib import Path
from typing import Any

import nbformat
from mkdocs.exceptions import PluginError

from coursekit.execution import time_limit

CACHE = Path(".cache") / "notebooks"
TIMEOUT = 300  # seconds per cell, as the kernel had

_pending: dict[str, tuple[Path, Path, str]] = {}  # source path -> (source, copy, name)
_sources: dict[str, str] = {}  # page src_uri -> the clean notebook, for the download


class CellError(Exception):
    """A notebook cell raised; the message names the notebook and the cell."""


def _run_cell(source: str, namespace: dict[str, Any], filename: str) -> tuple[str, str, Any]:
    """Run one cell: (stdout, stderr, value of a final expression or None)."""
    tree = ast.parse(source, filename)
    # A final bare expression is the cell's value, as Jupyter shows it.
    last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    if last is not None:
        tree.body.pop()
    out, err = io.StringIO(), io.StringIO()
    value = None
    with (
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        warnings.catch_warnings(),  # a notebook's warning filters stay in the notebook
    ):
        exec(compile(tree, filename, "exec"), namespace)
        if last is not None:
            expression = ast.Expression(last.value)
            value = eval(compile(expression, filename, "eval"), namespace)
    return out.getvalue(), err.getvalue(), value


def execute(notebook: nbformat.NotebookNode, name: str) -> nbformat.NotebookNode:
    """Run every code cell of ``notebook`` in order, in place; raise CellError on failure."""
    namespace: dict[str, Any] = {"__name__": "__main__"}
    count = 0
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        count += 1
        where = f"{name}: code cell {count}"
        try:
            with time_limit(TIMEOUT, TimeoutError(f"{where} ran for more than {TIMEOUT:g} s")):
                stdout, stderr, value = _run_cell(cell.source, namespace, f"<{where}>")
        except Exception as error:
            raise CellError(f"{where} failed: {type(error).__name__}: {error}") from error
        outputs = [
            nbformat.v4.new_output("stream", name=stream, text=text)
            for stream, text in (("stdout", stdout), ("stderr", stderr))
            if text
        ]
        if value is not None:
            outputs.append(
                nbformat.v4.new_output(
                    "execute_result", data={"text/plain": repr(value)}, execution_count=count
                )
            )
        cell.outputs = outputs
        cell.execution_count = count
    return notebook


def _execute_file(source: Path, target: Path, name: str) -> Path:
    notebook = nbformat.read(source, as_version=4)
    try:
        execute(notebook, name)
    except CellError as error:
        raise PluginError(f"{error}\nThe notebook's page was not built.") from None
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    nbformat.write(notebook, partial)
    partial.replace(target)  # never leave a half-written copy in the cache
    return target


def start(files: Any, config: Any) -> None:
    """Note every notebook page of the build (called from the hooks' ``on_files``)."""
    _pending.clear()
    root = Path(config["config_file_path"]).parent
    torch_version = version("torch")
    for file in files:
        if not file.src_uri.endswith(".ipynb") or not file.is_documentation_page():
            continue
        source = Path(file.abs_src_path)
        key = hashlib.sha256(source.read_bytes() + torch_version.encode()).hexdigest()[:20]
        # The copy keeps the page's relative path: mkdocs-jupyter matches its `include`
        # patterns and names the download after it.
        target = root / CACHE / key / file.src_uri
        _pending[file.abs_src_path] = (source, target, os.path.relpath(source, root))


def use_executed_copy(page: Any) -> None:
    """Before mkdocs-jupyter renders a notebook page: execute it, render the executed copy."""
    job = _pending.pop(page.file.abs_src_path, None)
    if job is None:
        return
    target = job[1]
    _sources[page.file.src_uri] = page.file.abs_src_path
    page.file.abs_src_path = str(target if target.exists() else _execute_file(*job))


def restore_source(page: Any) -> None:
    """After the page is written: the download copied next to it is the clean notebook."""
    source = _sources.pop(page.file.src_uri, None)
    if source is not None:
        page.file.abs_src_path = source
