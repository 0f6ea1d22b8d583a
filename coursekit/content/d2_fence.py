"""The ```` ```d2 alt="..." caption="..." ```` fence: a diagram drawn at build time.

Registered with pymdownx.superfences in ``mkdocs.yml`` (``custom_fences``). The build
writes every d2 fence's page and line on it first (:mod:`coursekit.markdown.where`), so
an error names the Markdown file's own line; the diagram itself comes from
:func:`coursekit.figures.d2.d2_figure`, with the renderer the build put in effect.
"""

from __future__ import annotations

from typing import Any

from coursekit.content.errors import FenceFailure
from coursekit.figures.d2 import DiagramError, d2_figure
from coursekit.markdown import where


def validator(
    language: str, inputs: dict[str, str], options: dict[str, Any], attrs: dict[str, Any], md: Any
) -> bool:
    """Accept ``alt="..."`` (required) and ``caption="..."``; refuse anything else."""
    here = where.pop(inputs)
    at = str(here) if here is not None else ""
    unknown = sorted(set(inputs) - {"alt", "caption"})
    if unknown:
        raise FenceFailure(
            f"{at or 'd2 fence'}: unknown option(s) {', '.join(unknown)}; "
            'a d2 fence takes alt="..." and caption="..."'
        )
    if not inputs.get("alt", "").strip():
        raise FenceFailure(
            f'{at or "d2 fence"}: a d2 fence needs alt="..." text that describes the diagram'
        )
    options.update(alt=inputs["alt"], caption=inputs.get("caption", ""), where=at)
    return True


def formatter(
    source: str, language: str, css_class: str, options: dict[str, Any], md: Any, **kwargs: Any
) -> str:
    """The superfences formatter: the figure's HTML."""
    try:
        return d2_figure(
            source,
            alt=options.get("alt", ""),
            caption=options.get("caption", ""),
            where=options.get("where", ""),
        )
    except DiagramError as error:
        raise FenceFailure(str(error)) from None
