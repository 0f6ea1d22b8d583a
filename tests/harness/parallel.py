"""Spread the suite over every core (pytest-xdist) without doing any work twice.

``-n auto --dist loadgroup`` (pyproject.toml) gives one worker per core; the drift check
asks for none when only Markdown pages run (coursekit/testing/drift.py).

* Tests that share per-process work must run on the same worker: every test of one
  page of the site (one browser visit of it, ``page_path``), every block of one
  drift-checked page (later blocks replay earlier ones), and every test of a module that
  uses a module-scoped fixture (the HTML validator's run over the site, a notebook
  kernel, a rebuilt fixture site: made once per worker that runs such a test). Each gets
  an ``xdist_group`` mark, and ``--dist loadgroup`` sends a group to one worker; every
  other test is spread one by one, as ``--dist load`` would.
* The site's builds (tests/test_site.py) run first, on one worker, while the others run
  the tests that need no site; the tests that need the site, and the Markdown pages'
  drift-check items, which take the builds' outputs (tests/conftest.py), run last.
"""

from __future__ import annotations

from pathlib import Path

import pytest

# Fixtures that wait for the site's builds (tests/conftest.py, tests/browser/conftest.py).
SITE_FIXTURES = frozenset({"built_site", "built_site_with_repo_url", "site_dir", "site_url"})
BUILDS = "tests/test_site.py"


def pytest_configure(config: pytest.Config) -> None:
    # Known even when xdist is off (`-p no:xdist`), so the mark never warns.
    config.addinivalue_line("markers", "xdist_group(name): run these tests on one worker")


def _group(item: pytest.Item) -> str | None:
    # Named by the file relative to the root, as in node ids: the same on every machine
    # (tests/shard_weights.json is keyed by these names, tests/harness/shards.py).
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


def order(item: pytest.Item) -> int:
    """0: the site's builds; 2: a test that waits for them (it needs the site, or
    drift-checks a page, whose outputs the builds have made by then); 1: the others."""
    if item.nodeid.startswith(BUILDS):
        return 0
    return 2 if needs_site(item) or _is_page(item) else 1


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
    items.sort(key=order)
