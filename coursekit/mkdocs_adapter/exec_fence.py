"""markdown-exec formats the executed fences; it never executes anything itself.

markdown-exec's Python fence is replaced in ``on_config`` by :class:`ExecFence`, whose
validator and formatter hand markdown-exec's public ``base_format`` a ``run`` that
returns the precomputed output of the fence's block (found by its token, see
:meth:`coursekit.mkdocs_adapter.build.BuildRun.run`).
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
from coursekit.errors import CourseError
from coursekit.execution.page_run import BlockResult
from coursekit.mkdocs_adapter.build import TOKEN, BuildRun
from coursekit.mkdocs_adapter.errors import UntrackedBlock, in_fence

# Options of ours on an executed fence; markdown-exec must not see them.
OUR_OPTIONS = (TOKEN, "raises", "timeout", "timing", "changed")


@dataclass
class ExecFence:
    """The Python fence's validator and formatter for one build."""

    build: BuildRun
    markdown_settings: str  # digest of the Markdown settings: part of each render's memo
    rendered: dict[str, str]  # memo of rendered blocks (kept by the plugin across rebuilds)

    def install(self, config: MkDocsConfig) -> None:
        """Route markdown-exec's Python fences through this build's formatter; a
        CourseError of either stops the build (superfences would show the fence as code)."""
        superfences = config.mdx_configs.setdefault("pymdownx.superfences", {})
        for fence in superfences.setdefault("custom_fences", []):
            if fence.get("name") in {"python", "py"} and fence.get("class") in {"python", "py"}:
                fence["validator"] = in_fence(self.validator)
                fence["format"] = in_fence(self.formatter)

    def validator(
        self,
        language: str,
        inputs: dict[str, str],
        options: dict[str, Any],
        attrs: dict[str, Any],
        md: Markdown,
    ) -> bool:
        ours = {key: inputs.pop(key) for key in OUR_OPTIONS if key in inputs}
        if not mx_validator(language, inputs, options, attrs, md):
            return False
        if TOKEN not in ours:
            raise UntrackedBlock(
                "an executed Python fence that coursekit did not see "
                f"(is it indented, or inside raw HTML?):\n{inputs}"
            )
        options[TOKEN] = ours[TOKEN]
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
        token = options.pop(TOKEN)
        result = self.build.results[token]
        self.build.formatted.add(token)
        block = result.block
        if result.failure is not None:
            return error_box("This block failed", result.failure.report())
        if source.strip("\n") != block.code.strip("\n"):
            raise CourseError(f"{block.where}: the code shown is not the code that ran")
        memo = files.digest(
            self.markdown_settings, source, result.output, block.raises, block.timing, options
        )
        if memo not in self.rendered:
            if len(self.rendered) >= 4096:
                self.rendered.clear()
            self.rendered[memo] = self._render(source, options, result, md)
        shown = self.rendered[memo] + self._version_note(result)
        if token in self.build.drifted:
            shown = drift_box(self.build.drifted[token]) + shown
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
