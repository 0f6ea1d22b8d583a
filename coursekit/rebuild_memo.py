"""Rebuilds under `mkdocs serve`: a page whose inputs did not change is not re-rendered.

`mkdocs serve` rebuilds the whole site after every change, in the same process. The
execution cache (:mod:`coursekit.exec_cache`) already keeps blocks from running again,
but every page was still converted from Markdown, indexed for search and given its
quiz HTML. Those steps are pure functions of what they read, so this module remembers
their results, in memory, for the life of the serve process, keyed by all of it:

* **Markdown to HTML** (``Page.render``): the page's Markdown after the hooks (block
  tokens and quiz HTML included), the outputs of its blocks, its source path and
  address, and a digest of the whole build (:func:`site_digest`: mkdocs.yml, every
  file of the site and its address, every snippet, coursekit's code). A hit restores
  everything ``render`` sets on the page (HTML, TOC, title, anchors, links to check),
  so MkDocs still validates links and anchors on every build.
* **search entries** (Material's ``SearchIndex.add_entry_from_context``): by the page's
  HTML, TOC, title, address and metadata. The index is still written whole.
* **quiz HTML** (:func:`coursekit.quiz.render_page`): by the page's Markdown (and, for
  the quiz index, every quiz page's source).

Every page still passes through every plugin event and its template, so the site
written is a full build's, byte for byte (tests/test_rebuild_memo.py). A render that
logged a warning is never remembered: strict mode must count it again next time.
`mkdocs build` makes one build per process, so the memo is installed only by serve.

The two seams that are not public API (``Page.render``'s attributes, Material's
``SearchIndex``) are used only here; tests/test_private_apis.py fails if they change.
"""

from __future__ import annotations

import copy
import hashlib
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2.bccache import Bucket, BytecodeCache
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from coursekit import quiz
from coursekit.build_exec import BuildRun, snippet_files_digest
from coursekit.exec_cache import runner_digest

log = logging.getLogger("mkdocs.hooks.coursekit.memo")

# What Page.render sets on a page (mkdocs 1.6): a hit restores exactly these.
RENDER_ATTRIBUTES = frozenset(
    {"content", "toc", "_title_from_render", "present_anchor_ids", "links_to_anchors"}
)
_MAX_ENTRIES = 1024  # per memo: a few times the site's pages, then start again


@dataclass(frozen=True)
class _Rendered:
    attributes: dict[str, Any]  # RENDER_ATTRIBUTES as render left them (links by path)
    formatted: frozenset[str]  # block tokens markdown-exec formatted during the render


