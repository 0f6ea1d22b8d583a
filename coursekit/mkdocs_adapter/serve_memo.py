"""Rebuilds under `mkdocs serve`: a page whose inputs did not change is not re-rendered.

`mkdocs serve` rebuilds the whole site after every change, in the same process. The
execution cache already keeps blocks from running again, but every page was still
converted from Markdown, indexed for search and given its quiz HTML. Those steps are
pure functions of what they read, so the plugin keeps one :class:`ServeMemo` for the
life of the serve process and answers them from it, keyed by all of it:

* **Markdown to HTML** (``page.render``): the page's Markdown after the plugin (its
  includes expanded, each fence's place written on it), the outputs of its blocks (a
  hit notes them as shown, as the render did), its source path and address, and a digest of
  what every page depends on (mkdocs.yml, every file of the site and its address). A
  hit restores everything ``render`` sets on the page (HTML, TOC, title, anchors, links
  to check), so MkDocs still validates links and anchors on every build. A notebook
  page's ``render`` is mkdocs-jupyter's, memoized the same way: its "Markdown" is the
  executed notebook.
* **search entries** (Material's ``SearchIndex.add_entry_from_context``): by the page's
  HTML, TOC, title, address and metadata. The index is still written whole.
* **quiz HTML**, **chapter notebooks**, **formatted blocks**, **notebook pages**
  (cleaned, their stylesheet pruned) and **written pages** (checked for raw TeX, given
  their dark copies): memos of the plugin's own pure functions.
* **the theme's templates** (a page's final HTML): by everything the templates read, the
  navigation's titles included (:meth:`ServeMemo.template_class`, set as the Jinja
  environment's ``template_class``).

Code is not in any key: an edit of ``coursekit/`` restarts the server
(coursekit/mkdocs_adapter/serve.py), and the memo starts empty.

Every page still passes through every plugin event and its template, so the site
written is a full build's, byte for byte (tests/test_rebuild_memo.py). A render that
logged a warning is never remembered: strict mode must count it again next time.
`mkdocs build` makes one build per process and uses no memo.

The seams that are not public API (what ``Page.render`` sets, Material's search index,
mkdocs-jupyter's download link) are used through coursekit/mkdocs_adapter/seams.py,
whose tests fail loudly if a MkDocs, Material or mkdocs-jupyter release changes them.
"""

from __future__ import annotations

import copy
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jinja2 import Template
from jinja2.bccache import Bucket, BytecodeCache
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from coursekit import files as fingerprints
from coursekit.mkdocs_adapter import seams

if TYPE_CHECKING:
    from coursekit.mkdocs_adapter.build import PageResults

log = logging.getLogger("mkdocs.plugins.coursekit.memo")

_MAX_ENTRIES = 1024  # per memo: a few times the site's pages, then start again


@dataclass(frozen=True)
class _Rendered:
    attributes: dict[str, Any]  # what the render set (seams.saved_render)
    shown: frozenset[str]  # the keys of the blocks its fences showed during the render


