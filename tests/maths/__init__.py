"""Property tests: the pages' own code agrees with the formulas the pages derive by hand.

Each test runs code the page runs. :func:`run_region` takes one or more named regions of
a page's snippet (``# --8<-- [start:name]`` ... ``# --8<-- [end:name]``, the text the
page includes), executes them in a fresh namespace with their output captured, and
returns that namespace: the test takes the page's functions and tensors from it, or
feeds the region its own inputs, and checks the results against the hand derivation,
which the test writes itself (a comment names the formula). So a wrong formula on a
page fails a test here.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from types import CodeType
from typing import Any

from coursekit.markdown.regions import read_region

SNIPPETS = Path(__file__).resolve().parents[2] / "snippets"


class Session(dict[str, Any]):
    """The namespace the regions ran in (names to values), and what they printed."""

    output: str = ""


def snippet_path(snippet: str) -> Path:
    """``snippets/<snippet>.py``, e.g. ``"chapters/chain_rule"``; it must exist."""
    path = SNIPPETS / f"{snippet}.py"
    if not path.is_file():
        raise FileNotFoundError(f"no snippet {path}")
    return path


@cache
def region_code(snippet: str, name: str) -> CodeType:
    """Region ``name`` of ``snippets/<snippet>.py``, compiled as the page includes it.

    The region is read by the engine's one reader (coursekit/markdown/regions.py, with
    pymdownx's rules: dedented, so regions inside ``if __name__ == "__main__":`` run at
    the top level as on the page, and the markers of regions nested in it left out). It
    keeps the file's name and line numbers, so a traceback points at the snippet's own
    line.
    """
    path = snippet_path(snippet)
    return compile(read_region(path, name).source(), str(path), "exec")


def run_region(
    snippet: str, *names: str, inputs: Mapping[str, Any] | None = None, quiet: bool = False
) -> Session:
    """Run regions ``names`` of ``snippets/<snippet>.py``, in order, in one new namespace.

    The namespace starts with ``inputs`` (copied, never changed): the names the regions
    read and do not define themselves, as the page's earlier blocks would have left
    them. Pass a :class:`Session` to carry on from an earlier run, or your own values
    to run the page's code on inputs of your choice. List the regions a region depends
    on before it, as the page shows them. What the regions print is captured in
    ``output``. Functions defined by a region look their global names up in the
    returned session, so a test can change those names before calling them. ``quiet``
    ignores the warnings the regions raise, for pages that hide them from the reader.
    """
    session = Session(inputs or {})
    session.setdefault("__name__", f"snippet:{snippet}")
    session.output = ""
    buffer = io.StringIO()
    try:
        with contextlib.redirect_stdout(buffer), contextlib.ExitStack() as hide:
            if quiet:
                hide.enter_context(warnings.catch_warnings())
                warnings.simplefilter("ignore")
            for name in names:
                exec(region_code(snippet, name), session)
    finally:
        session.output = buffer.getvalue()
    return session