class _WarningCount(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


class RebuildMemo:
    """The memos, and the build they are answering for (set by :meth:`begin`)."""

    def __init__(self) -> None:
        self.pages: dict[str, _Rendered] = {}
        self.search: dict[str, list[dict[str, Any]]] = {}
        self.quizzes: dict[str, str] = {}
        self.build: BuildRun | None = None
        self.site = ""  # digest of the build's inputs shared by every page
        self.quiz_sources = ""
        self.stats = {"rendered": 0, "reused": 0}

    def begin(self, build: BuildRun, config: MkDocsConfig, files: Files) -> None:
        self.build = build
        self.site = site_digest(build, config, files)
        self.quiz_sources = _files_digest(Path(config.docs_dir) / "practice" / "quizzes")
        self.stats = {"rendered": 0, "reused": 0}
        for memo in (self.pages, self.search, self.quizzes):
            if len(memo) > _MAX_ENTRIES:
                memo.clear()

    def end(self) -> str:
        self.build = None
        s = self.stats
        return f"{s['rendered']} pages rendered, {s['reused']} unchanged"

    # -- Page.render -------------------------------------------------------------------

    def render(
        self, original: Callable[[Page, MkDocsConfig, Files], None], page: Page, config: Any
    ) -> Callable[[Files], None]:
        """``page.render`` for this build: from the memo, or rendered and remembered."""

        def run(files: Files) -> None:
            build = self.build
            if build is None or page.markdown is None:
                original(page, config, files)
                return
            key = self._page_key(build, page)
            hit = self.pages.get(key)
            if hit is not None and _restore(page, hit.attributes, files):
                build.formatted.update(hit.formatted)
                self.stats["reused"] += 1
                return
            before = dict(vars(page))
            formatted = set(build.formatted)
            warnings = _WarningCount()
            loggers = [logging.getLogger(), logging.getLogger("mkdocs")]
            for logger in loggers:
                logger.addHandler(warnings)
            try:
                original(page, config, files)
            finally:
                for logger in loggers:
                    logger.removeHandler(warnings)
            self.stats["rendered"] += 1
            changed = {k for k, v in vars(page).items() if k not in before or before[k] is not v}
            if warnings.count or not changed <= RENDER_ATTRIBUTES:
                return  # a warning must be seen again; an unknown attribute is not restored
            self.pages[key] = _Rendered(_snapshot(page), frozenset(build.formatted - formatted))

        return run

    def _page_key(self, build: BuildRun, page: Page) -> str:
        src = build.page_src(page)
        results = []
        for token in build.page_tokens.get(src, []):
            result = build.results[token]
            failure = result.failure.report() if result.failure else None
            results.append((result.block, result.output, failure, result.ran))
        return _digest(self.site, page.file.src_uri, page.url, page.markdown, results)

    # -- search entries ----------------------------------------------------------------

    def search_entries(self, original: Callable[[Any, Page], None], index: Any, page: Page) -> None:
        if self.build is None:
            original(index, page)
            return
        key = _digest(self.site, page.url, page.title, page.content, page.meta, _toc(page.toc))
        hit = self.search.get(key)
        if hit is not None:
            index.entries.extend(copy.deepcopy(hit))
            return
        start = len(index.entries)
        original(index, page)
        self.search[key] = copy.deepcopy(index.entries[start:])

    # -- quizzes -----------------------------------------------------------------------

    def quiz_page(self, markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        if self.build is None:
            return quiz.render_page(markdown, page, config, files)
        # The quiz index is made from every quiz page's source, read from disk.
        index = self.quiz_sources if quiz.INDEX_LANG in markdown else ""
        key = _digest(self.site, page.file.src_uri, markdown, index)
        if key not in self.quizzes:
            self.quizzes[key] = quiz.render_page(markdown, page, config, files)
        return self.quizzes[key]


MEMO = RebuildMemo()


class TemplateBytecode(BytecodeCache):
    """Compiled theme templates, kept in memory between rebuilds (Jinja's public cache
    interface; Jinja recompiles any template whose source checksum changed)."""

    def __init__(self) -> None:
        self.code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        if bucket.key in self.code:
            bucket.bytecode_from_string(self.code[bucket.key])

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.code[bucket.key] = bucket.bytecode_to_string()


TEMPLATES = TemplateBytecode()


def install() -> None:
    """Route ``Page.render`` and Material's search indexing through :data:`MEMO` (once)."""
    if getattr(Page.render, "coursekit_memo", False):
        return
    original_render = Page.render

    def render(page: Page, config: MkDocsConfig, files: Files) -> None:
        MEMO.render(original_render, page, config)(files)

    render.coursekit_memo = True  # type: ignore[attr-defined]
    Page.render = render  # type: ignore[method-assign,assignment]

    from material.plugins.search.plugin import SearchIndex  # type: ignore[import-untyped]

    original_add = SearchIndex.add_entry_from_context

    def add_entry_from_context(index: Any, page: Page) -> None:
        MEMO.search_entries(original_add, index, page)

    SearchIndex.add_entry_from_context = add_entry_from_context


def site_digest(build: BuildRun, config: MkDocsConfig, files: Files) -> str:
    """What every page's HTML may depend on besides its own Markdown and outputs."""
    site_files = sorted((f.src_uri, f.dest_uri, f.url, str(f.inclusion)) for f in files)
    build.snippet_files = snippet_files_digest(build.root, build.snippets)
    return _digest(
        runner_digest(),
        build.markdown_settings,  # mkdocs.yml: extensions, nav, plugins' settings
        config.site_url,
        config.use_directory_urls,
        os.environ.get("SITE_URL"),
        site_files,
        build.snippet_files,  # an include in the prose is expanded by the render
    )


def _files_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    if folder.is_dir():
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def _digest(*parts: Any) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def _toc(items: Any) -> list[Any]:
    return [(i.id, i.url, i.title, i.level, _toc(i.children)) for i in items]


def _snapshot(page: Page) -> dict[str, Any]:
    attributes = {
        k: copy.deepcopy(v)
        for k, v in vars(page).items()
        if k in RENDER_ATTRIBUTES and k != "links_to_anchors"
    }
    links = vars(page).get("links_to_anchors", False)
    if links is not False:  # File objects are new every build: keep their paths
        attributes["links_to_anchors"] = links and {f.src_uri: dict(a) for f, a in links.items()}
    return attributes


def _restore(page: Page, attributes: dict[str, Any], files: Files) -> bool:
    restored = {k: copy.deepcopy(v) for k, v in attributes.items()}
    links = restored.get("links_to_anchors")
    if links is not None:
        by_file = {files.get_file_from_path(uri): anchors for uri, anchors in links.items()}
        if None in by_file:
            return False
        restored["links_to_anchors"] = by_file
    vars(page).update(restored)
    return True
