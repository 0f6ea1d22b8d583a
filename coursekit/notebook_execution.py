"""Execute the notebook pages in parallel, while the rest of the site builds.

mkdocs-jupyter executes a notebook when it renders its page, one after the other,
each in a fresh kernel that imports torch again: most of a cold build was spent
waiting for them. Here every notebook starts executing (nbclient, the engine behind
nbconvert's ExecutePreprocessor, errors not allowed) as soon as MkDocs knows its
files, two kernels at a time, in processes of their own. When MkDocs reaches a
notebook page it waits for that notebook only, then mkdocs-jupyter renders the
executed copy (its own ``execute`` is off). The download stays the clean notebook.

Executed copies are kept in .cache/notebooks/, keyed by the notebook's content and
the PyTorch version, so `mkdocs serve` re-runs a notebook only when it changes.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from concurrent.futures import Future, ThreadPoolExecutor
from importlib.metadata import version
from pathlib import Path
from typing import Any

import nbformat
from mkdocs.exceptions import PluginError
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

CACHE = Path(".cache") / "notebooks"
WORKERS = int(os.environ.get("NOTEBOOK_WORKERS", "2"))
TIMEOUT = 300

_pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="notebook")
_jobs: dict[str, Future[Path]] = {}  # source path -> its executed copy
_sources: dict[str, str] = {}  # page src_uri -> the clean notebook, for the download


def _execute(source: Path, target: Path, name: str) -> Path:
    notebook = nbformat.read(source, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=TIMEOUT,
        kernel_name="python3",
        allow_errors=False,
        record_timing=False,  # no timestamps: two builds give the same page
        resources={"metadata": {"path": str(source.parent)}},
    )
    try:
        # The kernel's own log says only that a local kernel talks over TCP; cell errors
        # and crashes still reach the client through the protocol.
        client.execute(stderr=subprocess.DEVNULL)
    except CellExecutionError as error:
        raise PluginError(f"{name}: a cell failed while the site was built:\n{error}") from None
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    nbformat.write(notebook, partial)
    partial.replace(target)  # never leave a half-written copy in the cache
    return target


def start(files: Any, config: Any) -> None:
    """Start executing every notebook page (called from the hooks' ``on_files``)."""
    root = Path(config["config_file_path"]).parent
    torch_version = version("torch")
    for file in files:
        if not file.src_uri.endswith(".ipynb"):
            continue
        source = Path(file.abs_src_path)
        key = hashlib.sha256(source.read_bytes() + torch_version.encode()).hexdigest()[:20]
        # The copy keeps the page's relative path: mkdocs-jupyter matches its `include`
        # patterns and names the download after it.
        target = root / CACHE / key / file.src_uri
        if target.exists():
            done: Future[Path] = Future()
            done.set_result(target)
            _jobs[file.abs_src_path] = done
        else:
            name = os.path.relpath(source, root)  # e.g. docs/practice/notebooks/x.ipynb
            _jobs[file.abs_src_path] = _pool.submit(_execute, source, target, name)


def use_executed_copy(page: Any) -> None:
    """Before mkdocs-jupyter renders a notebook page: wait for it, render the executed copy."""
    job = _jobs.pop(page.file.abs_src_path, None)
    if job is None:
        return
    _sources[page.file.src_uri] = page.file.abs_src_path
    page.file.abs_src_path = str(job.result())


def restore_source(page: Any) -> None:
    """After the page is written: the download copied next to it is the clean notebook."""
    source = _sources.pop(page.file.src_uri, None)
    if source is not None:
        page.file.abs_src_path = source
