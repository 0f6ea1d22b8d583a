"""TeX that reached a built page as text: a formula the reader would see as source.

Maths is turned into MathML at build time (:mod:`coursekit.content.mathml`); whatever
slips past it (a formula the inline pattern did not match, maths in raw HTML that Markdown
does not read, a notebook cell rendered by another converter) would reach the reader as
``$\\frac{a}{b}$``. The build reads every written page's text, outside code, maths,
scripts, styles and SVG, and refuses one that shows a ``$...$`` formula or a TeX command.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

# Elements whose text is not prose: code shows TeX on purpose, <math> is rendered maths.
_SKIPPED = frozenset({"code", "pre", "kbd", "samp", "math", "script", "style", "svg", "textarea"})
# What only TeX source looks like: a $...$ formula as coursekit.content.mathml reads one
# (no space just inside, no digit after the closing $), a command of maths, or a
# sub/superscript group.
_COMMANDS = (
    "frac|dfrac|tfrac|sqrt|sum|prod|int|partial|nabla|mathrm|mathbf|mathbb|mathcal|"
    "operatorname|cdot|times|top|le|leq|ge|geq|ne|neq|approx|infty|lVert|rVert|left|right|"
    "begin|end|hat|bar|tilde|alpha|beta|gamma|delta|epsilon|varepsilon|eta|theta|lambda|mu|"
    "sigma|tau|phi|omega|Delta|Sigma|bigl|bigr|quad|ldots|text"
)
RAW_TEX = re.compile(
    r"(?<![\\$\w])\$(?=[^\s$])(?:\\\$|[^$])+?(?<=\S)\$(?![\w$])"
    rf"|\\(?:{_COMMANDS})(?![a-zA-Z])"
    r"|[\^_]\{"
)


class _ProseText(HTMLParser):
    """The text of a page that a reader reads as prose."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.skipping = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED:
            self.skipping += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED and self.skipping:
            self.skipping -= 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pass  # <br/>, <svg .../>: nothing opened

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.parts.append(data)


def raw_tex(page_html: str) -> list[str]:
    """Every piece of TeX source that the page shows as text, in page order."""
    parser = _ProseText()
    parser.feed(page_html)
    parser.close()
    text = " ".join(parser.parts)
    return [match[0] for match in RAW_TEX.finditer(text)]


def source_line(source: str, shown: str) -> int | None:
    """The line of the page's source where the TeX shown first stands (1-based)."""
    for needle in (shown, shown.split()[0] if shown.split() else shown):
        index = source.find(needle)
        if index >= 0:
            return source.count("\n", 0, index) + 1
    return None
