"""The executed Python fence: markdown-exec's validator and ``base_format``, our ``run``.

In ``on_config`` the plugin adds this build's ``python`` and ``py`` fences to
pymdownx.superfences (markdown-exec's plugin adds none: ``languages: []`` in
mkdocs.yml), as markdown-exec's own plugin adds its fences. Each is a custom formatter
in markdown-exec's public style: its validator reads the fence's options, and
``base_format`` renders the block, calling a ``run`` that answers with the output of
the fence's block, run by ``on_page_markdown`` just before MkDocs renders the page. The
fence names its block by the place ``on_page_markdown`` wrote on it
(:mod:`coursekit.markdown.where`; :class:`coursekit.mkdocs_adapter.build.PageResults`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from markdown import Markdown
from markdown_exec import base_format
from markdown_exec import validator as mx_validator
from mkdocs.config.defaults import MkDocsConfig

from coursekit import files
from coursekit.content.output_box import (
    drift_box,
    error_box,
    label_output,
    timing_note,
    version_note,
)
from coursekit.execution.page_run import BlockResult
from coursekit.markdown import where
from coursekit.mkdocs_adapter.build import BuildRun
from coursekit.mkdocs_adapter.errors import UntrackedBlock
from coursekit.mkdocs_adapter.superfences import add_fences

# Options of ours on an executed fence (the page scan read them); markdown-exec must
# not see them.
OUR_OPTIONS = ("raises", "timeout", "timing", "changed")
LANGUAGES = ("python", "py")


@dataclass
class ExecFence:
    """The Python fence's validator and formatter for one build."""

    build: BuildRun
    markdown_settings: str  # digest of the Markdown settings: part of each render's memo
    rendered: dict[str, str]  # memo of rendered blocks (kept by the plugin across rebuilds)

    def install(self, config: MkDocsConfig) -> None:
        """Add this build's Python fences; a CourseError of either function stops the
        build (superfences would show the fence as code)."""
        add_fences(
            config,
            LANGUAGES,
            self.validator,
            self.formatter,
            if_taken="coursekit shows executed Python blocks itself (give markdown-exec "
            "`languages: []`)",
        )

    def validator(
        self,
        language: str,
        inputs: dict[str, str],
        options: dict[str, Any],
        attrs: dict[str, Any],
        md: Markdown,
    ) -> bool:
        here = where.pop(inputs)
        for key in OUR_OPTIONS:
            inputs.pop(key, None)
        if not mx_validator(language, inputs, options, attrs, md):
            return False
        options[where.AT] = here
        return True

    def formatter(
        self,
        source: str,
        language: str,
        css_class: str,
        options: dict[str, Any],
        md: Markdown,
        **kwargs: Any,
    ) -> str:
        here = options.pop(where.AT, None)
        page = self.build.pages.get(here.page) if here is not None else None
        if here is None or page is None:
            first = source.strip().split("\n")[0]
            raise UntrackedBlock(
                "an executed Python fence that coursekit did not see (is it indented, or "
                f"inside raw HTML?), starting: {first}"
            )
        result, drifted = page.take(here, source)
        block = result.block
        if result.failure is not None:
            return error_box("This block failed", result.failure.report())
        memo = files.digest(
            self.markdown_settings, source, result.output, block.raises, block.timing, options
        )
        if memo not in self.rendered:
            if len(self.rendered) >= 4096:
                self.rendered.clear()
            self.rendered[memo] = self._render(source, options, result, md)
        shown = self.rendered[memo] + self._version_note(result)
        if drifted is not None:
            shown = drift_box(drifted) + shown
        if result.after_failure:
            note = "An earlier block of this page failed: this one ran after it."
            return error_box("Ran after a failure", note) + shown
        return shown

    def _version_note(self, result: BlockResult) -> str:
        block = result.block
        if not block.changed:
            return ""
        older = self.build.older.output(block)
        if older is None:  # under `mkdocs serve`: the terminal and the page say why
            return ""
        note = self.build.older.note(block)
        return version_note(note.since, note.before, note.change, note.reference, older)

    def _render(
        self, source: str, options: dict[str, Any], result: BlockResult, md: Markdown
    ) -> str:
        block = result.block
        # html="on" blocks print figures: show the result only, unless asked for the source.
        show_source = options.get("source") or ("" if block.html else "block")
        id_prefix = options.get("id_prefix")
        rendered = str(
            base_format(
                **{
                    **options,
                    "language": "python",
                    "run": lambda code, **_: result.output,
                    "code": source,
                    "md": md,
                    "source": show_source,
                    "result": "" if block.html else "text",
                    "id_prefix": "" if id_prefix is None else id_prefix,
                    "session": None,
                }
            )
        )
        if block.html:
            return rendered
        rendered = label_output(rendered, expected=block.raises)
        return rendered + timing_note() if block.timing else rendered
