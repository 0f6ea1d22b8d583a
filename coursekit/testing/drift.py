"""The drift check: pytest-markdown-docs runs every executed block as the build does.

pytest-markdown-docs collects every ``python`` fence as a test item. Through its two
extension points (a Markdown parser hook and a named runner) this plugin makes each
item one block of :mod:`coursekit.markdown.page`, run by the build's own loop:

* only the fences :mod:`coursekit.markdown.fences` calls executed are run (the one
  scanner decides; display-only fences are skipped);
* the first item of a page runs the whole page with
  :func:`coursekit.execution.page_run.run_page`, or, when a build of the same run has
  just run every block afresh, takes that build's outputs of the page (the hook
  ``pytest_coursekit_fresh_outputs``; tests/conftest.py answers it in `make test`, so
  each block runs once there, not once more here); each item then checks its own
  block's result against the record of outputs
  (:func:`coursekit.execution.record.recorded_view`);
* a block that fails does not hide the blocks after it: they ran too, and each is still
  compared with the record, its report saying it ran after a failure;
* ``--drift-report FILE`` writes every failure and every drift of the run as Markdown
  (the weekly workflow's step summary); the run's exit status is the verdict: non-zero
  exactly when a block failed or printed something other than its record;
* ``--record-outputs`` rewrites the record instead, and only if every block ran and
  nothing failed: a failing run leaves the record untouched and exits non-zero.

A page belongs to the site of the nearest mkdocs.yml above it (its snippets, its plugin
options, its record), so one run can check several sites (the test fixtures do).

The state of a run lives on a :class:`DriftCheck` registered with pytest for that run.
pytest-markdown-docs exposes runners only through its private ``_runners`` module;
that import lives here alone, and tests/test_private_apis.py fails loudly if it changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token
from pytest_markdown_docs._runners import _Runner, register_runner
from pytest_markdown_docs.definitions import FenceTestDefinition

from coursekit import numerics, versions
from coursekit.execution import older
from coursekit.execution.cache import ExecCache
from coursekit.execution.compare import Verdict
from coursekit.execution.page_run import BlockResult, run_page
from coursekit.execution.record import Record, diff, drift_report, recorded_view
from coursekit.figures.d2 import D2Renderer, rendering
from coursekit.markdown.fences import PYTHON, FenceError, scan
from coursekit.markdown.includes import IncludeError
from coursekit.mkdocs_adapter.project import Project
from coursekit.testing.report import Finding, markdown_report

RUNNER = "CourseRunner"
STATE = "_coursekit_drift"  # the name under which items find the run's DriftCheck


class DriftError(AssertionError):
    """A block's output differs from the record."""


class BlockFailed(AssertionError):
    """A block raised, or broke a promise of its page (raises=, time limit, output)."""


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests() -> None:
    """Before any conftest or test module imports torch (and before xdist starts its
    workers, which inherit the environment): the pinned numerical code paths."""
    numerics.pin()


