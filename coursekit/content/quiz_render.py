"""A quiz's HTML: the Jinja templates in templates/ filled in with its typed questions.

``templates/quiz.html`` is one page's quiz and names the markup hooks of quiz.js and the
browser tests; ``templates/quiz_index.html`` lists every quiz. Prompts, options and
explanations are Markdown (with maths), converted here with the page's links resolved.
"""

from __future__ import annotations

import hashlib
import html
import json
import posixpath
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import jinja2
import markdown
from markupsafe import Markup

from coursekit.content.mathml import MathMLExtension
from coursekit.content.quiz_model import TYPES, Quiz, QuizError, normalise_blank
from coursekit.content.tex_text import html_as_text

TEMPLATES = Path(__file__).parent / "templates"  # packaged: pyproject.toml package-data
# A docs-relative .md path -> its URL relative to the page being rendered; None: missing.
Resolve = Callable[[str], str | None]
_MD_LINK = re.compile(r'href="(?P<path>[^":#?]+\.md)(?P<anchor>#[^"]*)?"')


def match_order(question_id: str, rights: Sequence[str]) -> list[int]:
    """A fixed shuffle of the right-hand column of a matching question (never the identity)."""
    order = sorted(
        range(len(rights)),
        key=lambda i: hashlib.sha256(f"{question_id}:{rights[i]}".encode()).hexdigest(),
    )
    if order == list(range(len(rights))):
        order = order[1:] + order[:1]
    return order


def blank_size(answers: Sequence[str]) -> int:
    """The width of a blank's text field: its longest answer, with room to spare."""
    return max(6, *(len(answer) + 2 for answer in answers))


# Where a line of a blank's code may wrap besides its spaces: after a dot that a name
# follows ("torch." / "optim.SGD(...)"), never inside a name or a number.
_AFTER_DOT = re.compile(r"(?<=\.)(?=[A-Za-z_])")
_BREAK = re.compile(r" |(?<=\.)(?=[A-Za-z_])")


def code_breaks(text: str) -> Markup:
    """Code as HTML, with a <wbr> where a line of it may wrap besides its spaces."""
    return Markup("<wbr>").join(_escape(part) for part in _AFTER_DOT.split(text))


def around_blank(before: str, after: str) -> tuple[Markup, Markup, Markup, Markup]:
    """The line of a blank, cut where a line may wrap: the code before the blank, the
    code that touches the blank on each side (from the last place a line may wrap before
    it to the first after it: ``p.`` and ``],`` in ``if p.____], lr=0.1``), and the code
    after. quiz.html keeps the touching code and the blank on one line."""
    cut = max((m.end() for m in _BREAK.finditer(before)), default=0)
    found = _BREAK.search(after)
    end = found.start() if found else len(after)
    # A cut after a dot is a place to wrap too (a cut at a space already is one).
    wrap = Markup("<wbr>")
    code_before = code_breaks(before[:cut]) + (wrap if before[:cut].endswith(".") else "")
    code_after = (wrap if after[:end].endswith(".") else "") + code_breaks(after[end:])
    return code_before, _escape(before[cut:]), _escape(after[:end]), code_after


def _escape(value: object) -> Markup:
    # html.escape, not Jinja's own escaping: it writes quotes as &quot; and &#x27;, which
    # the published pages (and tests reading data-quiz-answer) have always had.
    return Markup(html.escape(str(value), quote=True))


class QuizRenderer:
    """Renders quizzes; made once per build (the plugin keeps it) with its templates."""

    def __init__(self) -> None:
        templates = jinja2.Environment(
            loader=jinja2.FileSystemLoader(TEMPLATES),
            autoescape=True,  # fragments already HTML come in as Markup
            trim_blocks=True,
            lstrip_blocks=True,
            undefined=jinja2.StrictUndefined,
        )
        templates.filters.update(
            h=_escape,
            as_text=lambda rendered: Markup(html_as_text(rendered)),
            json=json.dumps,
            normalise_blank=normalise_blank,
            code_breaks=code_breaks,
        )
        templates.globals.update(
            types=TYPES, match_order=match_order, blank_size=blank_size, around_blank=around_blank
        )
        self._quiz = templates.get_template("quiz.html")
        self._index = templates.get_template("quiz_index.html")
        self._md = markdown.Markdown(
            extensions=["pymdownx.highlight", "pymdownx.superfences", MathMLExtension()],
            extension_configs={"pymdownx.highlight": {"use_pygments": True}},
        )

    def quiz(self, quiz: Quiz, page: str, resolve: Resolve) -> str:
        """The HTML of one quiz: its progress bar, then every question.

        ``page`` is the docs-relative path of the page it is on (links in the questions
        are relative to it); ``resolve`` gives a linked page's URL.
        """
        return self._quiz.render(quiz=quiz, md=_Fragments(self._md, page, resolve))

    def index(self, entries: Sequence[tuple[Quiz, str, str]]) -> str:
        """The list of quizzes on practice/index.md: (quiz, title, URL) for each page."""
        return self._index.render(entries=entries)


class _Fragments:
    """A question's Markdown fragments (prompts, options, explanations) as HTML."""

    def __init__(self, md: markdown.Markdown, page: str, resolve: Resolve) -> None:
        self.md = md
        self.page = page  # e.g. practice/quizzes/chain-rule.md
        self.resolve = resolve

    def block(self, text: str) -> Markup:
        self.md.reset()
        return Markup(self._links(self.md.convert(text)))

    def inline(self, text: str) -> Markup:
        rendered = self.block(text)
        match = re.fullmatch(r"<p>(.*)</p>", rendered, re.S)
        return Markup(match[1]) if match else rendered

    def plain(self, text: str) -> Markup:
        """Text for places that cannot hold markup (``<option>``); maths read out."""
        return Markup(html_as_text(self.inline(text)))

    def _links(self, rendered: str) -> str:
        def fix(match: re.Match[str]) -> str:
            target = posixpath.normpath(posixpath.join(posixpath.dirname(self.page), match["path"]))
            url = self.resolve(target)
            if url is None:
                raise QuizError(f"docs/{self.page}: link to a missing page {match['path']!r}")
            return f'href="{url}{match["anchor"] or ""}"'

        return _MD_LINK.sub(fix, rendered)
