"""Interview questions: permanent addresses, and what every question page must hold.

* every address in tests/published_urls.txt still leads to a page (the page itself, or a
  redirect to one), so links people shared keep working;
* every interview page the build publishes is in that registry;
* every question page has its short answer (front matter `description:`) as its meta
  description and link preview, a "Short answer" section first, stable heading ids,
  at least one executed block and a link to a chapter;
* the index and the printable summary list every question with its short answer.
"""

from __future__ import annotations

import contextlib
import html
import io
import re
import runpy
import warnings
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from mkdocs.utils.meta import get_data
from support import ROOT, project

from coursekit.content.interview import plain, short_answer
from coursekit.execution.record import Record
from coursekit.markdown.blocks import keys
from coursekit.markdown.fences import executed, scan

PROJECT = project()  # one load per process: tests/support.py
NOT_QUESTIONS = {"interview/index.md", "interview/summary.md"}
REGISTRY = ROOT / "tests" / "published_urls.txt"
INTERVIEW = ROOT / "docs" / "interview"
QUESTIONS = sorted(p for p in INTERVIEW.glob("*.md") if f"interview/{p.name}" not in NOT_QUESTIONS)
_REFRESH = re.compile(r'<meta http-equiv="refresh" content="0; url=(?P<url>[^"]+)"')
_HEADING = re.compile(r"^(#{2,6}) (?P<text>.*)$")
_HEADING_ID = re.compile(r"\{#(?P<id>[a-z0-9-]+)\}\s*$")


def registered() -> list[str]:
    lines = REGISTRY.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def address(md_file: Path) -> str:
    """The published address of a Markdown page (MkDocs' directory URLs)."""
    relative = md_file.relative_to(ROOT / "docs").with_suffix("").as_posix()
    return relative.removesuffix("index") if md_file.stem == "index" else f"{relative}/"


def redirect_target(page: Path) -> str | None:
    match = _REFRESH.search(page.read_text(encoding="utf-8"))
    return html.unescape(match["url"]) if match else None


class _Page(HTMLParser):
    """The parts of a built page the tests look at."""

    def __init__(self) -> None:
        super().__init__()
        self.meta: dict[str, str] = {}
        self.scripts: list[str] = []
        self.links: list[str] = []  # hrefs inside the article
        self.headings: list[tuple[str, str]] = []  # (tag, id) inside the article
        self.results = 0  # output boxes of executed blocks
        self._in_article = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "meta" and "content" in a:
            self.meta[a.get("name") or a.get("property", "")] = a["content"]
        elif tag == "script" and "src" in a:
            self.scripts.append(a["src"])
        elif tag == "article":
            self._in_article = True
        elif self._in_article and tag == "a" and "href" in a:
            self.links.append(a["href"])
        elif self._in_article and tag in {"h1", "h2"}:
            self.headings.append((tag, a.get("id", "")))
        elif self._in_article and "exec-output" in a.get("class", "").split():
            self.results += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "article":
            self._in_article = False


def parse(page: Path) -> _Page:
    parsed = _Page()
    parsed.feed(page.read_text(encoding="utf-8"))
    return parsed


def front_matter(md_file: Path) -> tuple[str, dict[str, object]]:
    return get_data(md_file.read_text(encoding="utf-8"))


# --- permanent addresses ------------------------------------------------------------------


@pytest.mark.parametrize("url", registered())
def test_published_address_still_leads_to_a_page(built_site: Path, url: str) -> None:
    page = built_site / url / "index.html"
    assert page.is_file(), (
        f"/{url} was published and may have been shared, but the build no longer has it. "
        "Restore the page, or add a redirect from its old file to the new one in mkdocs.yml "
        "(plugins: redirects: redirect_maps)."
    )
    target = redirect_target(page)
    if target is not None:
        resolved = urlsplit(urljoin(f"https://site/{url}", target)).path.lstrip("/")
        final = built_site / resolved / "index.html"
        assert final.is_file(), f"/{url} redirects to /{resolved}, which does not exist"
        assert redirect_target(final) is None, f"/{url} redirects to another redirect"


def test_every_published_page_is_registered(built_site: Path) -> None:
    urls = set(registered())
    published = {
        page.parent.relative_to(built_site).as_posix() + "/"
        for page in built_site.rglob("index.html")
        if redirect_target(page) is None
    }
    missing = sorted(published - urls)
    assert "interview/" in published, "the build published no interview page"
    assert not missing, (
        f"published but not in {REGISTRY.relative_to(ROOT)}: {missing}. Add each address, "
        "so that the tests protect it from now on."
    )


def test_registry_lists_each_address_once() -> None:
    urls = registered()
    assert len(urls) == len(set(urls))
    assert all(url.endswith("/") and not url.startswith("/") for url in urls)


# --- the question pages -------------------------------------------------------------------


def test_there_are_at_least_fifteen_questions() -> None:
    assert len(QUESTIONS) >= 15


