"""An exercise, and the Previous / Next line under it, made from the navigation's order.

:class:`Exercise` is the one model of an exercise: the build links the exercises to
each other with it, and the notebooks (coursekit/notebooks/exercises.py) and the tests
read its page, snippet and notebook. Written by hand, the Previous / Next lines went
wrong as exercises were added (issue 17); made from the nav, they cannot disagree with it.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from pathlib import Path

from coursekit.markdown.page import title


@dataclass(frozen=True)
class Exercise:
    """One exercise: its page, the snippet that runs it, its notebook, its title."""

    slug: str  # "chain-rule"
    src: str  # its page, docs-relative: "practice/exercises/chain-rule.md"
    title: str  # the page's H1: "Exercise 2.2: The chain rule"
    page: Path  # docs/practice/exercises/<slug>.md
    snippet: Path  # snippets/practice/<slug_with_underscores>.py: starter, solution, check
    notebook: Path  # docs/practice/notebooks/<slug>.ipynb


def exercise(src: str, text: str, *, docs: Path, snippets: Path, notebooks: Path) -> Exercise:
    """The exercise whose page is ``src`` (docs-relative), ``text`` its source."""
    slug = posixpath.basename(src).removesuffix(".md")
    return Exercise(
        slug=slug,
        src=src,
        title=title(text),
        page=docs / src,
        snippet=snippets / f"{slug.replace('-', '_')}.py",
        notebook=notebooks / f"{slug}.ipynb",
    )


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
