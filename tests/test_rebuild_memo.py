"""Rebuilds under `mkdocs serve` (coursekit/mkdocs_adapter/serve_memo.py) write the full
build's site.

One process rebuilds the fixture site tests/fixtures/sites/rebuild as `mkdocs serve`
does (tests/harness/serve_rebuilds.py: config loaded again, the same process, the
memo warm) after each edit; after
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
from support import FIXTURE_SITES, ROOT, Built, build

REBUILDS = ROOT / "tests" / "harness" / "serve_rebuilds.py"

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
    ("title", [("docs/other.md", "# Other page", "# Another page")]),  # every page's nav
    ("anchor", [("docs/code.md", "## The block", "## The cell")]),  # breaks index.md's link
]


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
    steps = work / "steps.json"
    steps.write_text(json.dumps(STEPS), encoding="utf-8")
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tests" / "harness" / "serve_rebuilds.py"),
            str(steps),
            "--keep",
            str(work),
        ],
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


@pytest.mark.parametrize("name", ["first", "prose", "code", "note", "title"])
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
    assert report["prose"]["memo"] == {"rendered": 1, "reused": 3, "templated": 1}, report["prose"]
    assert "0 pages run" in report["prose"]["summary"], "no block ran again"
    page = (work / "site-prose" / "code" / "index.html").read_text()
    assert 'href="#after-the-edit"' in page, "the page's TOC shows the new heading"
    assert "Some edited prose." in page
    entries = _search(work, "prose")
    assert {e["location"].split("#")[0] for e in entries} == {"", "code/", "other/", "notebook/"}
    titles = {e["title"] for e in entries}
    assert "After the edit" in titles
    assert "After the block" not in titles


def test_a_code_edit_runs_and_renders_only_its_page(rebuilt: tuple[Path, dict]) -> None:
    work, report = rebuilt
    assert "1 page run" in report["code"]["summary"], report["code"]
    # Includes are expanded into the page's Markdown: only the page that includes the
    # edited snippet changed.
    assert report["code"]["memo"] == {"rendered": 1, "reused": 3, "templated": 1}, report["code"]
    assert "value: 48" in (work / "site-code" / "code" / "index.html").read_text()


def test_a_prose_include_edit_renders_only_the_page_that_includes_it(
    rebuilt: tuple[Path, dict],
) -> None:
    work, report = rebuilt
    assert report["note"]["memo"] == {"rendered": 1, "reused": 3, "templated": 1}, report["note"]
    assert "An edited note" in (work / "site-note" / "other" / "index.html").read_text()


def test_a_title_edit_writes_every_page_again(rebuilt: tuple[Path, dict]) -> None:
    # The navigation, in every page, shows each page's title: all three pages change.
    work, report = rebuilt
    assert report["title"]["memo"] == {"rendered": 1, "reused": 3, "templated": 4}, report
    for page in ("index.html", "code/index.html", "other/index.html"):
        assert "Another page" in (work / "site-title" / page).read_text()


def test_a_link_broken_by_an_edit_still_fails_the_rebuild(rebuilt: tuple[Path, dict]) -> None:
    # index.md is unchanged (its render comes from the memo), but its link to
    # code.md#the-block now points nowhere: MkDocs must still say so, as a full build does.
    work, report = rebuilt
    assert not report["anchor"]["ok"], report["anchor"]
    full = _full_build(work, "anchor")
    assert full.returncode != 0
    assert "the-block" in full.log