class FreshOutputs:
    """The hook by which a test run hands the drift check the outputs its build made."""

    @pytest.hookspec(firstresult=True)
    def pytest_coursekit_fresh_outputs(self, config: pytest.Config, root: Path) -> Path | None:
        """The execution cache folder (``<cache>/exec``) of a build of the site at ``root``
        that ran every block afresh during this test run, once it is finished; None (the
        default) and the drift check runs each page itself. A page the folder has no
        usable entry for (its build failed before it, or its code differs) is run."""
        raise NotImplementedError  # a hook specification: only its signature is used


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(FreshOutputs)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("course", "course site drift check")
    group.addoption(
        "--record-outputs",
        action="store_true",
        help="rewrite the recorded outputs from this run (after reviewing the diff)",
    )
    group.addoption(
        "--older",
        action="store_true",
        help="check (with --record-outputs: record) only the blocks marked changed=, "
        "against the record of the running, older PyTorch (tests/older_outputs/torch-X.yml)",
    )
    group.addoption(
        "--drift-report",
        default=None,
        help="write every failure and drift of the run to this Markdown file",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(DriftCheck(config), "coursekit-drift-check")


@pytest.hookimpl(optionalhook=True)  # a hook of xdist's: unknown under `-p no:xdist`
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """No workers (``-n auto``) when only pages run: a page's blocks share one session,
    so each page runs in one process anyway; and a record or a report is one file that
    one process writes from every block. Otherwise xdist's own choice."""
    if config.getoption("--record-outputs") or config.getoption("--drift-report"):
        return 0
    args = [arg for arg in config.args if not arg.startswith("-")]
    pages = [a.split("::")[0] for a in args]
    if pages and all(a.endswith(".md") or Path(a).parts[:1] == ("docs",) for a in pages):
        return 0
    return None


@dataclass
class Site:
    """One site's project and record, read on first use."""

    project: Project
    record: Record  # today's record; with --older, the older release's
    renderer: D2Renderer
    fresh: ExecCache | None  # a fresh build's outputs of this run (see FreshOutputs)
    today: Record | None = None  # with --older: the record of the pinned release
    pages: dict[str, dict[int, BlockResult]] = field(default_factory=dict)


@dataclass
class DriftCheck:
    """One run of the drift check: the sites, the pages run so far, what was found."""

    config: pytest.Config
    sites: dict[Path, Site] = field(default_factory=dict)  # by their mkdocs.yml
    unreadable: dict[Path, Exception] = field(default_factory=dict)  # by absolute path
    findings: list[Finding] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rewrite = bool(self.config.getoption("--record-outputs"))
        self.report_file = self.config.getoption("--drift-report")
        self.older = bool(self.config.getoption("--older"))
        self.torch = versions.torch()

    def pytest_markdown_docs_globals(self) -> dict[str, Any]:
        return {STATE: self}

    def site(self, page: Path) -> Site:
        """The site a page belongs to: the nearest mkdocs.yml above it."""
        config = next(
            (d / "mkdocs.yml" for d in page.resolve().parents if (d / "mkdocs.yml").is_file()), None
        )
        if config is None:
            raise BlockFailed(f"{page}: no mkdocs.yml above this page")
        if config not in self.sites:
            project = Project.load(config)
            cache = project.root / project.options.cache_dir / "d2"
            record = today = Record.load(project.record)
            if self.older:  # the version notes' record of this (older) release
                record = older.load(project.root / project.options.older_records, self.torch)
            fresh = self.config.hook.pytest_coursekit_fresh_outputs(
                config=self.config, root=project.root
            )
            built = ExecCache(fresh) if fresh is not None else None
            self.sites[config] = Site(project, record, D2Renderer(cache), built, today)
        return self.sites[config]

    def results(self, path: Path) -> tuple[Site, dict[int, BlockResult]]:
        site = self.site(path)
        page = path.resolve().relative_to(site.project.root).as_posix()
        if path.resolve() in self.unreadable:
            pytest.skip(
                f"{page}: not run, the page's blocks cannot be read (see its first failure)"
            )
        if page not in site.pages:
            try:
                source = site.project.read(path)
            except (FenceError, IncludeError) as error:
                self.unreadable[path.resolve()] = error
                self.findings.append(Finding(page, "failure", str(error)))
                raise
            outputs = site.fresh.load(source.blocks) if site.fresh else None
            if outputs is not None:  # this run's build ran the page: no need to run it again
                pairs = zip(source.blocks, outputs, strict=True)
                results = [BlockResult(block, output) for block, output in pairs]
            else:
                with rendering(site.renderer):
                    results = run_page(source.blocks)
            site.pages[page] = {r.block.line: r for r in results}
        return site, site.pages[page]

    def check(self, site: Site, result: BlockResult) -> None:
        """Fail the item of a block that failed or drifted, and note it for the report."""
        block = result.block
        # On an older release a block without a version note must print today's record:
        # a block whose output changed at an upgrade needs a note on its page.
        record = site.today if self.older and not block.changed else site.record
        assert record is not None
        if result.failure is not None:
            note = (
                " (it ran after an earlier block of the page failed)"
                if result.after_failure
                else ""
            )
            report = result.failure.report() + note
            self.findings.append(Finding(block.where, "failure", report))
            raise BlockFailed(report)
        if self.rewrite and (not self.older or block.changed):
            return  # recorded at the end (with --older, only the noted blocks)
        verdict, expected, output = record.compare(block, result.output)
        if verdict is Verdict.NUMERICAL:
            # Another CPU or BLAS: reported in a section of its own, never a failure.
            shown = diff(expected or "", output, record.torch, self.torch)
            self.findings.append(Finding(block.where, "numerical", shown, key=block.key))
        if verdict is Verdict.REAL:
            recorded = record.torch
            text = drift_report(
                block, expected, output, recorded, self.torch, after_failure=result.after_failure
            )
            if self.older and not block.changed:
                text += (
                    f"\nPyTorch {self.torch} prints something other than the record: if "
                    'a release changed this, mark the block changed="<note>" (a version note '
                    "of mkdocs.yml) and run `make older`"
                )
            shown = diff(expected or "", output, recorded, self.torch)
            self.findings.append(
                Finding(
                    block.where, "drift", shown, key=block.key, after_failure=result.after_failure
                )
            )
            raise DriftError(text)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.report_file:
            recorded = ", ".join(sorted({site.record.torch for site in self.sites.values()}))
            Path(self.report_file).write_text(  # also when nothing ran: a report says so
                markdown_report(self.findings, recorded or "?", self.torch, len(self.blocks())),
                encoding="utf-8",
            )
        if not self.rewrite or not self.blocks():
            return
        broken = [r.block.where for r in self.blocks() if not r.ok and self._kept(r)]
        broken += [str(path) for path in self.unreadable]
        if session.testsfailed or exitstatus != pytest.ExitCode.OK or broken:
            # A failing block has no output to record: keep every recorded output as it is.
            names = ", ".join(site.record.path.name for site in self.sites.values())
            session.config.get_terminal_writer().line(
                f"\n{names} left untouched: the run had failures "
                f"({len(broken)} block(s) did not run cleanly). Fix them, then record again.",
                red=True,
            )
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
            return
        for site in self.sites.values():
            for page, results in site.pages.items():
                kept = {
                    r.block.key: recorded_view(r.block, r.output)
                    for r in results.values()
                    if self._kept(r)
                }
                if kept or not self.older:
                    site.record.pages[page] = kept
            site.record.torch = self.torch
            site.record.save(pages=set(site.pages))

    def _kept(self, result: BlockResult) -> bool:
        """Whether the record of this run keeps the block (with --older: noted ones)."""
        return not self.older or bool(result.block.changed)

    def blocks(self) -> list[BlockResult]:
        return [
            r for site in self.sites.values() for page in site.pages.values() for r in page.values()
        ]


class _CourseMarkdownIt(MarkdownIt):
    """Marks the fences pytest-markdown-docs should run: the ones our scanner runs."""

    def parse(self, src: str, env: Any = None) -> list[Token]:
        tokens = super().parse(src, env)
        executed = {fence.line for fence in scan(src, "") if fence.executed}
        for token in tokens:
            if token.type != "fence" or token.map is None:
                continue
            lang = token.info.strip().partition(" ")[0].lower()
            if lang not in PYTHON:
                continue
            run = token.map[0] + 1 in executed
            token.info = f"python runner:{RUNNER}" if run else "python notest"
        return tokens


@pytest.hookimpl(tryfirst=True)
def pytest_markdown_docs_markdown_it() -> MarkdownIt:
    return _CourseMarkdownIt("commonmark")


@register_runner()
class CourseRunner(_Runner):
    def runtest(self, test: FenceTestDefinition, args: dict[str, Any], **_: Any) -> None:
        check: DriftCheck = args[STATE]
        site, results = check.results(Path(test.source_path))
        result = results.get(test.start_line)
        if result is None:
            raise BlockFailed(
                f"{test.source_path}:{test.start_line}: pytest-markdown-docs found a block "
                "that coursekit's scanner did not (see the page's first failure)"
            )
        check.check(site, result)

    def repr_failure(
        self,
        test: FenceTestDefinition,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: Any = None,
    ) -> str:
        error = excinfo.value
        if isinstance(error, DriftError | BlockFailed | FenceError | IncludeError):
            return str(error)
        return f"{test.source_path}:{test.start_line}: {type(error).__name__}: {error}"
