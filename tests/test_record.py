"""The record of outputs covers exactly the blocks that exist: nothing missing, nothing stale."""

from __future__ import annotations

from pathlib import Path

from coursekit.fences import executed_fences_in_file
from coursekit.record import Record

ROOT = Path(__file__).resolve().parent.parent
RECORD = Record.load(ROOT / "tests" / "recorded_outputs.yml")


def _executed_blocks() -> dict[str, int]:
    counts = {}
    for page in sorted((ROOT / "docs").rglob("*.md")):
        fences = executed_fences_in_file(page, ROOT)
        if fences:
            counts[page.relative_to(ROOT).as_posix()] = len(fences)
    return counts


def test_every_recorded_page_still_exists_with_the_same_blocks() -> None:
    blocks = _executed_blocks()
    stale = {
        page: sorted(set(recorded) - set(range(1, blocks.get(page, 0) + 1)))
        for page, recorded in RECORD.pages.items()
    }
    stale = {page: numbers for page, numbers in stale.items() if numbers}
    assert not stale, f"recorded blocks that no longer exist (run `make record`): {stale}"


def test_every_executed_block_has_a_recorded_output() -> None:
    missing = [
        f"{page} block {n}"
        for page, count in _executed_blocks().items()
        for n in range(1, count + 1)
        if RECORD.expected(page, n) is None
    ]
    assert not missing, f"blocks without a recorded output (run `make record`): {missing}"


def test_the_record_names_the_pytorch_that_produced_it() -> None:
    assert RECORD.torch, "the record must say which PyTorch version produced it"
