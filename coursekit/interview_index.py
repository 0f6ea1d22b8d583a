"""Interview questions: each short answer is written once, in its page's front matter.

A question page (``docs/interview/<slug>.md``) states its short answer as ``description:``
in the front matter (Markdown; only inline code). From that one text this module, called
from ``mkdocs_hooks.on_page_markdown``:

* inserts the page's ``## Short answer {#short-answer}`` section right under its H1;
* makes the meta description (and so the link preview) the same answer in plain text;
* writes the index (``index.md``) and the printable summary (``summary.md``), grouped by
  the topic sections of the ``Interview questions`` nav, in nav order.

Every question page must sit in one of those topic sections, so no question can be
published without appearing in the index and the summary.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.utils.meta import get_data

FOLDER = "interview/"
# The pages of the folder that are not questions.
NOT_QUESTIONS = {"interview/index.md", "interview/summary.md"}
MARKERS = {
    "interview/index.md": "<!-- interview:index -->",
    "interview/summary.md": "<!-- interview:summary -->",
}
# A short answer becomes an HTML attribute (which Material does not escape) and a link
# preview: plain words and inline code, no other Markdown.
_NOT_IN_ATTRIBUTE = re.compile(r'[<>"&]')
_NOT_PLAIN = re.compile(r"[*_\[\]$\\|#]")
_CODE = re.compile(r"`[^`]*`")


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    src = page.file.src_uri
    if not src.startswith(FOLDER):
        return markdown
    if src in MARKERS:
        return _generated_listing(markdown, page, config, files)
    description = short_answer(page.meta, f"docs/{src}")
    _question(markdown, page.meta, f"docs/{src}")
    # Material writes page.meta.description into <meta name="description">, unescaped.
    page.meta["description"] = plain(description)
    if page.parent is None or page.parent.parent is None:
        raise PluginError(
            f"docs/{src}: put this question in a topic section of the "
            "'Interview questions' nav in mkdocs.yml, so the index lists it"
        )
    lines = markdown.split("\n")
    h1 = next(i for i, line in enumerate(lines) if line.startswith("# "))  # checked above
    answer = ["", "## Short answer {#short-answer}", "", description]
    return "\n".join([*lines[: h1 + 1], *answer, *lines[h1 + 1 :]])


def short_answer(meta: dict[str, Any], where: str) -> str:
    """The page's short answer (front matter ``description``), checked to be plain."""
    text = " ".join(str(meta.get("description") or "").split())
    if not text:
        raise PluginError(f"{where}: a question page needs its short answer as `description:`")
    found = _NOT_IN_ATTRIBUTE.search(text) or _NOT_PLAIN.search(_CODE.sub("", text))
    if found:
        raise PluginError(
            f"{where}: the description is a link preview: write plain sentences and "
            f"`inline code` only (found {found[0]!r})"
        )
    return text


def plain(description: str) -> str:
    """The short answer as plain text, for meta tags: inline code loses its backticks."""
    return description.replace("`", "")


def _generated_listing(markdown: str, page: Any, config: Any, files: Any) -> str:
    src = page.file.src_uri
    marker = MARKERS[src]
    if marker not in markdown:
        raise PluginError(f"docs/{src}: the line {marker} marks where the questions go")
    topics = _topics(page.parent, Path(config["docs_dir"]))
    listed = {q["src"] for _, _, questions in topics for q in questions}
    missing = sorted(
        f.src_uri
        for f in files.documentation_pages()
        if f.src_uri.startswith(FOLDER) and f.src_uri not in NOT_QUESTIONS | listed
    )
    if missing:
        raise PluginError(
            f"docs/{missing[0]}: this question is not in a topic section of the "
            "'Interview questions' nav in mkdocs.yml, so the index would not list it"
        )
    summary = src == "interview/summary.md"
    out: list[str] = []
    for title, anchor, questions in topics:
        out += [f"## {title} {{#{anchor}}}", ""]
        for q in questions:
            link = f"[{q['title']}]({q['src'].removeprefix(FOLDER)})"
            # A definition list: the question, then its short answer.
            out += [f"**{link}**" if summary else link, f":   {q['description']}", ""]
    css_class = "interview-summary" if summary else "interview-index"
    listing = "\n".join(out)
    return markdown.replace(marker, f'<div class="{css_class}" markdown>\n\n{listing}\n</div>')


def _topics(section: Any, docs_dir: Path) -> list[tuple[str, str, list[dict[str, str]]]]:
    """(topic title, anchor, questions) for each topic section of the interview nav."""
    if section is None:
        raise PluginError("docs/interview/index.md must be in the 'Interview questions' nav")
    topics = []
    for child in section.children:
        if not getattr(child, "is_section", False):
            continue
        questions = []
        for item in child.children:
            src = item.file.src_uri
            body, meta = get_data((docs_dir / src).read_text(encoding="utf-8"))
            question = _question(body, meta, f"docs/{src}")
            questions.append(
                {"src": src, "title": question, "description": short_answer(meta, f"docs/{src}")}
            )
        topics.append((child.title, _slug(child.title), questions))
    return topics


def _question(body: str, meta: dict[str, Any], where: str) -> str:
    """The H1 (Markdown, may hold inline code), checked against the plain `title:`."""
    h1 = next((line[2:].strip() for line in body.split("\n") if line.startswith("# ")), "")
    title = str(meta.get("title") or "")
    if not h1 or plain(h1) != title:
        raise PluginError(
            f"{where}: the H1 must be the question and `title:` the same words without "
            f"backticks (link previews show the title): {h1!r} vs {title!r}"
        )
    return h1


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
