"""The notebook pages of the site: mkdocs-jupyter's HTML, made fit for the site.

* no script or stylesheet from another host: nbconvert's MathJax and Mermaid loaders go;
* maths in Markdown cells becomes MathML at build time (as on every other page);
* JupyterLab's stylesheet loses the rules for classes the page does not use;
* a download link under the notebook's title.
"""

from __future__ import annotations

import html as html_lib
import re
from pathlib import Path

from coursekit.content.mathml import INLINE_MATH, MathError, to_mathml

# nbconvert's template always emits MathJax (from a CDN, or an empty src when the URL
# is blank) and a Mermaid loader that imports from a CDN. The notebooks use neither,
# and the site makes no third-party request, so both are removed.
_MATHJAX = re.compile(
    r"<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->\s*", re.S | re.I
)
_MERMAID = re.compile(r"<script type=\"module\">(?:(?!</script>).)*?mermaid.*?</script>\s*", re.S)


def page_content(html: str, src: str, pruner: StylePruner) -> str:
    """Clean a notebook page's HTML (``src``: its .ipynb) and put a download link under
    its title."""
    html = pruner.prune(markdown_maths(_MERMAID.sub("", _MATHJAX.sub("", html))))
    name = Path(src).name
    download = (
        f'<p class="notebook-download"><a href="{name}" download>Download this notebook '
        f"({name})</a> and run it in Jupyter; its last cell checks your answer. Below, the "
        "notebook as it ran when the site was built, before any answer was filled in.</p>"
    )
    # Right under the notebook's title, or first if it has none.
    head, found, rest = html.partition("</h1>")
    return f"{head}{found}{download}{rest}" if found else download + html


# mkdocs-jupyter inlines JupyterLab's whole stylesheet (about 570 kB) into every notebook
# page. Rules for classes that the page does not use are dropped, which keeps about a
# fifth of it: the page looks the same and loads much faster.
_STYLE = re.compile(r"(<style[^>]*>)(.*?)(</style>)", re.S)
# Classes inside :not(), :is(), :where() or :has() are not all required for a match.
_NOT = re.compile(r":(?:not|is|where|has)\([^()]*\)")
_CLASS = re.compile(r"\.(-?[A-Za-z_][\w-]*)")


class StylePruner:
    """Drops the unused rules of a page's stylesheets; remembers how each stylesheet
    splits into rules, since every notebook page inlines the same one (splitting it is
    most of the work). The build keeps one for the life of the process."""

    def __init__(self) -> None:
        self._split: dict[str, tuple[str, ...]] = {}

    def rules(self, css: str) -> tuple[str, ...]:
        if css not in self._split:
            if len(self._split) > 16:  # a handful of stylesheets, never more
                self._split.clear()
            self._split[css] = _rules(css)
        return self._split[css]

    def prune(self, html: str) -> str:
        without_styles = _STYLE.sub("", html)
        used = {c for m in re.finditer(r'class="([^"]*)"', without_styles) for c in m[1].split()}
        return _STYLE.sub(lambda m: m[1] + self._prune(m[2], used) + m[3], html)

    def _prune(self, css: str, used: set[str]) -> str:
        return _prune(self.rules(css), used)


def _rules(css: str) -> tuple[str, ...]:
    """Top-level rules and at-rule blocks of a stylesheet (comments are dropped)."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    rules, depth, start = [], 0, 0
    for i, char in enumerate(css):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                rules.append(css[start : i + 1])
                start = i + 1
        elif char == ";" and depth == 0:  # @charset, @import
            rules.append(css[start : i + 1])
            start = i + 1
    return tuple(rules)


def _selectors(selector_list: str) -> list[str]:
    """Split at the commas between selectors, not those inside :is(...) or [...]."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(selector_list):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(selector_list[start:i])
            start = i + 1
    return [*parts, selector_list[start:]]


def _prune(rules: tuple[str, ...], used: set[str]) -> str:
    kept = []
    for rule in rules:
        head, brace, body = rule.partition("{")
        selector = head.strip()
        if not brace or selector.startswith(("@font-face", "@keyframes", "@charset", "@import")):
            kept.append(rule)
        elif selector.startswith("@"):  # @media, @supports: prune inside
            inner = _prune(_rules(body[:-1]), used)
            if inner:
                kept.append(f"{head}{{{inner}}}")
        else:
            # A selector can match only if every class it requires is on the page.
            alive = [
                s for s in _selectors(selector) if set(_CLASS.findall(_NOT.sub("", s))) <= used
            ]
            if alive:
                kept.append(f"{','.join(alive)}{{{body}")
    return "".join(kept)


# Rendered Markdown cells: nbconvert leaves their maths as $...$ text for MathJax.
_MARKDOWN_CELL = re.compile(
    r'(<div class="[^"]*jp-RenderedMarkdown[^"]*"[^>]*>)(.*?)(</div>)', re.S
)
_DISPLAY_MATH = re.compile(r"\$\$(?P<tex>.+?)\$\$", re.S)
_INLINE = re.compile(INLINE_MATH)


def markdown_maths(html: str) -> str:
    """``$...$`` and ``$$...$$`` in the notebook's Markdown cells as MathML."""

    def convert(tex: str, display: bool) -> str:
        try:
            return to_mathml(html_lib.unescape(tex), display=display)
        except MathError:
            return tex  # left as written: a notebook is still readable with raw TeX

    def cell(match: re.Match[str]) -> str:
        body = _DISPLAY_MATH.sub(lambda m: convert(m["tex"], True), match[2])
        body = _INLINE.sub(lambda m: convert(m["tex"], False), body)
        return match[1] + body + match[3]

    return _MARKDOWN_CELL.sub(cell, html)
