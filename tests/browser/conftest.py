"""Browser fixtures: the freshly built site served on 127.0.0.1, and one headless Chromium.

Under pytest-xdist each worker has its own server and its own Chromium; the site itself
is built once per run (tests/conftest.py), and all tests of one page run on one worker
(tests/harness/parallel.py), so each page is visited once.

Every test that takes a ``page_path`` argument runs once per page of the site (or per
page of the module's ``PAGES`` list). The pages are found from docs/ by MkDocs' own rule
for addresses (see ``site_pages``), and ``test_every_built_page_is_covered`` checks them
against the pages the build really wrote, so a new page is covered without anyone
editing a list.

BROWSER_TEST_SITE=<folder> tests a site you built already instead of building one.

Chromium is Debian's (``apt-get install -y chromium``); Playwright's own browser download
is not used. Without it the browser tests are skipped, except under CI (``CI=true``),
where a missing browser is a failure.
"""

from __future__ import annotations

import functools
import http.server
import mimetypes
import os
import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

import pytest
from harness import chromium
from support import ROOT

from .audit_page import NoScriptView, PageAudit, audit_page, view_without_js
from .reader_view import PHONE

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page, Route

CHROMIUM = chromium.CHROMIUM
CHROMIUM_ARGS = [
    "--headless",
    *chromium.FLAGS,
    # Belt and braces: a request that ever got past the recorders still cannot leave.
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
]
HOW_TO_GET_CHROMIUM = chromium.HOW_TO_GET_IT


def canonical_address(site: Path) -> str:
    """The site's own address (site_url), from the home page's canonical link."""
    home = (site / "index.html").read_text(encoding="utf-8")
    match = re.search(r'<link rel="canonical" href="(?P<url>[^"]+)"', home)
    assert match, "the home page has no canonical address (site_url)"
    return match["url"]


def answer_from(context: BrowserContext, site: Path, address: str) -> None:
    """Answer the context's requests to ``address`` from the built ``site``; refuse every
    other request, so nothing leaves the machine."""

    def serve(route: Route) -> None:
        path = urlsplit(route.request.url).path.removeprefix(urlsplit(address).path)
        file = site / unquote(path)
        file = file / "index.html" if file.is_dir() else file
        if not file.is_file():
            route.fulfill(status=404, body="not found")
            return
        kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        route.fulfill(status=200, body=file.read_bytes(), content_type=kind)

    context.route("**/*", lambda route: route.abort())
    context.route(f"{address}**", serve)  # the later route wins for the site's own address


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def browser_missing() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if not CHROMIUM.exists():
        return f"{CHROMIUM} not found: {HOW_TO_GET_CHROMIUM}"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed: pip install -e '.[test]'"
    return None


# --- the pages of the site ----------------------------------------------------------------


def _notebook_patterns() -> list[str]:
    """The pages mkdocs-jupyter makes (its ``include`` option), read from mkdocs.yml."""
    import yaml

    class Loader(yaml.SafeLoader):  # the YAML only: MkDocs' tags are not needed here
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)
    plugin = next(p for p in config["plugins"] if isinstance(p, dict) and "mkdocs-jupyter" in p)
    return list(plugin["mkdocs-jupyter"]["include"])


@functools.cache
def site_pages() -> list[str]:
    """URL paths (relative to the site root) of every page the build writes.

    Every Markdown page and every notebook page of docs/, by MkDocs' rule for directory
    URLs (``<a>/<b>.md`` is ``<a>/<b>/``, ``<a>/index.md`` is ``<a>/``), without loading
    MkDocs: each test worker collects them. The theme's 404 page is a page readers can
    land on, so it is visited too. test_every_built_page_is_covered holds this against
    the built site.
    """
    docs = ROOT / "docs"
    sources = set(docs.rglob("*.md"))
    for pattern in _notebook_patterns():
        sources |= set(docs.glob(pattern))
    pages = set()
    for source in sources:
        path = source.relative_to(docs).with_suffix("").as_posix()
        pages.add("" if path == "index" else f"{path.removesuffix('/index')}/")
    return [*sorted(pages), "404.html"]