class _WarningCount(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


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


@dataclass
class ServeMemo:
    """The memos of one serve process, and the digest of the build in progress."""

    pages: dict[str, _Rendered] = field(default_factory=dict)
    search: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    quizzes: dict[str, str] = field(default_factory=dict)
    notebooks: dict[str, str] = field(default_factory=dict)  # chapter notebooks (JSON text)
    notebook_pages: dict[str, str] = field(default_factory=dict)  # cleaned notebook HTML
    outputs: dict[str, str] = field(default_factory=dict)  # pages' final HTML (templates)
    # pages' written HTML after on_post_page, and the raw-TeX problem found in it, if any
    finished: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    blocks: dict[str, str] = field(default_factory=dict)  # formatted blocks (exec_fence)
    templates: TemplateBytecode = field(default_factory=TemplateBytecode)
    site: str = ""  # digest of what every page of this build depends on
    nav: str | None = None  # digest of every page's address and title, this build
    stats: dict[str, int] = field(default_factory=lambda: {"rendered": 0, "reused": 0})

    def begin(self, config: MkDocsConfig, files: Files) -> None:
        """A new build: what all pages depend on, and fresh counts."""
        site_files = sorted((f.src_uri, f.dest_uri, f.url, str(f.inclusion)) for f in files)
        theme = config.theme.custom_dir  # templates the site overrides (Material's are fixed)
        overrides = sorted(Path(theme).rglob("*")) if theme else []
        self.site = fingerprints.digest(
            [(str(path), path.read_bytes()) for path in overrides if path.is_file()],
            Path(config.config_file_path).read_bytes(),  # extensions, nav, plugins' settings
            config.site_url,
            config.use_directory_urls,
            os.environ.get("SITE_URL"),
            site_files,
        )
        self.nav = None
        self.stats = {"rendered": 0, "reused": 0, "templated": 0}
        for memo in (
            self.pages,
            self.search,
            self.quizzes,
            self.notebooks,
            self.notebook_pages,
            self.outputs,
            self.finished,
        ):
            if len(memo) > _MAX_ENTRIES:
                memo.clear()

    def report(self) -> str:
        s = self.stats
        return (
            f"{s['rendered']} {_pages(s['rendered'])} rendered, {s['reused']} unchanged; "
            f"{s['templated']} written from the theme's templates"
        )

    # -- page.render -------------------------------------------------------------------

    def wrap_render(self, page: Page, results: list[Any], blocks: PageResults) -> None:
        """Answer this page's ``render`` from the memo when its inputs are unchanged.

        ``results`` are the page's block results (part of the key); ``blocks`` notes the
        blocks its fences showed, which a hit must note too.
        """

        def render(config: MkDocsConfig, files: Files) -> None:
            key = fingerprints.digest(
                self.site, page.file.src_uri, page.url, page.markdown, results
            )
            hit = self.pages.get(key)
            if hit is not None and seams.restore_render(page, hit.attributes, files):
                blocks.shown |= hit.shown
                self.stats["reused"] += 1
                return
            before = seams.render_state(page)
            warnings = _WarningCount()
            loggers = [logging.getLogger(), logging.getLogger("mkdocs")]
            for logger in loggers:
                logger.addHandler(warnings)
            try:
                original(config, files)
            finally:
                for logger in loggers:
                    logger.removeHandler(warnings)
            self.stats["rendered"] += 1
            changed = seams.rendered(page, before)
            if warnings.count or changed is None:
                return  # a warning must be seen again; an unknown attribute is not restored
            self.pages[key] = _Rendered(seams.saved_render(page, changed), frozenset(blocks.shown))

        original = seams.answer_render(page, render)

    # -- search entries ----------------------------------------------------------------

    def wrap_search(self, config: MkDocsConfig) -> None:
        """Answer the search index's entries of an unchanged page from the memo."""
        index = seams.search_index(config)
        if index is None:
            return

        def add(page: Page, original: Callable[[Page], None], entries: list[Any]) -> None:
            key = fingerprints.digest(
                self.site, page.url, page.title, page.content, page.meta, _toc(page.toc)
            )
            hit = self.search.get(key)
            if hit is not None:
                entries.extend(copy.deepcopy(hit))
                return
            start = len(entries)
            original(page)
            self.search[key] = copy.deepcopy(entries[start:])

        seams.answer_search(index, add)

    # -- quizzes -----------------------------------------------------------------------

    def quiz(self, key: str, render: Callable[[], str]) -> str:
        if key not in self.quizzes:
            self.quizzes[key] = render()
        return self.quizzes[key]

    # -- chapter notebooks ---------------------------------------------------------------

    def notebook(self, key: str, make: Callable[[], str]) -> str:
        """A chapter notebook made from its page (a pure function of the page's text,
        the torch version and the version notes, which ``key`` digests)."""
        if key not in self.notebooks:
            self.notebooks[key] = make()
        return self.notebooks[key]

    def notebook_page(self, key: str, clean: Callable[[], str]) -> str:
        """A notebook page's HTML cleaned (``key`` digests the HTML mkdocs-jupyter made):
        pruning JupyterLab's stylesheet is most of a rebuild's work otherwise."""
        if key not in self.notebook_pages:
            self.notebook_pages[key] = clean()
        return self.notebook_pages[key]

    def finished_page(
        self, key: str, finish: Callable[[], tuple[str, str | None]]
    ) -> tuple[str, str | None]:
        """A page's HTML after the plugin's last pass (``key`` digests the page's address
        and the HTML the templates wrote): the raw-TeX check reads every page's HTML,
        most of a prose edit's rebuild otherwise. Its problem is kept, to be told again."""
        if key not in self.finished:
            self.finished[key] = finish()
        return self.finished[key]

    # -- the theme's templates ------------------------------------------------------------

    def template_class(self) -> type[Template]:
        """A Jinja template class (the Environment's public ``template_class``) whose
        ``render`` of a page is answered from the memo when everything the theme reads
        is unchanged: the page's HTML, title, TOC, metadata, address and neighbours, every
        page's address and title (the navigation), mkdocs.yml, the files of the site and
        the templates the site overrides. Material renders the whole navigation into every
        page; most of a prose edit's rebuild was that, for pages that did not change."""
        memo = self

        class PageTemplate(Template):
            def render(self, *args: Any, **kwargs: Any) -> str:
                context = dict(*args, **kwargs)
                page = context.get("page")
                if page is None or "nav" not in context:
                    return super().render(*args, **kwargs)
                key = memo.output_key(str(self.name), page, context["nav"])
                if key not in memo.outputs:
                    memo.stats["templated"] += 1
                    memo.outputs[key] = super().render(*args, **kwargs)
                return memo.outputs[key]

        return PageTemplate

    def output_key(self, template: str, page: Page, nav: Any) -> str:
        if self.nav is None:  # titles are known once every page is rendered
            self.nav = fingerprints.digest([(p.url, p.title) for p in nav.pages])
        neighbours = [(p.url, p.title) if p else None for p in (page.previous_page, page.next_page)]
        return fingerprints.digest(
            self.site,
            self.nav,
            template,
            page.url,
            page.title,
            page.content,
            _toc(page.toc),
            repr(sorted(page.meta.items())),
            neighbours,
            page.edit_url,
            page.canonical_url,
            seams.notebook_download(page),
        )


def _pages(count: int) -> str:
    return "page" if count == 1 else "pages"


def _toc(items: Any) -> list[Any]:
    return [(i.id, i.url, i.title, i.level, _toc(i.children)) for i in items]
