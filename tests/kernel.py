"""One Jupyter kernel for many notebooks, each run as if the kernel were new.

Starting a kernel and importing torch in it costs seconds; the notebook tests run dozens
of notebooks. :class:`SharedKernel` starts one kernel and, before each notebook, gives it
back what a fresh kernel has: an empty namespace (``%reset -f``), the kernel's own warning
filters and display function, and torch's global switches as a new process has them.
tests/test_notebooks.py checks once that a notebook prints exactly the same in it as in
a kernel of its own.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from typing import Any

import nbformat
from jupyter_client.manager import KernelManager

# Run once at start: what a notebook may change and the next one must not inherit.
_REMEMBER = """\
import builtins, warnings
builtins._coursekit_fresh = (warnings.showwarning, list(warnings.filters))
del builtins, warnings
"""
_RESET = """\
%reset -f
import builtins as _b, sys as _s, warnings as _w
_w.showwarning, _w.filters[:] = _b._coursekit_fresh[0], list(_b._coursekit_fresh[1])
if "torch" in _s.modules:
    _t = _s.modules["torch"]
    _t.set_grad_enabled(True)
    _t.set_default_dtype(_t.float32)
    _t.autograd.set_detect_anomaly(False)
    del _t
del _b, _s, _w
"""


class CellFailed(AssertionError):
    pass


@dataclass
class SharedKernel:
    manager: KernelManager = field(init=False)
    folder: tempfile.TemporaryDirectory[str] = field(init=False)

    def __post_init__(self) -> None:
        self.folder = tempfile.TemporaryDirectory()  # an empty folder, as on Colab
        self.manager = KernelManager(kernel_name="python3")
        self.manager.start_kernel(cwd=self.folder.name, stderr=subprocess.DEVNULL)
        self.client = self.manager.client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=120)
        self._execute(_REMEMBER)

    def _execute(self, code: str, *, allow_errors: bool = False) -> list[dict[str, Any]]:
        outputs: list[dict[str, Any]] = []

        def hook(message: dict[str, Any]) -> None:
            kind, content = message["msg_type"], message["content"]
            if kind == "stream":
                outputs.append(
                    {"output_type": "stream", "name": content["name"], "text": content["text"]}
                )
            elif kind == "execute_result":
                outputs.append({"output_type": "execute_result", "data": content["data"]})
            elif kind == "error":
                outputs.append({"output_type": "error", "text": "\n".join(content["traceback"])})

        # Stored in the history, as a notebook's cells are: IPython reads a trailing ";"
        # (which hides a value) from the last stored input.
        reply = self.client.execute_interactive(
            code, output_hook=hook, timeout=300, store_history=True
        )
        if reply["content"]["status"] != "ok" and not allow_errors:
            error = "".join(o.get("text", "") for o in outputs if o["output_type"] == "error")
            raise CellFailed(
                f"{reply['content'].get('ename')}: {reply['content'].get('evalue')}\n{error}"
            )
        return outputs

    def run(
        self, notebook: nbformat.NotebookNode, *, allow_errors: bool = False
    ) -> nbformat.NotebookNode:
        """Run every code cell of a copy of ``notebook``, top to bottom, in a clean kernel;
        with ``allow_errors`` a cell's error is its output and the next cell runs."""
        notebook = nbformat.from_dict(notebook)
        self._execute(_RESET)
        for cell in notebook.cells:
            if cell.cell_type == "code":
                ran = self._execute(cell.source, allow_errors=allow_errors)
                cell.outputs = [nbformat.from_dict(o) for o in ran]
        return notebook

    def close(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)
        self.folder.cleanup()


def printed(cell: nbformat.NotebookNode, stream: str | None = None) -> str:
    """What a cell printed (on one stream, or on both)."""
    return "".join(
        o.get("text", "")
        for o in cell.outputs
        if o.get("output_type") == "stream" and stream in (None, o.get("name"))
    )


# Where a warning was raised: a file of the kernel's own ("/tmp/ipykernel_1/2.py:15") or
# of the in-process run ("<notebook: code cell 1>:15"); only the line is the notebook's.
_WARNING_AT = re.compile(r"^\S.*?:(\d+): (\w+Warning): ", re.M)


def shown(cell: nbformat.NotebookNode) -> tuple[str, str, str]:
    """A cell's output as a reader sees it: stdout, stderr (warnings by line), and the
    value of its last line."""
    value = "".join(
        o.get("data", {}).get("text/plain", "")
        for o in cell.outputs
        if o.get("output_type") == "execute_result"
    )
    stderr = _WARNING_AT.sub(r"line \1: \2: ", printed(cell, "stderr"))
    return printed(cell, "stdout"), stderr, value
