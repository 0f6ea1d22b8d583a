"""One build's state: made fresh by the plugin's ``on_config`` for every build.

`mkdocs serve` rebuilds in the same process, so nothing here may outlive its build:
the pages read, the page being rendered and its blocks' results, the notebooks to
execute, and the counts the build reports. What is worth keeping between
rebuilds lives on the plugin (:mod:`coursekit.mkdocs_adapter.serve_memo`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File

from coursekit import versions
from coursekit.content.exercise_nav import Exercise
from coursekit.content.interview import Topic
from coursekit.errors import CourseError
from coursekit.execution import older
from coursekit.execution.cache import ExecCache
from coursekit.execution.compare import Verdict
from coursekit.execution.older import OlderOutputs
from coursekit.execution.page_run import BlockResult, first_failure, run_page
from coursekit.execution.record import Record, drift_report
from coursekit.figures.d2 import D2Renderer, rendering
from coursekit.markdown.includes import Includes
from coursekit.markdown.page import PageSource, read_page
from coursekit.mkdocs_adapter.config import CourseConfig
from coursekit.mkdocs_adapter.errors import UntrackedBlock

log = logging.getLogger("mkdocs.plugins.coursekit")


def serve_log() -> logging.Logger:
    """Errors under `mkdocs serve`: printed like MkDocs' own, but not counted by
    strict mode (a counted error would abort the rebuild and freeze live reload)."""
    logger = logging.getLogger("coursekit.serve")
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)-8s-  %(message)s"))
        logger.addHandler(handler)
        logger.propagate = False
    return logger


@dataclass
class NotebookJob:
    """An exercise notebook page: executed into the cache, rendered from the copy."""

    source: Path  # the committed, clean notebook (the download)
    target: Path  # its executed copy
    name: str  # for errors: "docs/practice/notebooks/x.ipynb"


@dataclass
class ChapterNotebook:
    file: File  # the generated file in the site (its content is set when its page is read)
    committed: str | None  # the committed copy's text, to report it when stale


@dataclass
class PageBlocks:
    """The results of the page being rendered, handed to its executed fences in order.

    MkDocs renders a page right after ``on_page_markdown`` ran its blocks, and
    superfences formats the page's fences in document order, so the n-th executed fence
    it formats is the page's n-th block. The code each fence shows is checked against
    the code that ran, so a fence can never show another block's output.
    """

    src: str  # the page's src_uri
    results: list[BlockResult]
    drifted: list[str | None]  # per block: why its output is not the record (serve only)
    shown: int = 0  # how many fences have been formatted

    def next(self, code: str) -> tuple[BlockResult, str | None]:
        """The result of the next executed fence of the page, which shows ``code``."""
        if self.shown == len(self.results):
            first = code.strip().split("\n")[0]
            raise UntrackedBlock(
                f"docs/{self.src}: an executed Python fence that coursekit did not see "
                f"(is it indented, or inside raw HTML?), starting: {first}"
            )
        result = self.results[self.shown]
        if code.strip("\n") != result.block.code.strip("\n"):
            raise CourseError(
                f"{result.block.where}: the code shown is not the code that ran (an "
                "executed fence before it was not formatted: is one inside raw HTML?)"
            )
        self.shown += 1
        return result, self.drifted[self.shown - 1]

    def check_all_shown(self) -> None:
        """After the render: every block the page ran was shown."""
        if self.shown < len(self.results):
            # E.g. a `python3` fence, which the page scan runs but superfences shows as code.
            where = self.results[self.shown].block.where
            raise CourseError(
                f"{where}: this block ran, but no fence showed its output (only `python` "
                "and `py` fences do)"
            )


@dataclass
class BuildRun:
    """Everything one build knows."""

    root: Path  # the folder of mkdocs.yml
    docs: Path
    options: CourseConfig
    includes: Includes
    cache: ExecCache
    renderer: D2Renderer
    serving: bool
    record: Record | None  # None: the site keeps no record of outputs
    older: OlderOutputs
    torch: str = field(default_factory=versions.torch)
    sources: dict[str, PageSource] = field(default_factory=dict)  # by src_uri
    page: PageBlocks | None = None  # the page being rendered
    notebook_jobs: dict[str, NotebookJob] = field(default_factory=dict)  # by src_uri
    restore: dict[str, str] = field(default_factory=dict)  # src_uri -> clean notebook
    chapter_notebooks: dict[str, ChapterNotebook] = field(default_factory=dict)  # by page
    exercises: list[Exercise] = field(default_factory=list)  # nav order
    topics: list[Topic] = field(default_factory=list)  # interview topics, nav order
    quiz_pages: list[str] = field(default_factory=list)  # src_uris, nav order
    stats: dict[str, int] = field(
        default_factory=lambda: {"blocks": 0, "pages": 0, "run": 0, "cached": 0, "numerical": 0}
    )

    @classmethod
    def start(cls, config: MkDocsConfig, options: CourseConfig, *, serving: bool) -> BuildRun:
        root = Path(config.config_file_path).resolve().parent
        cache = root / options.cache_dir
        snippets = dict(config.mdx_configs.get("pymdownx.snippets", {}))
        return cls(
            root=root,
            docs=Path(config.docs_dir),
            options=options,
            includes=Includes(snippets, root),
            cache=ExecCache(cache / "exec", enabled=options.exec_cache),
            renderer=D2Renderer(cache / "d2"),
            serving=serving,
            record=Record.load(root / options.record) if options.record else None,
            older=OlderOutputs(root / options.older_records, older.notes(options.version_notes)),
        )

    @property
    def cache_root(self) -> Path:
        return self.root / self.options.cache_dir

    def page_path(self, src_uri: str) -> str:
        """A page's path from the project root: "docs/chapters/chain-rule.md"."""
        return (self.docs / src_uri).relative_to(self.root).as_posix()

    # -- reading and running a page ------------------------------------------------------

    def read(self, markdown: str, src_uri: str, line_offset: int) -> PageSource:
        """The page's source, includes expanded once; a FenceError or IncludeError names
        file and line."""
        source = read_page(
            markdown,
            self.page_path(src_uri),
            self.includes,
            line_offset=line_offset,
            default_timeout=float(self.options.block_timeout),
        )
        self.sources[src_uri] = source
        return source

    def run(self, source: PageSource, src_uri: str) -> PageBlocks:
        """Run (or recall) the page's blocks, for its fences to show as MkDocs renders it
        next. A failure fails the build, or under `mkdocs serve` is printed and shown on
        the page; so does an output that is not the record."""
        blocks = list(source.blocks)
        self.page = PageBlocks(src_uri, [], [])
        if not blocks:
            return self.page
        outputs = self.cache.load(blocks)
        if outputs is not None:
            results = [BlockResult(b, output) for b, output in zip(blocks, outputs, strict=True)]
            self.stats["cached"] += 1
        else:
            with rendering(self.renderer):
                results = run_page(blocks)
            self.stats["run"] += 1
            if all(result.ok for result in results):
                self.cache.store(blocks, [result.output for result in results])
        self.stats["pages"] += 1
        self.stats["blocks"] += len(blocks)
        failure = first_failure(results)
        if failure is not None:
            if not self.serving:
                raise CourseError(failure.report())
            serve_log().error("%s", failure.report())
        drifted = []
        for result in results:
            problem = self.check_record(result)
            if problem is not None:
                if not self.serving:
                    raise CourseError(problem)
                serve_log().warning("%s", problem)
            drifted.append(problem)
        self.page = PageBlocks(src_uri, results, drifted)
        return self.page

    def check_record(self, result: BlockResult) -> str | None:
        """Why the output is not what the record says (None when it is, up to the last
        digits of floats), or why its version note cannot be shown."""
        block = result.block
        if not result.ok:
            return None  # reported as a failure already
        problem = None
        if block.changed:
            try:
                problem = self.older.problem(block, result.output, self.torch)
            except ValueError as error:  # a note that mkdocs.yml does not define
                # older.py raises a plain ValueError (it names file and line already).
                raise CourseError(str(error)) from None
        if self.record is None or problem is not None:
            return problem
        verdict, expected, output = self.record.compare(block, result.output)
        if verdict is Verdict.NUMERICAL:
            self.stats["numerical"] += 1
        if verdict is not Verdict.REAL:
            return None
        return drift_report(block, expected, output, self.record.torch, self.torch)

    def summary(self) -> str:
        s = self.stats
        return (
            f"coursekit: {s['blocks']} blocks on {s['pages']} pages, {s['run']} "
            f"{'page' if s['run'] == 1 else 'pages'} run, "
            f"{s['cached']} from the execution cache; {self.renderer.renders} diagrams "
            f"drawn (PyTorch {self.torch})"
            + (
                f"; {s['numerical']} outputs differ from the record in the last digits of "
                "floats only"
                if s["numerical"]
                else ""
            )
        )
