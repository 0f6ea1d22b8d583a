"""coursekit's fences, added to pymdownx.superfences the way markdown-exec adds its own.

The executed Python fence (:mod:`~coursekit.mkdocs_adapter.exec_fence`) and the quiz
fences (:mod:`~coursekit.mkdocs_adapter.quiz_fence`) register here, in ``on_config``:
each language a custom fence whose validator and formatter stop the build on a
CourseError (superfences would otherwise show the fence as code).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from mkdocs.config.defaults import MkDocsConfig

from coursekit.errors import CourseError
from coursekit.mkdocs_adapter.errors import in_fence


def add_fences(
    config: MkDocsConfig,
    languages: Iterable[str],
    validator: Callable[..., bool],
    formatter: Callable[..., str],
    *,
    if_taken: str,
) -> None:
    """Register ``languages``; ``if_taken`` says what to do when another plugin or
    mkdocs.yml registered one of them already (two formatters for one fence: refused)."""
    fences = config.mdx_configs.setdefault("pymdownx.superfences", {}).setdefault(
        "custom_fences", []
    )
    taken = sorted({fence.get("name") for fence in fences} & set(languages))
    if taken:
        raise CourseError(
            f"mkdocs.yml: another fence is registered for {', '.join(taken)}: {if_taken}"
        )
    for name in languages:
        fences.append(
            {
                "name": name,
                "class": name,
                "validator": in_fence(validator),
                "format": in_fence(formatter),
            }
        )
