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

import re
from collections.abc import Iterable

from coursekit import css
from coursekit.css import Node

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
    rules = [rule for sheet in stylesheets for rule in _slate_rules(css.rules(sheet), scope=_SCOPE)]
    body = "\n".join(rules)
    return f"/* Made by coursekit/content/dark_without_js.py */\n@media {DARK} {{\n{body}\n}}\n"


def with_dark_copies(page: str) -> str:
    """``page`` (HTML) with the slate rules of each of its ``<style>`` elements repeated
    in that element for a dark-scheme reader without JavaScript."""
    if "color-scheme=" not in page:
        return page
    return _STYLE.sub(lambda m: m[1] + _with_copies(m[2]) + m[3], page)


def _with_copies(style: str) -> str:
    if "color-scheme=" not in style:
        return style
    inner = style.replace("<![CDATA[", "", 1).replace(_CDATA_END, "", 1)
    copies = _copies(_rules_naming_a_scheme(inner))
    if not copies:
        return style
    if _CDATA_END in style:  # an SVG's <style>: the copies go inside its CDATA section
        head, _, tail = style.rpartition(_CDATA_END)
        return f"{head}{copies}{_CDATA_END}{tail}"
    return style + copies


def _copies(rules: str) -> str:
    found = _slate_rules(css.rules(rules), scope=_SCOPE)
    return f"@media {DARK} {{{''.join(found)}}}" if found else ""


def _rules_naming_a_scheme(text: str) -> str:
    """The top-level rules of ``text`` that name a colour scheme: all a page's style needs
    parsed (a notebook page holds 120 kB of styles and 2 such rules); the whole of
    ``text`` when one is inside an at-rule's block."""
    rules = {}
    for found in re.finditer(r"data-md-color-scheme=", text):
        opened, closed = text.rfind("{", 0, found.start()), text.rfind("}", 0, found.start())
        if opened > closed:  # inside a block: an at-rule's (braces never nest otherwise)
            return text
        end = text.find("}", found.end())
        rules[closed + 1] = text[closed + 1 : end + 1]
    return "".join(rules.values())


def _slate_rules(nodes: Iterable[Node], *, scope: str) -> list[str]:
    """Each rule (also in @media and @supports) with the slate scheme in a selector, for
    the default scheme: its other selectors left out, each kept one after ``scope``."""
    found = []
    for node in nodes:
        if node.type == "qualified-rule":
            selectors = [css.serialize(s) for s in css.selectors(node.prelude)]
            slate = [scope + _SLATE.sub(_DEFAULT, s) for s in selectors if _SLATE.search(s)]
            if slate:
                found.append(f"{', '.join(slate)} {{{css.serialize(node.content)}}}")
        elif (
            node.type == "at-rule"
            and node.lower_at_keyword in {"media", "supports"}
            and node.content is not None
        ):
            nested = _slate_rules(css.rules(node.content), scope=scope)
            if nested:
                condition = css.serialize(node.prelude).strip()
                block = "\n".join(nested)
                found.append(f"@{node.lower_at_keyword} {condition} {{\n{block}\n}}")
    return found