def page_id(path: str) -> str:
    return path.rstrip("/") or "home"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "page_path" in metafunc.fixturenames:
        # A test module may narrow the pages with a module-level PAGES list.
        pages = getattr(metafunc.module, "PAGES", None) or site_pages()
        metafunc.parametrize("page_path", pages, ids=[page_id(p) for p in pages])


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    reason = browser_missing()
    if reason is None or in_ci():
        return  # under CI the `browser` fixture turns the missing browser into a failure
    skip = pytest.mark.skip(reason=f"browser tests skipped: {reason}")
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(skip)


# --- serving the built site ---------------------------------------------------------------


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    # Keep-alive: Chromium reuses its connections, which halves a page's load time here.
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the tests report what matters; per-request logs would drown it


@pytest.fixture(scope="session")
def site_dir(request: pytest.FixtureRequest) -> Path:
    """The site under test: built for this run as the deploy workflow builds it (REPO_URL
    set, `built_site_with_repo_url`), or BROWSER_TEST_SITE if that is set.

    BROWSER_TEST_SITE=site reuses a site you built yourself (`mkdocs build`), which saves
    the build while you work on one page; the default always tests a fresh strict build.
    """
    given = os.environ.get("BROWSER_TEST_SITE")
    if given:
        site = Path(given).resolve()
        if not (site / "index.html").is_file():
            pytest.fail(f"BROWSER_TEST_SITE={given}: no built site there", pytrace=False)
        return site
    return request.getfixturevalue("built_site_with_repo_url")


@pytest.fixture(scope="session")
def site_url(site_dir: Path) -> Iterator[str]:
    """The built site on http://127.0.0.1:<free port>/, served from a thread."""
    handler = functools.partial(_QuietHandler, directory=str(site_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()
    server.server_close()


# --- the browser --------------------------------------------------------------------------


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """One Chromium for the whole session, with a fresh temporary profile."""
    reason = browser_missing()
    if reason:
        # Only reachable under CI: elsewhere pytest_collection_modifyitems skipped the test.
        pytest.fail(f"CI=true and the browser tests cannot run: {reason}", pytrace=False)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=CHROMIUM_ARGS,
            ignore_default_args=list(chromium.PLAYWRIGHT_DEFAULTS_LEFT_OUT),
        )
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def new_context(browser: Browser, site_url: str) -> Callable[..., BrowserContext]:
    """Opens a clean browser context (own storage) on the site, light scheme, desktop size."""

    def make(**options: Any) -> BrowserContext:
        settings: dict[str, Any] = {
            "base_url": site_url,
            "color_scheme": "light",
            "viewport": {"width": 1280, "height": 900},
            "permissions": ["clipboard-read", "clipboard-write"],
            **options,
        }
        return browser.new_context(**settings)

    return make


@pytest.fixture(scope="session")
def page_audits(
    new_context: Callable[..., BrowserContext], site_url: str
) -> Callable[[str], PageAudit]:
    """Visits a page once and remembers what was seen; every per-page test reads from it."""
    seen: dict[str, PageAudit] = {}

    def get(path: str) -> PageAudit:
        if path not in seen:
            seen[path] = audit_page(new_context, site_url, path)
        return seen[path]

    return get


@pytest.fixture(scope="session")
def no_js_views(
    new_context: Callable[..., BrowserContext],
) -> Iterator[Callable[[str], NoScriptView]]:
    """Every page as a reader without JavaScript sees it, on a phone whose system is dark
    (prefers-color-scheme: dark): one context and one tab for the whole session, each page
    loaded once, when a test first asks for it. Loads without scripts are cheap; the colour
    scheme changes no sizes, so the width checks hold for the light scheme too."""
    opened: list[tuple[BrowserContext, Page]] = []
    seen: dict[str, NoScriptView] = {}

    def get(path: str) -> NoScriptView:
        if path not in seen:
            if not opened:
                context = new_context(
                    java_script_enabled=False, viewport=PHONE, color_scheme="dark"
                )
                context.set_default_timeout(10_000)
                opened.append((context, context.new_page()))
            seen[path] = view_without_js(opened[0][1], path)
        return seen[path]

    yield get
    for context, _ in opened:
        context.close()
