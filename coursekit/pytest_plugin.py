"""Teach pytest-markdown-docs how the site runs its blocks (the drift check).

pytest-markdown-docs collects every ``python`` fence and runs each on its own.
Through its two extension points, a Markdown parser hook and a named runner,
this plugin makes it run the Markdown exactly as the build does:

* only ``exec="on"`` fences are collected; display-only fences are skipped;
* ``--8<--`` includes are expanded with the build's own pymdownx.snippets;
* a page's blocks share one session, in order (earlier blocks are replayed
  when a single block is selected with ``-k``);
* ``raises=`` and the time limit behave as in the build (same ``run_block``);
* each block's output is compared with ``tests/recorded_outputs.yml``;
  ``--record-outputs`` rewrites that record instead.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt
from pytest_markdown_docs._runners import _Runner, register_runner
from pytest_markdown_docs.definitions import FenceTestDefinition

from coursekit import includes
from coursekit.execution import DEFAULT_TIMEOUT, BlockError, run_block
from coursekit.fences import Fence, FenceError, executed_fences, parse_attrs, session_name
from coursekit.record import Record, drift_report

TORCH_VERSION = version("torch").split("+")[0]
RUNNER = "CourseRunner"


class DriftError(AssertionError):
    """A block's output differs from the record."""


@dataclass
class _State:
    root: Path = Path(".")
    config_file: Path = Path("mkdocs.yml")
    record: Record = field(default_factory=lambda: Record(Path("recorded_outputs.yml")))
    rewrite: bool = False
    sessions: dict[str, dict[str, Any]] = field(default_factory=dict)
    done: set[str] = field(default_factory=set)
    rewritten: set[str] = field(default_factory=set)


STATE = _State()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("course", "course site drift check")
    group.addoption(
        "--record-outputs",
        action="store_true",
        help="rewrite the recorded outputs from this run (after reviewing the diff)",
    )
    group.addoption(
        "--outputs-record",
        default="tests/recorded_outputs.yml",
        help="record of expected outputs, relative to the rootdir",
    )
    group.addoption(
        "--mkdocs-config",
        default="mkdocs.yml",
        help="mkdocs.yml whose pymdownx.snippets settings resolve includes",
    )


def pytest_configure(config: pytest.Config) -> None:
    from coursekit import diagrams

    diagrams.TEXT_ONLY = True
    root = Path(config.rootpath)
    STATE.root = root
    STATE.config_file = root / config.getoption("--mkdocs-config")
    STATE.record = Record.load(root / config.getoption("--outputs-record"))
    STATE.rewrite = bool(config.getoption("--record-outputs"))
    STATE.sessions.clear()
    STATE.done.clear()
    STATE.rewritten.clear()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if STATE.rewrite and STATE.done:
        STATE.record.torch = TORCH_VERSION
        STATE.record.save(pages={where.rsplit(":", 1)[0] for where in STATE.done})


class _CourseMarkdownIt(MarkdownIt):
    """Marks which fences pytest-markdown-docs should run, and with which runner."""

    def parse(self, src: str, env: Any = None) -> list[Any]:
        tokens = super().parse(src, env)
        for token in tokens:
            if token.type != "fence":
                continue
            lang, _, rest = token.info.strip().partition(" ")
            if lang.lower() not in {"python", "py", "python3"}:
                continue
            executed = parse_attrs(rest).get("exec", "").lower() in {"on", "1", "yes", "true"}
            token.info = f"python runner:{RUNNER}" if executed else "python notest"
        return tokens


@pytest.hookimpl(tryfirst=True)
def pytest_markdown_docs_markdown_it() -> MarkdownIt:
    return _CourseMarkdownIt("commonmark")


@cache
def _page_fences(path: Path) -> tuple[str, list[Fence]]:
    page = path.resolve().relative_to(STATE.root.resolve()).as_posix()
    return page, executed_fences(path.read_text(encoding="utf-8"), page)


@register_runner()
class CourseRunner(_Runner):
    def runtest(self, test: FenceTestDefinition, args: dict[str, Any]) -> None:
        page, fences = _page_fences(Path(test.source_path))
        index = next(i for i, f in enumerate(fences) if f.line == test.start_line)
        fence = fences[index]
        session = session_name(page, fence)
        for earlier in fences[:index]:
            if session_name(page, earlier) == session and earlier.where not in STATE.done:
                _run(page, earlier, session)
        output = _run(page, fence, session)
        block = index + 1
        if STATE.rewrite:
            if page not in STATE.rewritten:
                STATE.rewritten.add(page)
                STATE.record.pages[page] = {}  # drop blocks that no longer exist
            STATE.record.pages[page][block] = output
            return
        expected = STATE.record.expected(page, block)
        if expected != output:
            raise DriftError(
                drift_report(
                    fence.where, block, expected, output, STATE.record.torch, TORCH_VERSION
                )
            )

    def repr_failure(
        self,
        test: FenceTestDefinition,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: Any = None,
    ) -> str:
        error = excinfo.value
        if isinstance(error, DriftError | BlockError | FenceError | includes.IncludeError):
            return str(error)
        # An unexpected exception: show only the frames inside the Markdown page.
        page = Path(test.source_path).resolve().relative_to(STATE.root.resolve()).as_posix()
        frames = [f for f in traceback.extract_tb(excinfo.tb) if f.filename == page]
        where = f"{page}:{frames[-1].lineno}" if frames else f"{page}:{test.start_line}"
        lines = [f"{where}: {type(error).__name__}: {error}", "Traceback (in the page):"]
        lines += [f"  {f.filename}:{f.lineno}: {f.line}" for f in frames]
        return "\n".join(lines)


def _run(page: str, fence: Fence, session: str) -> str:
    namespace = STATE.sessions.setdefault(session, {"__name__": "__course__"})
    options = dict(includes.snippet_options(STATE.config_file))
    code = includes.expand(fence.body, page, fence.line + 1, options, STATE.config_file.parent)
    chunks: list[str] = []
    try:
        run_block(
            code,
            namespace,
            chunks.append,
            where=fence.where,
            raises=fence.attrs.get("raises", ""),
            timeout=float(fence.attrs.get("timeout", DEFAULT_TIMEOUT)),
            first_line=fence.line + 1,
        )
    finally:
        STATE.done.add(fence.where)
    return "".join(chunks)
