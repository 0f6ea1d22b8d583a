"""LaTeX maths to MathML at build time (no JavaScript, no CDN).

* inline: ``$dy/dx = 2x$``, with Pandoc's rule: no space just inside the dollars, and
  no digit right after the closing one (so "$5 and $10" stays text);
* display: a fenced block with the language ``math``.

Browsers render MathML natively; latex2mathml is pure Python.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from typing import Any

from latex2mathml.converter import convert
from markdown import Extension, Markdown
from markdown.inlinepatterns import InlineProcessor

from coursekit.content.errors import FenceFailure
from coursekit.errors import CourseError

# $...$ with no space just inside the dollars and no digit after the closing one (Pandoc).
# As in Pandoc, the maths may go on over a line break, not over a blank line: a paragraph
# wrapped in the middle of a formula still renders (a blank line never reaches an inline
# pattern, but a list item's text can hold one).
INLINE_MATH = r"(?<![\\$\w])\$(?=[^\s$])(?P<tex>(?:\\\$|[^$\n]|\n(?![ \t]*\n))+?)(?<=\S)\$(?![\w$])"

# Inline maths with the punctuation around it: an opening parenthesis or quote just before,
# closing punctuation just after. A browser may break a line on either side of a <math>
# element, so "halfway between $-1$ and $1$." could end one line with the maths and start
# the next with its full stop. The maths and its punctuation go into one span that never
# breaks (.math-inline in docs/assets/stylesheets/course.css).
INLINE_MATH_WITH_PUNCTUATION = (
    r"(?:(?<!\\)(?P<open>[(\"]+))?" + INLINE_MATH + r"(?P<close>[.,;:!?)'\"]+)?"
)


class MathError(CourseError, ValueError):
    """LaTeX that latex2mathml cannot read."""


def to_mathml(tex: str, *, display: bool) -> str:
    try:
        mathml = convert(tex.strip(), display="block" if display else "inline")
    except Exception as error:  # latex2mathml raises many types
        raise MathError(f"cannot convert LaTeX {tex!r}: {error}") from None
    # Screen readers without MathML support still get the source.
    return mathml.replace("<math ", f'<math alttext="{html.escape(tex.strip())}" ', 1)


def with_punctuation(mathml: str, before: str, after: str) -> str:
    """Inline ``mathml`` with the punctuation (HTML) found just before and after it, in a
    span that no line break parts (INLINE_MATH_WITH_PUNCTUATION's groups)."""
    if not before and not after:
        return mathml
    return f'<span class="math-inline">{before}{mathml}{after}</span>'


class _InlineMath(InlineProcessor):
    def handleMatch(  # type: ignore[override]  # the stubs give only Pattern's signature
        self, m: re.Match[str], data: str
    ) -> tuple[Any, int, int]:
        # A line break inside the maths is a space, as in TeX (and in its alttext).
        tex = re.sub(r"\s*\n\s*", " ", m["tex"])
        mathml = to_mathml(tex, display=False)
        before, after = html.escape(m["open"] or ""), html.escape(m["close"] or "")
        placeholder = self.md.htmlStash.store(with_punctuation(mathml, before, after))
        return placeholder, m.start(0), m.end(0)


class MathMLExtension(Extension):
    def extendMarkdown(self, md: Markdown) -> None:
        # Above emphasis (so `_` inside maths is not italics), below code spans.
        md.inlinePatterns.register(
            _InlineMath(INLINE_MATH_WITH_PUNCTUATION, md), "mathml_inline", 185
        )


def makeExtension(**kwargs: Any) -> MathMLExtension:
    return MathMLExtension(**kwargs)


def formatter(
    source: str, language: str, css_class: str, options: dict[str, Any], md: Markdown, **kwargs: Any
) -> str:
    """superfences formatter for ```math blocks."""
    try:
        mathml = to_mathml(source, display=True)
    except MathError as error:
        raise FenceFailure(str(error)) from None
    ET.fromstring(mathml)  # refuse to publish malformed markup
    return f'<div class="math-display">{mathml}</div>'
