"""Stylesheets read as rules and selectors: the one tinycss2 walker of the engine.

D2's SVG styles are scoped to their diagram (:mod:`coursekit.figures.d2`), notebook pages
lose JupyterLab's unused rules (:mod:`coursekit.notebooks.page_cleanup`), and the slate
rules are copied for a dark-scheme reader without JavaScript
(:mod:`coursekit.content.dark_without_js`): all read CSS through these few functions, so
a rule, an at-rule and a selector list mean the same to each.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import tinycss2

Node = Any  # a tinycss2 node: tinycss2 ships no type information


def rules(css: str | Iterable[Node]) -> list[Node]:
    """The rules of a stylesheet, or of an at-rule's block, without comments and white
    space between them (a parse error is a node of type "error")."""
    return tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True)


def prelude(rule: Node) -> str:
    """A rule's prelude as text: "@keyframes dashdraw", ".d2-1 .fill-N1, .d2-1 .x"."""
    at = f"@{rule.at_keyword}" if rule.type == "at-rule" else ""
    return (at + tinycss2.serialize(rule.prelude)).strip()


def selectors(prelude_tokens: Sequence[Node]) -> list[list[Node]]:
    """A selector list split at its top-level commas, each without the white space at its
    ends. The commas inside :is(...) or [...] are inside a block token of their own, so
    they are not at the top level."""
    found: list[list[Node]] = [[]]
    for token in prelude_tokens:
        if token == ",":
            found.append([])
        else:
            found[-1].append(token)
    return [list(_trimmed(tokens)) for tokens in found]


def serialize(nodes: Iterable[Node]) -> str:
    return tinycss2.serialize(nodes)


def _trimmed(tokens: Sequence[Node]) -> Sequence[Node]:
    start, end = 0, len(tokens)
    while start < end and tokens[start].type == "whitespace":
        start += 1
    while end > start and tokens[end - 1].type == "whitespace":
        end -= 1
    return tokens[start:end]
