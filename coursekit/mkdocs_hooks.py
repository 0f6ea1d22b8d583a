"""MkDocs hooks: wire executed fences, maths, diagrams, quizzes and notebooks into the build.

Loaded from ``mkdocs.yml`` (``hooks:``). Each job lives in its own module; this file
only calls them at the right moment. Every check fails the build with the Markdown
file and line, so nothing half-built is reported as a success.

MkDocs loads this module once per process, and `mkdocs serve` rebuilds in the same
process: so nothing here keeps build state in a module global. ``on_config`` makes a
fresh :class:`coursekit.build_exec.BuildRun` for every build.
"""

from __future__ import annotations

import logging
from typing import Literal

from jinja2 import Environment
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from coursekit import (
    copy_buttons,
    interview_index,
    notebook_execution,
    notebooks,
    quiz,
    rebuild_memo,
)
from coursekit.build_exec import BuildRun, stamp_version
from coursekit.fences import tag_fences

log = logging.getLogger("mkdocs.hooks.coursekit")


class _Process:
    """What stays true for the whole `mkdocs` process (not per build): its command."""

    command: str = "build"
    build: BuildRun | None = None  # the build in progress, replaced by every on_config


def on_startup(*, command: Literal["build", "gh-deploy", "serve"], dirty: bool) -> None:
    _Process.command = command
    if command == "serve":
        # Rebuilds re-render only the pages whose inputs changed (coursekit/rebuild_memo.py).
        rebuild_memo.install()


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    copy_buttons.check_features(list(config.theme.get("features") or []))
    build = BuildRun.for_config(config, serving=_Process.command == "serve")
    build.install(config)
    _Process.build = build
    return config


def _build() -> BuildRun:
    if _Process.build is None:
        raise PluginError("coursekit: on_config did not run before the pages were built")
    return _Process.build


@event_priority(-100)  # after mkdocs-jupyter has claimed the notebook files
def on_files(files: Files, config: MkDocsConfig) -> Files:
    notebook_execution.start(files, config)
    if _Process.command == "serve":
        rebuild_memo.MEMO.begin(_build(), config, files)
    return files


def on_env(env: Environment, config: MkDocsConfig, files: Files) -> Environment:
    if _Process.command == "serve":  # MkDocs makes a new environment for every rebuild
        env.bytecode_cache = rebuild_memo.TEMPLATES
    return env


@event_priority(100)  # before mkdocs-jupyter renders a notebook page
def on_pre_page(page: Page, config: MkDocsConfig, files: Files) -> Page:
    notebook_execution.use_executed_copy(page)
    return page


@event_priority(100)  # before mkdocs-jupyter copies the download next to the page
def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    notebook_execution.restore_source(page)
    return output


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    build = _build()
    src = build.page_src(page)
    # MkDocs strips the front matter before this hook: count it back so lines match the file.
    raw = page.file.content_string
    offset = max(0, len(raw.split("\n")) - len(markdown.split("\n")))
    markdown = build.page_markdown(markdown, page, offset)
    markdown = tag_fences(markdown, src, offset)  # d2 fences: file and line for errors
    if build.page_tokens.get(src):
        markdown = stamp_version(markdown)
    # Interview pages: short answer, meta description, index and summary.
    markdown = interview_index.on_page_markdown(markdown, page, config, files)
    # Practice pages: ```quiz blocks become accessible HTML; a broken quiz fails the build.
    try:
        return rebuild_memo.MEMO.quiz_page(markdown, page, config, files)
    except quiz.QuizError as error:
        raise PluginError(str(error)) from None


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    _build().check_page_content(page)
    # Notebook pages: a download link, no script from another host, no unused styles.
    html = notebooks.page_content(html, page)
    return copy_buttons.add(html)


def on_post_build(config: MkDocsConfig) -> None:
    summary = _build().summary()
    if rebuild_memo.MEMO.build is not None:
        summary += f"; {rebuild_memo.MEMO.end()}"
    log.info("%s", summary)
