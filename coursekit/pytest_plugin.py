"""The drift check: pytest-markdown-docs runs every executed block as the build does.

pytest-markdown-docs collects every ``python`` fence as a test item. Through its
two extension points (a Markdown parser hook and a named runner) this plugin makes
each item one block of :mod:`coursekit.blocks`, run by the build's own loop:

* only ``exec="on"`` fences are collected; display-only fences are skipped;
* the first item of a page runs the whole page with :func:`coursekit.page_run.run_page`
  (never the build's cache); each item then checks its own block's result. Blocks
  after a failed one are skipped, so exactly the broken block fails;
* each output is compared with ``tests/recorded_outputs.yml`` under its
  :attr:`~coursekit.blocks.Block.key` (``html="on"`` figures by their text view);
* ``--record-outputs`` rewrites the record instead, and only if every block ran and
  nothing failed: a failing run leaves the record untouched and exits non-zero.

pytest-markdown-docs exposes runners only through its private ``_runners`` module;
that import lives here alone, and ``tests/test_private_apis.py`` fails loudly if it
changes shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token
from pytest_markdown_docs._runners import _Runner, register_runner
from pytest_markdown_docs.definitions import FenceTestDefinition

from coursekit import includes
from coursekit.blocks import file_blocks, is_on
from coursekit.fences import FenceError, parse_attrs
from coursekit.page_run import BlockResult, run_page
from coursekit.record import Record, drift_report, text_view

TORCH_VERSION = version("torch").split("+")[0]
RUNNER = "CourseRunner"


class DriftError(AssertionError):
    """A block's output differs from the record."""


class BlockFailed(AssertionError):
    """A block raised, or broke a promise of its page (raises=, time limit, output)."""


@dataclass
class _State:
    root: Path = Path(".")
    config_file: Path = Path("mkdocs.yml")
    record: Record = field(default_factory=lambda: Record(Path("recorded_outputs.yml")))
    rewrite: bool = False
    # page -> fence line -> result; a page that cannot even be read has an error instead
    pages: dict[str, dict[int, BlockResult]] = field(default_factory=dict)
    unreadable: dict[str, Exception] = field(default_factory=dict)


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
    root = Path(config.rootpath)
    STATE.root = root
    STATE.config_file = root / config.getoption("--mkdocs-config")
    STATE.record = Record.load(root / config.getoption("--outputs-record"))
    STATE.rewrite = bool(config.getoption("--record-outputs"))
    STATE.pages.clear()
    STATE.unreadable.clear()


def recorded_view(result: BlockResult) -> str:
    """What the record stores for a block: its output, or a figure's text view."""
    return text_view(result.output) if result.block.html else result.output


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if not STATE.rewrite or not STATE.pages:
        return
    broken = [
        r.block.where for results in STATE.pages.values() for r in results.values() if not r.ok
    ]
    broken += list(STATE.unreadable)
    if session.testsfailed or exitstatus != pytest.ExitCode.OK or broken:
        # A failing block has no output to record: keep every recorded output as it is.
        session.config.get_terminal_writer().line(
            f"\n{STATE.record.path.name} left untouched: the run had failures "
            f"({len(broken)} block(s) did not run cleanly). Fix them, then record again.",
            red=True,
        )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        return
    for page, results in STATE.pages.items():
        STATE.record.pages[page] = {r.block.key: recorded_view(r) for r in results.values()}
    STATE.record.torch = TORCH_VERSION
    STATE.record.save(pages=set(STATE.pages))


class _CourseMarkdownIt(MarkdownIt):
    """Marks which fences pytest-markdown-docs should run, and with which runner."""

    def parse(self, src: str, env: Any = None) -> list[Token]:
        tokens = super().parse(src, env)
        for token in tokens:
            if token.type != "fence":
                continue
            lang, _, rest = token.info.strip().partition(" ")
            if lang.lower() not in {"python", "py", "python3"}:
                continue
            executed = is_on(parse_attrs(rest).get("exec", ""))
            token.info = f"python runner:{RUNNER}" if executed else "python notest"
        return tokens


@pytest.hookimpl(tryfirst=True)
def pytest_markdown_docs_markdown_it() -> MarkdownIt:
    return _CourseMarkdownIt("commonmark")


def _page_results(path: Path) -> dict[int, BlockResult]:
    page = path.resolve().relative_to(STATE.root.resolve()).as_posix()
    if page in STATE.unreadable:
        pytest.skip(f"{page}: not run, the page's blocks cannot be read (see its first failure)")
    if page not in STATE.pages:
        try:
            blocks = file_blocks(path, STATE.root, STATE.config_file)
        except (FenceError, includes.IncludeError) as error:
            STATE.unreadable[page] = error
            raise
        STATE.pages[page] = {r.block.line: r for r in run_page(blocks)}
    return STATE.pages[page]


@register_runner()
class CourseRunner(_Runner):
    def runtest(self, test: FenceTestDefinition, args: dict[str, Any]) -> None:
        result = _page_results(Path(test.source_path)).get(test.start_line)
        if result is None:
            raise BlockFailed(
                f"{test.source_path}:{test.start_line}: pytest-markdown-docs found a block "
                "that coursekit.blocks did not (see the page's first failure)"
            )
        block = result.block
        if not result.ran:
            pytest.skip(f"{block.where}: not run, an earlier block of the page failed")
        if result.failure is not None:
            raise BlockFailed(result.failure.report())
        if STATE.rewrite:
            return
        output = recorded_view(result)
        expected = STATE.record.expected(block.page, block.key)
        if expected != output:
            raise DriftError(
                drift_report(
                    block.where, block.key, expected, output, STATE.record.torch, TORCH_VERSION
                )
            )

    def repr_failure(
        self,
        test: FenceTestDefinition,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: Any = None,
    ) -> str:
        error = excinfo.value
        if isinstance(error, DriftError | BlockFailed | FenceError | includes.IncludeError):
            return str(error)
        return f"{test.source_path}:{test.start_line}: {type(error).__name__}: {error}"
