"""Version notes: the site shows what an older PyTorch printed, and only a real change.

The older outputs come from a real run of that release (``make older``), and the weekly
workflow checks them against one (``make older-check``). Here: the notes of the site are
complete, a note that shows no difference is refused, and a chapter notebook run on an
older release warns its reader.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from pathlib import Path

import pytest
import torch
from support import project

from coursekit.execution.older import Note, OlderOutputs, notes
from coursekit.execution.record import Record
from coursekit.markdown.blocks import Block
from coursekit.notebooks.chapters import setup_cell

PROJECT = project()  # one load per process: tests/support.py
NOTES = notes(PROJECT.options.version_notes)
CLAMP = NOTES["clamp-bounds"]


def _older() -> OlderOutputs:
    return OlderOutputs(PROJECT.root / PROJECT.options.older_records, NOTES)


def _noted_blocks() -> list[Block]:
    pages = sorted((PROJECT.root / "docs").rglob("*.md"))
    return [b for page in pages for b in PROJECT.read(page).blocks if b.changed]


def test_every_noted_block_has_its_older_output_and_it_differs() -> None:
    """What the build refuses, checked against today's record (no run needed)."""
    blocks = _noted_blocks()
    assert blocks, "no block is marked changed="
    record = Record.load(PROJECT.record)
    older = _older()
    for block in blocks:
        output = record.expected(block.page, block.key)
        assert output is not None, block.where
        assert older.problem(block, output, record.torch) is None, block.where


def test_a_note_that_shows_no_difference_is_refused() -> None:
    block = _noted_blocks()[0]
    same = _older().output(block)
    assert same is not None
    problem = _older().problem(block, same, "2.15.0")
    assert problem is not None and "prints the same" in problem and block.where in problem


def test_a_block_without_an_older_output_is_refused(tmp_path: Path) -> None:
    block = _noted_blocks()[0]
    empty = OlderOutputs(tmp_path, NOTES)  # no record of the older release at all
    problem = empty.problem(block, "anything\n", "2.15.0")
    assert problem is not None and "make older OLD_TORCH=2.13.0" in problem


def test_an_unknown_note_names_file_and_line() -> None:
    block = Block(page="docs/x.md", line=7, number=1, key="k", code="", changed="nope")
    with pytest.raises(ValueError, match=r"docs/x.md:7: changed='nope' names no version note"):
        _older().note(block)


def _run_setup(version: str, changes: list[Note]) -> str:
    """Run the first cell as a reader would, with torch claiming ``version``."""
    out = io.StringIO()
    real = torch.__version__
    torch.__version__ = version  # type: ignore[assignment]
    try:  # the cell changes the warning filters and display: put them back after
        with warnings.catch_warnings(), contextlib.redirect_stdout(out):
            exec(setup_cell("2.15.0", changes), {})
    finally:
        torch.__version__ = real  # type: ignore[assignment]
    return out.getvalue()


def test_a_chapter_notebook_on_an_older_release_warns_its_reader() -> None:
    printed = _run_setup("2.13.0+cu121", [CLAMP])
    assert "This notebook runs PyTorch 2.13.0+cu121" in printed
    assert "on PyTorch before 2.14.0, some outputs of this chapter differ" in printed
    assert CLAMP.reference in printed


def test_on_the_pinned_release_or_later_it_does_not() -> None:
    for version in ("2.15.0", "2.14.0", "2.16.1+cpu"):
        assert "Warning" not in _run_setup(version, [CLAMP])
