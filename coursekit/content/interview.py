"""Interview questions: each short answer is written once, in its page's front matter.

A question page (``docs/interview/<slug>.md``) states its short answer as ``description:``
in the front matter (Markdown; only inline code). From that one text the build:

* inserts the page's ``## Short answer {#short-answer}`` section right under its H1
  (:func:`question_page`);
* makes the meta description (and so the link preview) the same answer in plain text;
* writes the index and the printable summary (:func:`listing`), grouped by the topic
  sections of the ``Interview questions`` nav, in nav order.

Every question page must sit in one of those topic sections, so no question can be
published without appearing in the index and the summary (the build checks it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from coursekit.content.errors import ContentError

# The short answer becomes an attribute and a link preview: plain words and inline code.
_NOT_PLAIN = re.compile(r"[*_\[\]$\\|#<>&\"]")
_CODE = re.compile(r"`[^`]*`")


@dataclass(frozen=True)
class QuestionPage:
    """One interview question's page, as the index and the summary list it."""

    src: str  # docs-relative: "interview/what-does-backward-do.md"
    title: str  # the H1, Markdown (may hold inline code)
    description: str  # the short answer


@dataclass(frozen=True)
class Topic:
    title: str
    questions: tuple[QuestionPage, ...]

    @property
    def anchor(self) -> str:
        return re.sub(r"[^a-z0-9]+", "-", self.title.lower()).strip("-")


def short_answer(meta: Mapping[str, Any], where: str) -> str:
    """The page's short answer (front matter ``description``), checked to be plain."""
    text = " ".join(str(meta.get("description") or "").split())
    if not text:
        raise ContentError(f"{where}: a question page needs its short answer as `description:`")
    found = _NOT_PLAIN.search(_CODE.sub("", text)) or re.search(r'[<>&"]', text)
    if found:
        raise ContentError(
            f"{where}: the description is a link preview: write plain sentences and "
            f"`inline code` only (found {found[0]!r})"
        )
    return text


def plain(description: str) -> str:
    """The short answer as plain text, for meta tags: inline code loses its backticks."""
    return description.replace("`", "")


def question_title(body: str, meta: Mapping[str, Any], where: str) -> str:
    """The H1 (Markdown, may hold inline code), checked against the plain `title:`."""
    h1 = next((line[2:].strip() for line in body.split("\n") if line.startswith("# ")), "")
    title = str(meta.get("title") or "")
    if not h1 or plain(h1) != title:
        raise ContentError(
            f"{where}: the H1 must be the question and `title:` the same words without "
            f"backticks (link previews show the title): {h1!r} vs {title!r}"
        )
    return h1


def question(src: str, body: str, meta: Mapping[str, Any]) -> QuestionPage:
    where = f"docs/{src}"
    return QuestionPage(src, question_title(body, meta, where), short_answer(meta, where))


def question_page(markdown: str, meta: Mapping[str, Any], where: str) -> str:
    """The page with its short answer under the H1."""
    description = short_answer(meta, where)
    question_title(markdown, meta, where)
    lines = markdown.split("\n")
    h1 = next(i for i, line in enumerate(lines) if line.startswith("# "))  # checked above
    answer = ["", "## Short answer {#short-answer}", "", description]
    return "\n".join([*lines[: h1 + 1], *answer, *lines[h1 + 1 :]])


def listing(
    markdown: str, marker: str, topics: list[Topic], *, summary: bool, folder: str, where: str
) -> str:
    """The index or the summary: every question under its topic, with its short answer."""
    if marker not in markdown:
        raise ContentError(f"{where}: the line {marker} marks where the questions go")
    out: list[str] = []
    for topic in topics:
        out += [f"## {topic.title} {{#{topic.anchor}}}", ""]
        for q in topic.questions:
            link = f"[{q.title}]({q.src.removeprefix(folder)})"
            # A definition list: the question, then its short answer.
            out += [f"**{link}**" if summary else link, f":   {q.description}", ""]
    css_class = "interview-summary" if summary else "interview-index"
    body = "\n".join(out)
    return markdown.replace(marker, f'<div class="{css_class}" markdown>\n\n{body}\n</div>')
