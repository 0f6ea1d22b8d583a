"""The record of outputs: exactly the blocks that exist, keyed so edits do not renumber
them, and never damaged by a record run that meets a failure."""

from __future__ import annotations

import sys
from pathlib import Path

from support import ROOT, fixture_site, project, run

from coursekit.execution.record import Record, diff, recorded_view, text_view, word_diff
from coursekit.markdown.blocks import Block, keys
from coursekit.markdown.fences import executed, scan

PROJECT = project()  # one load per process: tests/support.py
RECORD = Record.load(PROJECT.record)


def block_keys(page: str) -> list[str]:
    return keys(executed(scan(page, "docs/p.md")))


def _executed_blocks() -> dict[str, list[str]]:
    found = {}
    for page in sorted((ROOT / "docs").rglob("*.md")):
        blocks = PROJECT.read(page).blocks
        if blocks:
            found[page.relative_to(ROOT).as_posix()] = [b.key for b in blocks]
    return found


def test_every_recorded_page_still_exists_with_the_same_blocks() -> None:
    blocks = _executed_blocks()
    stale = {
        page: sorted(set(recorded) - set(blocks.get(page, [])))
        for page, recorded in RECORD.pages.items()
    }
    stale = {page: keys for page, keys in stale.items() if keys}
    assert not stale, f"recorded blocks that no longer exist (run `make record`): {stale}"


def test_every_executed_block_has_a_recorded_output() -> None:
    missing = [
        f"{page} block {key!r}"
        for page, keys in _executed_blocks().items()
        for key in keys
        if RECORD.expected(page, key) is None
    ]
    assert not missing, f"blocks without a recorded output (run `make record`): {missing}"


# Warnings PyTorch raises once per process, from its own code: a block would print them
# only when its page happened to be the first to trigger them in the build's process.
ONCE_PER_PROCESS = ("`torch.jit.script` is deprecated",)


def test_no_output_depends_on_which_page_ran_first() -> None:
    found = [
        f"{page} block {key!r}"
        for page, blocks in RECORD.pages.items()
        for key, output in blocks.items()
        if any(warning in output for warning in ONCE_PER_PROCESS)
    ]
    assert not found, (
        f"outputs that hold a warning PyTorch gives once per process (hide it by its "
        f"message, as docs/deeper/forward-and-reverse-mode.md does): {found}"
    )


def test_the_record_names_the_pytorch_that_produced_it() -> None:
    assert RECORD.torch, "the record must say which PyTorch version produced it"


def test_keys_are_the_id_then_the_include_region_then_the_position() -> None:
    page = (
        '```python exec="on"\n--8<-- "chapters/a.py:one"\n```\n'
        '```python exec="on"\nprint(1)\n```\n'
        '```python exec="on" id="named"\n--8<-- "chapters/a.py:two"\n```\n'
        '```python exec="on"\n--8<-- "chapters/a.py:one"\n```\n'
        '```python exec="on"\n--8<-- "chapters/a.py:two"\nprint(2)\n```\n'
    )
    found = block_keys(page)
    assert found == ["chapters/a.py:one", "block-2", "named", "chapters/a.py:one#2", "block-5"]
    # Inserting a block at the top renumbers only the position-keyed ones.
    inserted = block_keys('```python exec="on"\nx = 0\n```\n' + page)
    assert inserted[1:] == [
        "chapters/a.py:one",
        "block-3",
        "named",
        "chapters/a.py:one#2",
        "block-6",
    ]


def test_a_figure_is_recorded_by_its_text() -> None:
    figure = (
        '<figure class="d2-figure"><svg role="img" aria-label="x"><style>.a{}</style>'
        "<text>drawn</text></svg><script>alert(1)</script>"
        "<details><summary>Text version</summary><ol><li>Step 1:  x &amp; y</li>"
        "<li>Step 2</li></ol><table><tr><th>x</th><th>y</th></tr><tr><td>1</td><td>2</td>"
        "</tr></table></details><figcaption>A caption</figcaption></figure>"
    )
    assert text_view(figure) == "Text version\nStep 1: x & y\nStep 2\nx y\n1 2\nA caption\n"


def test_a_timing_block_is_recorded_without_its_numbers() -> None:
    block = Block(page="docs/p.md", line=1, number=1, key="k", code="", timing=True)
    output = "median of 50 runs: no_grad 1.84 ms, tracked 2.31 ms (1.3x), 1e-05 s\n"
    assert (
        recorded_view(block, output) == "median of # runs: no_grad # ms, tracked # ms (#x), # s\n"
    )
    plain = Block(page="docs/p.md", line=1, number=1, key="k", code="")
    assert recorded_view(plain, output) == output


def test_a_long_line_that_changed_is_shown_word_by_word() -> None:
    old = "RuntimeError: " + "one of the variables needed for gradient computation " * 4 + "end"
    new = old.replace("needed for", "required by", 1)
    shown = diff(old, new, "2.13.0", "2.14.1")
    assert "--- recorded (PyTorch 2.13.0)" in shown and "+++ now (PyTorch 2.14.1)" in shown
    assert "[-needed for-]{+required by+}" in shown
    assert word_diff("a b c", "a x c") == "a [-b-]{+x+} c"
    assert word_diff("a b c", "a c") == "a [-b-] c"
    # Short lines are plain diff lines only.
    assert "word by word" not in diff("x = 1", "x = 2", "", "")


def test_a_record_run_that_meets_a_failure_leaves_the_record_untouched(tmp_path: Path) -> None:
    site = fixture_site("healthy", tmp_path)
    record = site / "record.yml"
    before = record.read_bytes()
    snippet = site / "snippets" / "example.py"
    snippet.write_text(
        snippet.read_text().replace('print("hello', 'raise RuntimeError("broken")\nprint("hello')
    )
    result = run(
        [
            *(sys.executable, "-m", "pytest", "-c", str(tmp_path / "pytest.ini")),
            *("--rootdir", str(site), "--record-outputs", str(site / "docs")),
        ],
        site,
    )
    assert result.returncode != 0, result.stdout
    # The snippet's own file and line, then the block that includes it.
    assert (
        "snippets/example.py:2 (included by docs/index.md:3): RuntimeError: broken" in result.stdout
    )
    assert record.read_bytes() == before, "a failing record run changed the record"
    assert "record.yml left untouched" in result.stdout
