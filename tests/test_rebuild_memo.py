"""Rebuilds under `mkdocs serve` (coursekit/mkdocs_adapter/serve_memo.py) write the full
build's site.

One process rebuilds the fixture site tests/fixtures/sites/rebuild as `mkdocs serve`
does (config loaded again, the same process, the memo warm) after each edit; after
each, a fresh `mkdocs build` of the same sources must write the same site, byte for
byte, and the memo must have re-rendered only what the edit can change.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import FIXTURE_SITES, Built, build

FIXTURE = FIXTURE_SITES / "rebuild"
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
# Written with the build's date (and, gzipped, its time): not about the pages.
DATED = {"sitemap.xml", "sitemap.xml.gz"}

# Each step: edits (file, old, new), then one rebuild; its site is kept as site-<name>
# and its sources as src-<name>, for a full build to compare with.
STEPS: list[tuple[str, list[tuple[str, str, str]]]] = [
    ("first", []),
    (
        "prose",  # a heading and a sentence of one page
        [
            ("docs/code.md", "## After the block", "## After the edit"),
            ("docs/code.md", "Some closing prose.", "Some edited prose."),
        ],
    ),
    ("code", [("snippets/example.py", "6 * 7", "6 * 8")]),  # a region a block includes
    ("note", [("snippets/note.md", "A note", "An edited note")]),  # a prose include
    ("anchor", [("docs/code.md", "## The block", "## The cell")]),  # breaks index.md's link
]

DRIVER = """
import json, logging, shutil, sys
from pathlib import Path
from mkdocs.commands.build import build
from mkdocs.config import load_config

summaries = []
class Summary(logging.Handler):
    def emit(self, record):
        if record.getMessage().startswith("coursekit:"):
            summaries.append(record.getMessage())
logging.getLogger("mkdocs.plugins.coursekit").setLevel(logging.INFO)
logging.getLogger("mkdocs.plugins.coursekit").addHandler(Summary())

steps = json.loads(sys.argv[1])
started = False
report = {}
for name, edits in steps:
    for path, old, new in edits:
        text = Path(path).read_text(encoding="utf-8")
        assert old in text, (path, old)
        Path(path).write_text(text.replace(old, new), encoding="utf-8")
    shutil.copytree(".", f"../src-{name}", ignore=shutil.ignore_patterns("site"))
    config = load_config("mkdocs.yml", site_dir="site")
    if not started:
        config.plugins.on_startup(command="serve", dirty=False)
        started = True
    summaries.clear()
    try:
        build(config)
        ok = True
    except BaseException:  # strict mode aborts with SystemExit-like Abort
        ok = False
    memo = config.plugins["coursekit"].memo  # the same plugin object every rebuild
    report[name] = {"ok": ok, "memo": dict(memo.stats), "summary": summaries[-1:]}
    if ok:
        shutil.copytree("site", f"../site-{name}")
print(json.dumps(report))
"""


def _site_files(site: Path) -> dict[str, bytes]:
    return {
        p.relative_to(site).as_posix(): p.read_bytes()
        for p in sorted(site.rglob("*"))
        if p.is_file() and p.name not in DATED
    }


@pytest.fixture(scope="module")
def rebuilt(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    work = tmp_path_factory.mktemp("rebuild")
    site = work / "serve"
    shutil.copytree(FIXTURE, site, ignore=shutil.ignore_patterns(".cache", "site"))
    result = subprocess.run(
        [sys.executable, "-c", DRIVER, json.dumps(STEPS)],
        cwd=site,
        env=ENV,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return work, json.loads(result.stdout.strip().splitlines()[-1])


def _full_build(work: Path, name: str) -> Built:
    source = work / f"src-{name}"
    return build(source / "mkdocs.yml", source / "full")


@pytest.mark.parametrize("name", ["first", "prose", "code", "note"])
def test_a_rebuild_writes_the_full_build_site(rebuilt: tuple[Path, dict], name: str) -> None:
    work, report = rebuilt
    assert report[name]["ok"], report
    full = _full_build(work, name)
    assert full.returncode == 0, full.log[-3000:]
    expected = _site_files(work / f"src-{name}" / "full")
    actual = _site_files(work / f"site-{name}")
    assert sorted(actual) == sorted(expected)
    differ = [path for path in expected if actual[path] != expected[path]]
    assert not differ, f"{name}: these files differ from a full build: {differ}"


def _search(work: Path, name: str) -> list[dict]:
    data = json.loads((work / f"site-{name}" / "search" / "search_index.json").read_text())
    return list(data["docs"])


def test_a_prose_edit_renders_only_its_page(rebuilt: tuple[Path, dict]) -> None:
    work, report = rebuilt
    assert report["prose"]["memo"] == {"rendered": 1, "reused": 2}, report["prose"]
    assert "0 pages run" in report["prose"]["summary"][0], "no block ran again"
    page = (work / "site-prose" / "code" / "index.html").read_text()
    assert 'href="#after-the-edit"' in page, "the page's TOC shows the new heading"
    assert "Some edited prose." in page
    entries = _search(work, "prose")
    assert {e["location"].split("#")[0] for e in entries} == {"", "code/", "other/"}
    titles = {e["title"] for e in entries}
    assert "After the edit" in titles
    assert "After the block" not in titles


def test_a_code_edit_runs_and_renders_only_its_page(rebuilt: tuple[Path, dict]) -> None:
    work, report = rebuilt
    assert "1 pages run" in report["code"]["summary"][0], report["code"]
    # Includes are expanded into the page's Markdown: only the page that includes the
    # edited snippet changed.
    assert report["code"]["memo"] == {"rendered": 1, "reused": 2}, report["code"]
    assert "value: 48" in (work / "site-code" / "code" / "index.html").read_text()


def test_a_prose_include_edit_renders_only_the_page_that_includes_it(
    rebuilt: tuple[Path, dict],
) -> None:
    work, report = rebuilt
    assert report["note"]["memo"] == {"rendered": 1, "reused": 2}, report["note"]
    assert "An edited note" in (work / "site-note" / "other" / "index.html").read_text()


def test_a_link_broken_by_an_edit_still_fails_the_rebuild(rebuilt: tuple[Path, dict]) -> None:
    # index.md is unchanged (its render comes from the memo), but its link to
    # code.md#the-block now points nowhere: MkDocs must still say so, as a full build does.
    work, report = rebuilt
    assert not report["anchor"]["ok"], report["anchor"]
    full = _full_build(work, "anchor")
    assert full.returncode != 0
    assert "the-block" in full.log
