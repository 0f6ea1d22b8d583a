"""One build's state: made fresh by the plugin's ``on_config`` for every build.

`mkdocs serve` rebuilds in the same process, so nothing here may outlive its build:
the pages read, the blocks' results, the tokens that tie a fence to its result, the
notebooks to execute, and the counts the build reports. What is worth keeping between
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

log = logging.getLogger("mkdocs.plugins.coursekit")
TOKEN = "coursekit_block"  # the fence option that ties an executed fence to its result


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
    results: dict[str, BlockResult] = field(default_factory=dict)  # token -> result
    page_tokens: dict[str, list[str]] = field(default_factory=dict)  # src_uri -> tokens
    formatted: set[str] = field(default_factory=set)
    drifted: dict[str, str] = field(default_factory=dict)  # token -> why it is not the record
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

    def run(self, source: PageSource, src_uri: str) -> str:
        """Run (or recall) the page's blocks; the expanded Markdown with each executed
        fence tagged with its result's token. A failure fails the build, or under
        `mkdocs serve` is printed and shown on the page."""
        blocks = list(source.blocks)
        if not blocks:
            return source.text
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
        lines = source.text.split("\n")
        tokens = self.page_tokens.setdefault(src_uri, [])
        for fence, result in zip(source.executed_fences(), results, strict=True):
            token = str(len(self.results))
            self.results[token] = result
            problem = self.check_record(result)
            if problem is not None:
                if not self.serving:
                    raise CourseError(problem)
                serve_log().warning("%s", problem)
                self.drifted[token] = problem
            tokens.append(token)
            index = source.expanded_line(fence.line) - 1
            lines[index] = f'{lines[index]} {TOKEN}="{token}"'
        return "\n".join(lines)

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

    def check_shown(self, src_uri: str) -> None:
        """Every block the page ran must have been formatted by markdown-exec."""
        for token in self.page_tokens.get(src_uri, []):
            if token not in self.formatted:
                # E.g. a fence swallowed by raw HTML: it ran, but the reader never sees it.
                where = self.results[token].block.where
                raise CourseError(f"{where}: this block was never shown by the build")

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

    def page_results(self, src_uri: str) -> list[BlockResult]:
        return [self.results[token] for token in self.page_tokens.get(src_uri, [])]
