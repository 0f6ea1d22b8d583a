"""The dark scheme without JavaScript, made from the site's own slate rules.

Material's colour schemes hang on ``<body data-md-color-scheme="...">``, and a script
(overrides/partials/palette.html) sets it from the reader's choice or system setting.
Without JavaScript the body keeps the first scheme, ``default``, so a reader whose system
is dark got the light scheme. Every rule written for the slate scheme is therefore
written again for the ``default`` scheme, inside ``@media (prefers-color-scheme: dark)``,
where only a browser that runs no script sees it:

* :func:`dark_without_js`: the rules of the stylesheets the pages link (the theme's and
  the site's), as one stylesheet that overrides/main.html links inside ``<noscript>``
  (a browser running scripts never loads it);
* :func:`with_dark_copies`: the rules of the ``<style>`` elements written into a page
  (a D2 diagram's own colours, a notebook page's JupyterLab colours), copied into the
  same element.

Every copy is under ``.no-js``, the class Material gives ``<html>`` and
overrides/main.html replaces with ``js`` as soon as scripts run: it never applies with
JavaScript, and it wins over the light rule it answers (one class more).

Nothing of Material's palette is copied by hand: a theme upgrade changes the result
with the theme. Left as it was: a light rule that no slate rule answers (Material's
``#only-dark`` images; the site has none).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

import tinycss2
from tinycss2.ast import AtRule, Node, QualifiedRule

DARK = "(prefers-color-scheme: dark)"
# The slate scheme's attribute selector, quoted or not; `:not([...slate])` is left out.
_SLATE = re.compile(r"""(?<!:not\()\[data-md-color-scheme=(["']?)slate\1\]""")
_DEFAULT = "[data-md-color-scheme=default]"
# <html class="no-js">, until a script runs: one class more than the light rule each copy
# answers, so the copy wins wherever that rule is (a stylesheet linked in a page's
# content, as a step-through's is, comes after overrides/main.html's <noscript>).
_SCOPE = ".no-js "
_STYLE = re.compile(r"(<style\b[^>]*>)(.*?)(</style>)", re.S)
_CDATA_END = "]]>"


def dark_without_js(stylesheets: Iterable[str]) -> str:
    """The slate rules of ``stylesheets`` (CSS text, in the order the pages link them),
    for the default scheme of a dark-scheme reader: a stylesheet."""
    rules = [rule for css in stylesheets for rule in _slate_rules(_parse(css), scope=_SCOPE)]
    body = "\n".join(rules)
    return f"/* Made by coursekit/content/dark_without_js.py */\n@media {DARK} {{\n{body}\n}}\n"


def with_dark_copies(page: str) -> str:
    """``page`` (HTML) with the slate rules of each of its ``<style>`` elements repeated
    in that element for a dark-scheme reader without JavaScript."""
    if "color-scheme=" not in page:
        return page
    return _STYLE.sub(lambda m: m[1] + _with_copies(m[2]) + m[3], page)


def _with_copies(css: str) -> str:
    if "color-scheme=" not in css:
        return css
    inner = css.replace("<![CDATA[", "", 1).replace(_CDATA_END, "", 1)
    copies = _copies(_rules_naming_a_scheme(inner))
    if not copies:
        return css
    if _CDATA_END in css:  # an SVG's <style>: the copies go inside its CDATA section
        head, _, tail = css.rpartition(_CDATA_END)
        return f"{head}{copies}{_CDATA_END}{tail}"
    return css + copies


@functools.lru_cache(maxsize=256)  # every notebook page has the same JupyterLab rules
def _copies(rules: str) -> str:
    found = _slate_rules(_parse(rules), scope=_SCOPE)
    return f"@media {DARK} {{{''.join(found)}}}" if found else ""


def _rules_naming_a_scheme(css: str) -> str:
    """The top-level rules of ``css`` that name a colour scheme: all a page's style needs
    parsed (a notebook page holds 120 kB of styles and 2 such rules); the whole of
    ``css`` when one is inside an at-rule's block."""
    rules = {}
    for found in re.finditer(r"data-md-color-scheme=", css):
        opened, closed = css.rfind("{", 0, found.start()), css.rfind("}", 0, found.start())
        if opened > closed:  # inside a block: an at-rule's (braces never nest otherwise)
            return css
        end = css.find("}", found.end())
        rules[closed + 1] = css[closed + 1 : end + 1]
    return "".join(rules.values())


def _parse(css: str) -> list[Node]:
    return tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True)


def _slate_rules(nodes: Iterable[Node], *, scope: str) -> list[str]:
    """Each rule (also in @media and @supports) with the slate scheme in a selector, for
    the default scheme: its other selectors left out, each kept one after ``scope``."""
    found = []
    for node in nodes:
        if isinstance(node, QualifiedRule):
            selectors = _split(tinycss2.serialize(node.prelude))
            slate = [scope + _SLATE.sub(_DEFAULT, s) for s in selectors if _SLATE.search(s)]
            if slate:
                found.append(f"{', '.join(slate)} {{{tinycss2.serialize(node.content)}}}")
        elif (
            isinstance(node, AtRule)
            and node.lower_at_keyword in {"media", "supports"}
            and node.content is not None
        ):
            inner = tinycss2.parse_rule_list(node.content, skip_comments=True, skip_whitespace=True)
            nested = _slate_rules(inner, scope=scope)
            if nested:
                condition = tinycss2.serialize(node.prelude).strip()
                block = "\n".join(nested)
                found.append(f"@{node.lower_at_keyword} {condition} {{\n{block}\n}}")
    return found


def _split(selector_list: str) -> list[str]:
    """A selector list split at its top-level commas (not those inside :is(...))."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(selector_list):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(selector_list[start:i].strip())
            start = i + 1
    parts.append(selector_list[start:].strip())
    return [p for p in parts if p]
