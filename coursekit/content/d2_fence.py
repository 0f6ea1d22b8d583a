"""The ```` ```d2 alt="..." caption="..." ```` fence: a diagram drawn at build time.

Registered with pymdownx.superfences in ``mkdocs.yml`` (``custom_fences``). The build
tags every d2 fence with its page and line first (``mdpage``/``mdline``), so an error
names the Markdown file's own line; the diagram itself comes from
:func:`coursekit.figures.d2.d2_figure`, with the renderer the build put in effect.
"""

from __future__ import annotations

from typing import Any

from coursekit.content.errors import FenceFailure
from coursekit.figures.d2 import DiagramError, d2_figure
from coursekit.markdown.page import PageSource

WHERE = ("mdpage", "mdline")  # the tags the build adds to every d2 fence


def tag_fences(markdown: str, source: PageSource) -> str:
    """``markdown`` (the page's expanded text) with every d2 fence tagged with its page and
    its line in the file, for its errors."""
    lines = markdown.split("\n")
    for fence in source.fences:
        if fence.lang == "d2":
            index = source.expanded_line(fence.line) - 1
            line = source.file_line(fence.line)
            lines[index] = f'{lines[index]} {WHERE[0]}="{source.path}" {WHERE[1]}="{line}"'
    return "\n".join(lines)


def validator(
    language: str, inputs: dict[str, str], options: dict[str, Any], attrs: dict[str, Any], md: Any
) -> bool:
    """Accept ``alt="..."`` (required) and ``caption="..."``; refuse anything else."""
    where = ""
    if WHERE[0] in inputs:
        where = f"{inputs.pop(WHERE[0])}:{inputs.pop(WHERE[1], '?')}"
    unknown = sorted(set(inputs) - {"alt", "caption"})
    if unknown:
        raise FenceFailure(
            f"{where or 'd2 fence'}: unknown option(s) {', '.join(unknown)}; "
            'a d2 fence takes alt="..." and caption="..."'
        )
    if not inputs.get("alt", "").strip():
        raise FenceFailure(
            f'{where or "d2 fence"}: a d2 fence needs alt="..." text that describes the diagram'
        )
    options.update(alt=inputs["alt"], caption=inputs.get("caption", ""), where=where)
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
