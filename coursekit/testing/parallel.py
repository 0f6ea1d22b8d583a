"""Run the test suite on every core (pytest-xdist) without doing any work twice.

Loaded from pyproject.toml (``-p coursekit.testing.parallel -n auto --dist loadgroup``).

* ``-n auto`` means one worker per core for a run of the suite, and no workers at all
  when only Markdown pages are drift-checked (a page's blocks share one session) or
  when ``--record-outputs`` rewrites the record (one file, written once).
* Tests that share per-process work must run on the same worker: every test of one
  page of the site (one browser visit of it, ``page_path``), every block of one
  drift-checked page (later blocks replay earlier ones), and every test of a module that
  uses a module-scoped fixture (the HTML validator's run over the site, a notebook
  kernel, a rebuilt fixture site: made once per worker that runs such a test). Each gets
  an ``xdist_group`` mark, and ``--dist loadgroup`` sends a group to one worker; every
  other test is spread one by one, as ``--dist load`` would.
* Tests that need the built site run last, so its build (started in the background by
  tests/conftest.py as soon as the tests are collected) overlaps the other tests; so do
  the Markdown pages' drift-check items, which take the build's outputs when it ran
  (tests/conftest.py, ``pytest_coursekit_fresh_outputs``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Fixtures that wait for the site build (tests/conftest.py, tests/browser/conftest.py).
SITE_FIXTURES = frozenset({"built_site", "built_site_with_repo_url", "site_dir", "site_url"})


def pytest_configure(config: pytest.Config) -> None:
    # Known even when xdist is off (`-p no:xdist`), so the mark never warns.
    config.addinivalue_line("markers", "xdist_group(name): run these tests on one worker")


@pytest.hookimpl(optionalhook=True)  # a hook of xdist's: unknown under `-p no:xdist`
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    # Both write one file from what every block printed: one process sees every block.
    if config.getoption("--record-outputs", default=False):
        return 0
    if config.getoption("--drift-report", default=None):
        return 0
    args = [arg for arg in config.args if not arg.startswith("-")]
    if args and all(arg.split("::")[0].endswith(".md") for arg in args):
        return 0
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist's own hook reads it
    return os.cpu_count() or 1


def _group(item: pytest.Item) -> str | None:
    # Named by the file relative to the root, as in node ids: the same on every machine
    # (tests/shard_weights.json is keyed by these names, coursekit/testing/shards.py).
    callspec = getattr(item, "callspec", None)
    if callspec is not None and "page_path" in callspec.params:
        return f"page:{callspec.params['page_path']}"
    where = item.nodeid.split("::", 1)[0]
    if _is_page(item):
        return f"md:{where}"
    if _uses_module_fixture(item):
        return f"module:{where}"
    return None


def _uses_module_fixture(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)  # pytest's own record of what a test uses
    definitions = info.name2fixturedefs.values() if info is not None else ()
    return any(d.scope in ("module", "package") for defs in definitions for d in defs)


def needs_site(item: pytest.Item) -> bool:
    return bool(SITE_FIXTURES & set(getattr(item, "fixturenames", ())))


def runs_late(item: pytest.Item) -> bool:
    """A test that waits for the site build: it needs the site, or drift-checks a page
    (whose outputs the build has made by then)."""
    return needs_site(item) or _is_page(item)


def _is_page(item: pytest.Item) -> bool:
    """A drift-check item: a block of a Markdown page."""
    return Path(item.nodeid.split("::", 1)[0]).suffix == ".md"


def pytest_itemcollected(item: pytest.Item) -> None:
    # As each test is collected: before any collection_modifyitems hook, among them
    # xdist's, which turns the group marks into node ids on each worker.
    group = _group(item)
    if group and not item.get_closest_marker("xdist_group"):
        item.add_marker(pytest.mark.xdist_group(group))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # A stable sort: every worker must see the same order.
    items.sort(key=runs_late)
