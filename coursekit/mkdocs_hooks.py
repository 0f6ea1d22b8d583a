"""MkDocs hooks: wire executed fences, maths and diagrams into the build.

Loaded from ``mkdocs.yml`` (``hooks:``). Every check here fails the build with
the Markdown file and line, so nothing half-built is reported as a success.
"""

from __future__ import annotations

import logging
import re
from importlib.metadata import version
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

from coursekit import (
    exec_fence,
    includes,
    interview_index,
    notebook_execution,
    notebooks,
    quiz,
)
from coursekit.fences import FenceError, executed_fences, session_name, tag_fences

log = logging.getLogger("mkdocs.hooks.coursekit")

TORCH_VERSION = version("torch").split("+")[0]

_expected: dict[str, list[str]] = {}
_stats = {"pages": 0, "blocks": 0}


def on_config(config: Any) -> Any:
    fences = (
        config["mdx_configs"].setdefault("pymdownx.superfences", {}).setdefault("custom_fences", [])
    )
    for fence in fences:
        if fence.get("name") in {"python", "py"} and fence.get("class") in {"python", "py"}:
            fence["validator"] = exec_fence.validator
            fence["format"] = exec_fence.formatter
    _stats.update(pages=0, blocks=0)
    return config


@event_priority(-100)  # after mkdocs-jupyter has claimed the notebook files
def on_files(files: Any, config: Any) -> Any:
    notebook_execution.start(files, config)
    return files


@event_priority(100)  # before mkdocs-jupyter renders a notebook page
def on_pre_page(page: Any, config: Any, files: Any) -> Any:
    notebook_execution.use_executed_copy(page)
    return page


@event_priority(100)  # before mkdocs-jupyter copies the download next to the page
def on_post_page(output: str, page: Any, config: Any) -> str:
    notebook_execution.restore_source(page)
    return output


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    src = f"docs/{page.file.src_uri}"
    raw = page.file.content_string if hasattr(page.file, "content_string") else markdown
    # MkDocs strips the front matter before this hook: count it back so lines match the file.
    offset = max(0, len(raw.split("\n")) - len(markdown.split("\n")))
    snippets = config["mdx_configs"].get("pymdownx.snippets", {})
    try:
        executed = executed_fences(markdown, src)
        includes.check_page(
            markdown, src, offset, snippets, Path(config["config_file_path"]).parent
        )
    except FenceError as error:
        raise PluginError(_shift(str(error), offset)) from None
    except includes.IncludeError as error:
        raise PluginError(str(error)) from None
    for fence in executed:
        _reset_session(session_name(src, fence))
    _expected[src] = [f"{src}:{fence.line + offset}" for fence in executed]
    lines = tag_fences(markdown, src, offset).split("\n")
    if executed:
        lines = _stamp_version(lines)
    # Interview pages: short answer, meta description, index and summary.
    markdown = interview_index.on_page_markdown("\n".join(lines), page, config, files)
    # Practice pages: ```quiz blocks become accessible HTML; a broken quiz fails the build.
    try:
        return quiz.render_page(markdown, page, config, files)
    except quiz.QuizError as error:
        raise PluginError(str(error)) from None


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    src = f"docs/{page.file.src_uri}"
    missing = [where for where in _expected.get(src, []) if where not in exec_fence.EXECUTED]
    if missing:
        # A fence the scanner saw but markdown-exec never ran (e.g. swallowed by raw HTML).
        raise PluginError(f"{missing[0]}: this block was never executed by the build")
    if _expected.get(src):
        _stats["pages"] += 1
        _stats["blocks"] += len(_expected[src])
    # Notebook pages: a download link, no script from another host, no unused styles.
    return notebooks.page_content(html, page)


def on_post_build(config: Any) -> None:
    log.info(
        "coursekit: executed %d blocks on %d pages (PyTorch %s)",
        _stats["blocks"],
        _stats["pages"],
        TORCH_VERSION,
    )


def _stamp_version(lines: list[str]) -> list[str]:
    stamp = (
        f'<p class="run-stamp">Every output on this page was printed by its code, run '
        f"when the site was built with PyTorch {TORCH_VERSION} on a CPU.</p>"
    )
    for i, line in enumerate(lines):
        if line.startswith("# "):
            return [*lines[: i + 1], "", stamp, "", *lines[i + 1 :]]
    return [stamp, "", *lines]


def _reset_session(name: str) -> None:
    # markdown-exec keeps sessions for the life of the process; under `mkdocs serve`
    # a rebuilt page must start from a clean slate, not from the previous build.
    from markdown_exec._internal.formatters import python as mx_python

    mx_python._sessions_globals.pop(name, None)


def _shift(message: str, offset: int) -> str:
    match = re.match(r"^(?P<path>[^:]+):(?P<line>\d+):(?P<rest>.*)$", message, re.S)
    if not match or not offset:
        return message
    return f"{match['path']}:{int(match['line']) + offset}:{match['rest']}"