@pytest.mark.parametrize("md_file", QUESTIONS, ids=lambda p: p.stem)
def test_question_page_source(md_file: Path) -> None:
    body, meta = front_matter(md_file)
    where = md_file.relative_to(ROOT).as_posix()
    short_answer(meta, where)  # present, and plain enough for a link preview
    h1 = next(line[2:] for line in body.splitlines() if line.startswith("# "))
    assert plain(h1) == meta.get("title"), "the H1 is the question; `title:` the same words"
    assert executed(scan(md_file.read_text(encoding="utf-8"), where)), "no executed block"
    in_fence, ids = False, []
    for line in body.splitlines():
        if line.startswith("```"):
            in_fence = not in_fence
        heading = None if in_fence else _HEADING.match(line)
        if heading:
            explicit = _HEADING_ID.search(heading["text"])
            assert explicit, f"{where}: give the heading {line!r} a stable id: {{#some-id}}"
            ids.append(explicit["id"])
    assert "short-answer" not in ids, "the Short answer section is added from `description:`"
    assert len(ids) == len(set(ids)), f"{where}: duplicate heading ids"


@pytest.mark.parametrize("md_file", QUESTIONS, ids=lambda p: p.stem)
def test_question_page_as_built(built_site: Path, md_file: Path) -> None:
    _, meta = front_matter(md_file)
    url = address(md_file)
    page = parse(built_site / url / "index.html")
    description = plain(short_answer(meta, md_file.name))

    # The link preview: the question and its short answer.
    assert page.meta.get("description") == description
    assert page.meta.get("og:description") == description
    assert page.meta.get("og:title") == meta["title"]
    assert page.meta.get("og:type") == "article"
    assert page.meta.get("og:url", "").endswith(f"/{url}")
    assert page.meta.get("twitter:card") == "summary"

    # The question, then the short answer, before anything else.
    assert [tag for tag, _ in page.headings[:2]] == ["h1", "h2"]
    assert page.headings[1][1] == "short-answer"

    assert page.results >= 1, "no executed block printed anything"
    # A chapter of any part: its folder is one of the plugin's chapter folders.
    folders = "|".join(map(re.escape, PROJECT.options.chapters))
    chapter_link = re.compile(rf"^\.\./\.\./(?:{folders})/[\w-]+/(?:#[\w-]+)?$")
    chapters = [href for href in page.links if chapter_link.match(href)]
    assert chapters, "link the chapter that teaches this question"
    for href in page.links:
        if href.startswith("../") and "#" not in href:
            target = urlsplit(urljoin(f"https://site/{url}", href)).path.lstrip("/")
            assert (built_site / target / "index.html").is_file(), f"broken link {href}"
    assert any(src.endswith("assets/javascripts/copy-link.js") for src in page.scripts)


@pytest.mark.parametrize(
    "script", sorted((ROOT / "snippets" / "interview").glob("*.py")), ids=lambda p: p.stem
)
def test_snippet_runs_on_its_own(script: Path) -> None:
    """The pages include regions of these scripts; each also runs as a plain program, and
    prints what the page shows under each block that includes one region."""
    output = io.StringIO()
    with contextlib.redirect_stdout(output), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the pages show PyTorch's warnings; here they are noise
        runpy.run_path(str(script), run_name="__main__")
    printed = output.getvalue()
    record = Record.load(PROJECT.record)
    target = f"interview/{script.name}:"
    # The blocks that include a region of the script, whatever the record calls them (a
    # block with an id="..." is recorded under its id). A block that raises prints the
    # error, which a plain run of the script does not reach.
    shown = []
    for page in sorted((ROOT / "docs" / "interview").glob("*.md")):
        source = PROJECT.read(page)
        fences = source.executed_fences()
        for fence, key in zip(fences, keys(fences), strict=True):
            if target in fence.body and "#" not in key and not fence.attrs.get("raises"):
                shown.append((key, record.pages[source.path][key]))
    assert shown, f"no page includes a region of {script.name}"
    for key, text in shown:
        # The page prints a warning where it happens; a plain run sends it to stderr.
        expected = "".join(
            line for line in text.splitlines(keepends=True) if "Warning: " not in line
        )
        assert expected in printed, f"{script.name} does not print what the page shows under {key}"


# --- index and summary --------------------------------------------------------------------


@pytest.mark.parametrize("listing", ["interview/", "interview/summary/"])
def test_index_and_summary_list_every_question(built_site: Path, listing: str) -> None:
    text = (built_site / listing / "index.html").read_text(encoding="utf-8")
    for md_file in QUESTIONS:
        _, meta = front_matter(md_file)
        link = f"{md_file.stem}/" if listing == "interview/" else f"../{md_file.stem}/"
        assert f'href="{link}"' in text, f"{listing} does not link {md_file.name}"
        # The short answer is there, as rendered HTML (code spans become <code>).
        answer = short_answer(meta, md_file.name)
        rendered = re.sub(r"`([^`]*)`", lambda m: f"<code>{html.escape(m[1])}</code>", answer)
        assert rendered in text, f"{listing} lacks the short answer of {md_file.name}"
