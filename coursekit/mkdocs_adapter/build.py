"""One build's state: made fresh by the plugin's ``on_config`` for every build.

`mkdocs serve` rebuilds in the same process, so nothing here may outlive its build:
the pages read and their blocks' results, the notebooks to execute, and the counts the
build reports. What is worth keeping between rebuilds lives on the plugin
(:mod:`coursekit.mkdocs_adapter.serve_memo`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

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
from coursekit.markdown.where import Where
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
class PageResults:
    """A page's block results, by block key, for its executed fences to show.

    Each fence carries its own place (``at="docs/page.md:line"``, written by
    ``on_page_markdown``: :mod:`coursekit.markdown.where`), which names its block, and
    the fence takes that block's result. The code the fence shows is checked against the
    code that ran, so a fence can never show another block's output.
    """

    page: str  # "docs/chapters/chain-rule.md"
    results: dict[str, BlockResult]  # by block key, in page order
    drifted: dict[str, str | None]  # by block key: why its output is not the record (serve)
    keys: dict[int, str]  # the file line of each block's fence -> its key
    shown: set[str] = field(default_factory=set)  # keys of the blocks a fence showed

    def take(self, where: Where, code: str) -> tuple[BlockResult, str | None]:
        """The result of the block at ``where``, whose fence shows ``code``."""
        key = self.keys.get(where.line)
        if key is None:
            first = code.strip().split("\n")[0]
            raise UntrackedBlock(
                f"{where}: an executed Python fence that coursekit did not see (is it "
                f"indented, or inside raw HTML?), starting: {first}"
            )
        result = self.results[key]
        if code.strip("\n") != result.block.code.strip("\n"):
            raise CourseError(f"{result.block.where}: the code shown is not the code that ran")
        self.shown.add(key)
        return result, self.drifted[key]

    def check_all_shown(self) -> None:
        """After the render: every block the page ran was shown."""
        for key, result in self.results.items():
            if key not in self.shown:
                # E.g. a `python3` fence, which the page scan runs but superfences shows
                # as code.
                raise CourseError(
                    f"{result.block.where}: this block ran, but no fence showed its output "
                    "(only `python` and `py` fences do)"
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
    pages: dict[str, PageResults] = field(default_factory=dict)  # by page path
    notebook_jobs: dict[str, NotebookJob] = field(default_factory=dict)  # by src_uri
    restore: dict[str, str] = field(default_factory=dict)  # src_uri -> clean notebook
    chapter_notebooks: dict[str, ChapterNotebook] = field(default_factory=dict)  # by page
    exercises: list[Exercise] = field(default_factory=list)  # nav order
    topics: list[Topic] = field(default_factory=list)  # interview topics, nav order
    quiz_pages: list[str] = field(default_factory=list)  # src_uris, nav order
    files: Files | None = None  # the site's files (on_files)
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

    def src_uri(self, page_path: str) -> str:
        """The other way: "docs/chapters/chain-rule.md" -> "chapters/chain-rule.md"."""
        return (self.root / page_path).relative_to(self.docs).as_posix()

    def file_text(self, src_uri: str) -> str:
        """A page's source as MkDocs read it (front matter included); "" if it has none."""
        file = self.files.get_file_from_path(src_uri) if self.files else None
        return file.content_string if file is not None else ""

    def resolver(self, src_uri: str) -> Callable[[str], str | None]:
        """Docs-relative .md path -> its URL relative to page ``src_uri`` (None: missing)."""
        files = self.files
        page = files.get_file_from_path(src_uri) if files else None

        def resolve(target: str) -> str | None:
            file = files.get_file_from_path(target) if files else None
            return None if file is None or page is None else file.url_relative_to(page)

        return resolve

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

    def run(self, source: PageSource) -> PageResults:
        """Run (or recall) the page's blocks, for its fences to show as MkDocs renders it
        next. A failure fails the build, or under `mkdocs serve` is printed and shown on
        the page; so does an output that is not the record."""
        blocks = list(source.blocks)
        results: list[BlockResult] = []
        if blocks:
            outputs = self.cache.load(blocks)
            if outputs is not None:
                results = [BlockResult(b, out) for b, out in zip(blocks, outputs, strict=True)]
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
        drifted: dict[str, str | None] = {}
        for result in results:
            problem = self.check_record(result)
            if problem is not None:
                if not self.serving:
                    raise CourseError(problem)
                serve_log().warning("%s", problem)
            drifted[result.block.key] = problem
        page = PageResults(
            source.path,
            {r.block.key: r for r in results},
            drifted,
            {r.block.line: r.block.key for r in results},
        )
        self.pages[source.path] = page
        return page

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
