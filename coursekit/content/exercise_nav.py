"""The Previous / Next line under an exercise, made from the navigation's exercise order.

Written by hand, these lines went wrong as exercises were added (issue 17); made from
the nav, they cannot disagree with it.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass


@dataclass(frozen=True)
class Exercise:
    src: str  # docs-relative: "practice/exercises/chain-rule.md"
    title: str  # "Exercise 2.2: The chain rule"


def links(exercises: list[Exercise], src: str) -> str:
    """The Markdown line for the exercise ``src`` ("" when it is not an exercise)."""
    index = next((i for i, e in enumerate(exercises) if e.src == src), None)
    if index is None:
        return ""
    here = posixpath.dirname(src)
    parts = []
    for label, other in (("Previous", index - 1), ("Next", index + 1)):
        if 0 <= other < len(exercises):
            target = exercises[other]
            link = posixpath.relpath(target.src, here)
            parts.append(f"{label}: [{target.title}]({link}).")
    return " ".join(parts)


def append(markdown: str, line: str) -> str:
    if not line:
        return markdown
    return f"{markdown.rstrip()}\n\n{line}\n"
