"""The build's execution cache (coursekit/exec_cache.py) trusts only a complete,
current entry: stale, partial and unreadable entries are ignored and rebuilt."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from coursekit import exec_cache
from coursekit.blocks import Block
from coursekit.exec_cache import ExecCache, page_key
from coursekit.page_run import run_page

BLOCKS = [
    Block(page="docs/p.md", line=3, number=1, key="block-1", code="x = 6 * 7\nprint(x)"),
    Block(page="docs/p.md", line=8, number=2, key="block-2", code="print(x + 1)"),
]


@pytest.fixture
def cache(tmp_path: Path) -> ExecCache:
    return ExecCache(tmp_path / "exec")


def _entry(cache: ExecCache) -> Path:
    return cache.folder / "docs__p.md.json"


def test_a_stored_page_is_read_back(cache: ExecCache) -> None:
    outputs = [r.output for r in run_page(BLOCKS)]
    assert outputs == ["42\n", "43\n"]
    cache.store(BLOCKS, outputs)
    assert cache.load(BLOCKS) == outputs
    assert not list(cache.folder.glob("*.partial")), "the temporary file was renamed"


def test_prose_edits_keep_the_entry_code_edits_do_not(cache: ExecCache) -> None:
    cache.store(BLOCKS, ["42\n", "43\n"])
    # Prose added above the blocks moves them down: same code, same outputs.
    moved = [replace(b, line=b.line + 5) for b in BLOCKS]
    assert cache.load(moved) == ["42\n", "43\n"]
    edited = [BLOCKS[0], replace(BLOCKS[1], code="print(x + 2)")]
    assert cache.load(edited) is None
    assert cache.load([replace(BLOCKS[0], raises="ValueError"), BLOCKS[1]]) is None


def test_a_stale_entry_is_ignored(cache: ExecCache, monkeypatch: pytest.MonkeyPatch) -> None:
    cache.store(BLOCKS, ["42\n", "43\n"])
    # The runner (or PyTorch) changed: the same code may print something else.
    monkeypatch.setattr(exec_cache, "runner_digest", lambda: "another runner")
    assert cache.load(BLOCKS) is None


def test_an_entry_with_a_wrong_key_is_ignored(cache: ExecCache) -> None:
    cache.store(BLOCKS, ["42\n", "43\n"])
    data = json.loads(_entry(cache).read_text())
    data["key"] = "0" * 64
    _entry(cache).write_text(json.dumps(data))
    assert cache.load(BLOCKS) is None


@pytest.mark.parametrize(
    "content",
    [
        "",  # empty: the write never happened
        '{"format": 1, "key": "',  # cut short
        "[]",  # not an entry at all
    ],
    ids=["empty", "truncated", "not-an-object"],
)
def test_a_partial_entry_is_ignored(cache: ExecCache, content: str) -> None:
    cache.store(BLOCKS, ["42\n", "43\n"])
    _entry(cache).write_text(content)
    assert cache.load(BLOCKS) is None


def test_an_entry_with_too_few_outputs_is_ignored(cache: ExecCache) -> None:
    cache.store(BLOCKS, ["42\n", "43\n"])
    data = json.loads(_entry(cache).read_text())
    data["outputs"] = data["outputs"][:1]
    _entry(cache).write_text(json.dumps(data))
    assert cache.load(BLOCKS) is None


def test_an_unreadable_entry_is_ignored_and_rebuilt(cache: ExecCache) -> None:
    cache.store(BLOCKS, ["42\n", "43\n"])
    _entry(cache).write_bytes(b"\xff\xfe\x00 not utf-8")
    assert cache.load(BLOCKS) is None
    _entry(cache).unlink()
    _entry(cache).mkdir()  # not even a file
    assert cache.load(BLOCKS) is None
    _entry(cache).rmdir()
    cache.store(BLOCKS, ["42\n", "43\n"])
    assert cache.load(BLOCKS) == ["42\n", "43\n"]


def test_the_cache_can_be_switched_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COURSEKIT_EXEC_CACHE", "off")
    cache = ExecCache(tmp_path / "exec")
    cache.store(BLOCKS, ["42\n", "43\n"])
    assert cache.load(BLOCKS) is None
    assert not cache.folder.exists()


def test_the_key_covers_every_option_and_the_runner() -> None:
    base = page_key(BLOCKS)
    for change in [
        {"code": "print(0)"},
        {"raises": "ValueError"},
        {"timeout": 5.0},
        {"html": True},
        {"session": "other"},
        {"page": "docs/q.md"},
    ]:
        assert page_key([replace(BLOCKS[0], **change), BLOCKS[1]]) != base, change
    assert page_key([replace(BLOCKS[0], line=99, key="x"), BLOCKS[1]]) == base
