"""The notebook pages of the site: mkdocs-jupyter's HTML, made fit for the site.

* no script or stylesheet from another host: nbconvert's MathJax and Mermaid loaders go;
* maths in Markdown cells becomes MathML at build time (as on every other page);
* JupyterLab's stylesheet loses the rules for classes the page does not use;
* a download link under the notebook's title.
"""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Iterable
from pathlib import Path

from coursekit import css
from coursekit.content.mathml import (
    INLINE_MATH_WITH_PUNCTUATION,
    MathError,
    to_mathml,
    with_punctuation,
)
from coursekit.css import Node

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
_ANY_OF = frozenset({"not", "is", "where", "has"})
# At-rules kept whole; any other at-rule with a block (@media, @supports) is pruned inside.
_WHOLE = frozenset({"font-face", "keyframes", "charset", "import"})


class StylePruner:
    """Drops the unused rules of a page's stylesheets; remembers how each stylesheet
    splits into rules, since every notebook page inlines the same one (splitting it is
    most of the work). The build keeps one for the life of the process."""

    def __init__(self) -> None:
        self._split: dict[str, tuple[Node, ...]] = {}

    def rules(self, sheet: str) -> tuple[Node, ...]:
        if sheet not in self._split:
            if len(self._split) > 16:  # a handful of stylesheets, never more
                self._split.clear()
            self._split[sheet] = tuple(css.rules(sheet))
        return self._split[sheet]

    def prune(self, html: str) -> str:
        without_styles = _STYLE.sub("", html)
        used = {c for m in re.finditer(r'class="([^"]*)"', without_styles) for c in m[1].split()}
        return _STYLE.sub(lambda m: m[1] + self._prune(m[2], used) + m[3], html)

    def _prune(self, sheet: str, used: set[str]) -> str:
        return _prune(self.rules(sheet), used)


def _required(selector: Iterable[Node]) -> set[str]:
    """The classes an element must have for ``selector`` to match it (a "." inside a
    string, as in [data-mime-type="application/vnd.jupyter.stderr"], is no class)."""
    classes: set[str] = set()
    previous = None
    for token in selector:
        if token.type == "ident" and previous == ".":
            classes.add(token.value)
        elif token.type == "function" and token.lower_name not in _ANY_OF:
            classes |= _required(token.arguments)
        elif token.type in ("[] block", "() block"):
            classes |= _required(token.content)
        previous = token
    return classes


def _prune(rules: Iterable[Node], used: set[str]) -> str:
    kept = []
    for rule in rules:
        if rule.type == "qualified-rule":
            # A selector can match only if every class it requires is on the page.
            alive = [css.serialize(s) for s in css.selectors(rule.prelude) if _required(s) <= used]
            if alive:
                kept.append(f"{','.join(alive)}{{{css.serialize(rule.content)}}}")
        elif rule.type == "at-rule":
            if rule.content is None or rule.lower_at_keyword in _WHOLE:
                kept.append(rule.serialize())
                continue
            inner = _prune(css.rules(rule.content), used)  # @media, @supports: prune inside
            if inner:
                kept.append(f"@{rule.at_keyword}{css.serialize(rule.prelude)}{{{inner}}}")
        # Else a parse error, which a browser drops too. mkdocs-jupyter 0.26 writes one
        # <style> as a Python list's repr ("['pre { ...'"): one error, the whole sheet.
    return "".join(kept)


# Rendered Markdown cells: nbconvert leaves their maths as $...$ text for MathJax.
_MARKDOWN_CELL = re.compile(
    r'(<div class="[^"]*jp-RenderedMarkdown[^"]*"[^>]*>)(.*?)(</div>)', re.S
)
_DISPLAY_MATH = re.compile(r"\$\$(?P<tex>.+?)\$\$", re.S)
# With the punctuation around it, kept on the line of the maths (as on the other pages).
_INLINE = re.compile(INLINE_MATH_WITH_PUNCTUATION)


def markdown_maths(html: str) -> str:
    """``$...$`` and ``$$...$$`` in the notebook's Markdown cells as MathML."""

    def convert(tex: str, display: bool) -> str:
        try:
            return to_mathml(html_lib.unescape(tex), display=display)
        except MathError:
            return tex  # left as written: a notebook is still readable with raw TeX

    def cell(match: re.Match[str]) -> str:
        body = _DISPLAY_MATH.sub(lambda m: convert(m["tex"], True), match[2])
        body = _INLINE.sub(
            lambda m: with_punctuation(convert(m["tex"], False), m["open"] or "", m["close"] or ""),
            body,
        )
        return match[1] + body + match[3]

    return _MARKDOWN_CELL.sub(cell, html)
