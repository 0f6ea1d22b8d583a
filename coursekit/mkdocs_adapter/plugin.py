"""The course's MkDocs plugin: executed blocks, maths, diagrams, quizzes, notebooks.

``plugins: - coursekit`` in mkdocs.yml (after markdown-exec and mkdocs-jupyter), with
the options of :class:`~coursekit.mkdocs_adapter.config.CourseConfig`. The work itself
is done by the packages beside this one, none of which imports MkDocs; this adapter
reads the site, calls them at the right moment, and fails the build, naming the
Markdown file and line, on anything half-built.

The MkDocs events it uses, in the order a build runs them:

* ``on_startup`` (once per process): under `mkdocs serve`, a :class:`ServeMemo` that
  lives across rebuilds. Defining it also makes MkDocs keep this plugin object.
* ``on_config``: a fresh :class:`BuildRun` for the build; the executed Python fence
  added (:mod:`~coursekit.mkdocs_adapter.exec_fence`) and the ``d2``/``math`` fences
  routed through the build (so errors name file and line).
* ``on_files``: the notebooks to execute; the chapter notebooks to generate.
* ``on_nav``: the order of exercises, quizzes and interview topics.
* ``on_pre_page`` (before mkdocs-jupyter): a notebook page reads its executed copy.
* ``on_page_markdown``: the page read once (includes expanded), its blocks run or
  recalled (its fences show them as MkDocs renders the page next), its chapter
  notebook made, the run stamp, short answers, exercise links and quizzes added.
* ``on_page_content``: every block was shown; notebook pages cleaned and their
  contents linked to their heading ids; copy buttons, step-through assets and notebook
  links added.
* ``on_page_context``: the meta description escaped; edit links of notebooks.
* ``on_post_page`` (before mkdocs-jupyter copies the download): a page that shows TeX
  as text refused; the clean notebook; the page's own slate styles repeated for a dark
  system without JavaScript (:mod:`~coursekit.content.dark_without_js`).
* ``on_post_build``: the summary line; caches of pages and notebooks that are gone; the
  stylesheet of the dark scheme without JavaScript.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable
from functools import cached_property, partial
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from jinja2 import Environment
from markupsafe import Markup
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import Files
from mkdocs.structure.nav import Navigation, Section
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url
from mkdocs.utils.meta import get_data
from mkdocs.utils.templates import TemplateContext

from coursekit import files as fingerprints
from coursekit import numerics
from coursekit.content import copy_buttons, exercise_nav, interview, quiz, raw_tex
from coursekit.content.dark_without_js import dark_without_js, with_dark_copies
from coursekit.content.output_box import stamp
from coursekit.errors import CourseError
from coursekit.figures import STEP_FIGURE_CLASS
from coursekit.figures.d2 import rendering
from coursekit.markdown import where
from coursekit.mkdocs_adapter import notebook_pages
from coursekit.mkdocs_adapter.build import BuildRun, PageResults, serve_log
from coursekit.mkdocs_adapter.config import CourseConfig
from coursekit.mkdocs_adapter.errors import in_fence, reporting
from coursekit.mkdocs_adapter.exec_fence import ExecFence
from coursekit.mkdocs_adapter.quiz_fence import QuizFence
from coursekit.mkdocs_adapter.serve_memo import ServeMemo
from coursekit.notebooks import page_cleanup

log = logging.getLogger("mkdocs.plugins.coursekit")

STEP_SCRIPT = "assets/javascripts/backprop-steps.js"
STEP_STYLESHEET = "assets/stylesheets/backprop-steps.css"
# The fences coursekit renders itself, each told its page and line (coursekit.markdown.where).
FENCES = frozenset({"python", "py", "d2", "quiz", "quiz-index"})
# The slate scheme for a dark-scheme reader without JavaScript (overrides/main.html).
DARK_WITHOUT_JS = "assets/stylesheets/dark-without-js.css"
INTERVIEW_MARKERS = MappingProxyType(
    {"index.md": "<!-- interview:index -->", "summary.md": "<!-- interview:summary -->"}
)


# Every on_* event turns a CourseError (file:line: what is wrong) into MkDocs' error.
@reporting
class CoursePlugin(BasePlugin[CourseConfig]):
    def __init__(self) -> None:
        # MkDocs makes the plugin while it reads mkdocs.yml, before any block imports torch.
        numerics.pin()
        self.serving = False
        self.memo: ServeMemo | None = None  # `mkdocs serve` only: lives across rebuilds
        self.pruner = page_cleanup.StylePruner()
        self._build: BuildRun | None = None

    @property
    def build(self) -> BuildRun:
        if self._build is None:
            # A bug (an event called out of MkDocs' order), not the author's: a traceback.
            raise RuntimeError("coursekit: on_config did not run before the pages were built")
        return self._build

    @cached_property
    def quiz_renderer(self) -> quiz.QuizRenderer:
        """Made at the first quiz page; kept for the next pages (and rebuilds of serve)."""
        return quiz.QuizRenderer()

    # -- the build starts ------------------------------------------------------------

    def on_startup(self, *, command: Literal["build", "gh-deploy", "serve"], dirty: bool) -> None:
        self.serving = command == "serve"
        self.memo = ServeMemo() if self.serving else None

    @event_priority(-50)  # after markdown-exec and Material's search set themselves up
    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        copy_buttons.check_features(list(config.theme.get("features") or []))
        build = BuildRun.start(config, self.config, serving=self.serving)
        self._build = build
        settings = fingerprints.digest(Path(config.config_file_path).read_bytes())
        rendered = self.memo.blocks if self.memo else {}
        ExecFence(build, settings, rendered).install(config)
        QuizFence(build, lambda: self.quiz_renderer, self.memo).install(config)
        self._route_fences(config, build)
        # Without a repository an edit link would point nowhere (MkDocs would even warn).
        if not config.repo_url:
            config.edit_uri = None
        else:
            config.edit_uri = f"edit/{self.config.repo_branch}/docs/"
        if self.memo:
            self.memo.wrap_search(config)
        return config

    def _route_fences(self, config: MkDocsConfig, build: BuildRun) -> None:
        """The d2 and math fences draw with this build's renderer and fail the build with
        their file and line."""
        superfences = config.mdx_configs.get("pymdownx.superfences", {})
        for fence in superfences.get("custom_fences", []):
            if fence.get("name") in {"d2", "math"}:
                for role in ("format", "validator"):
                    if callable(fence.get(role)):
                        fence[role] = in_fence(_drawing_with(fence[role], build))

    @event_priority(-100)  # after mkdocs-jupyter has claimed the notebook files
    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        self.build.files = files
        notebook_pages.register(self.build, files, config)
        if self.memo:
            self.memo.begin(config, files)
        return files

    def on_nav(self, nav: Navigation, config: MkDocsConfig, files: Files) -> Navigation:
        build, options = self.build, self.config
        exercises = options.exercises.rstrip("/") + "/"
        quizzes = options.quizzes.rstrip("/") + "/"
        where = {
            "docs": build.docs,
            "snippets": build.root / options.exercise_snippets,
            "notebooks": build.docs / options.exercise_notebooks,
        }
        build.exercises = [
            exercise_nav.exercise(page.file.src_uri, page.file.content_string, **where)
            for page in nav.pages
            if page.file.src_uri.startswith(exercises)
        ]
        build.quiz_pages = [p.file.src_uri for p in nav.pages if p.file.src_uri.startswith(quizzes)]
        build.topics = _interview_topics(nav, files, options.interview.rstrip("/") + "/")
        return nav

    def on_env(self, env: Environment, config: MkDocsConfig, files: Files) -> Environment:
        if self.memo:  # MkDocs makes a new environment for every rebuild
            env.bytecode_cache = self.memo.templates
            env.template_class = self.memo.template_class()
        return env

    # -- each page ---------------------------------------------------------------------

    @event_priority(100)  # before mkdocs-jupyter renders a notebook page
    def on_pre_page(self, page: Page, config: MkDocsConfig, files: Files) -> Page:
        notebook_pages.use_executed_copy(self.build, page)
        return page

    def on_page_markdown(
        self, markdown: str, page: Page, config: MkDocsConfig, files: Files
    ) -> str:
        build, src = self.build, page.file.src_uri
        # MkDocs strips the front matter first (with this parser): count it back, so that
        # lines in errors are the file's.
        raw = page.file.content_string
        offset = raw.count("\n") - get_data(raw)[0].count("\n")
        source = build.read(markdown, src, offset)
        notebook_pages.generate(build, src, source, config, self.memo)
        results = build.run(source)  # what the page's Python fences will show
        # Each fence coursekit renders learns its page and line from its own options.
        markdown = where.tag(source, FENCES)
        if source.blocks:
            markdown = stamp(markdown, build.torch)
        markdown = self._interview(markdown, page, config)
        markdown = exercise_nav.append(markdown, exercise_nav.links(build.exercises, src))
        if self.memo:
            self.memo.wrap_render(page, _memo_results(results), results)
        return markdown

    def _interview(self, markdown: str, page: Page, config: MkDocsConfig) -> str:
        folder = self.config.interview.rstrip("/") + "/"
        src = page.file.src_uri
        if not src.startswith(folder):
            return markdown
        where = f"docs/{src}"
        name = src.removeprefix(folder)
        if name in INTERVIEW_MARKERS:
            return interview.listing(
                markdown,
                INTERVIEW_MARKERS[name],
                self.build.topics,
                summary=name == "summary.md",
                folder=folder,
                where=where,
            )
        markdown = interview.question_page(markdown, page.meta, where)
        # Material writes page.meta.description into <meta name="description">.
        page.meta["description"] = interview.plain(interview.short_answer(page.meta, where))
        return markdown

    def on_page_content(self, html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        build, src = self.build, page.file.src_uri
        results = build.pages.get(build.page_path(src))
        if results is not None:
            results.check_all_shown()
        if src in build.notebook_jobs:
            clean = partial(page_cleanup.page_content, html, src, self.pruner)
            if self.memo:  # under `mkdocs serve`: by the HTML mkdocs-jupyter made
                html = self.memo.notebook_page(fingerprints.digest(src, html), clean)
            else:
                html = clean()
            notebook_pages.align_toc(page, html)
        html = with_step_assets(copy_buttons.add(html), page.url)
        return notebook_pages.links_under_title(build, html, page, config, files)

    def on_page_context(
        self, context: TemplateContext, /, *, page: Page, config: MkDocsConfig, nav: Navigation
    ) -> TemplateContext:
        # Material prints page.meta.description into an attribute without escaping it:
        # an escaped Markup prints right whether a template escapes it or not.
        description = page.meta.get("description")
        if description and not isinstance(description, Markup):
            page.meta["description"] = Markup(html.escape(str(description), quote=True))
        notebook_pages.edit_link(self.build, page, config)
        return context

    @event_priority(100)  # before mkdocs-jupyter copies the download next to the page
    def on_post_page(self, output: str, page: Page, config: MkDocsConfig) -> str:
        def finish() -> tuple[str, str | None]:
            # A page's own styles (diagrams, notebooks) for a dark system without JavaScript.
            return with_dark_copies(output), _raw_tex_problem(output, page)

        if self.memo:
            key = fingerprints.digest(page.file.src_uri, output)
            written, problem = self.memo.finished_page(key, finish)
        else:
            written, problem = finish()
        if problem and self.build.serving:
            serve_log().error("%s", problem)
        elif problem:
            raise CourseError(problem)
        notebook_pages.restore_source(self.build, page)
        return written

    def on_post_build(self, config: MkDocsConfig) -> None:
        build = self.build
        summary = build.summary()
        if self.memo:
            summary += f"; {self.memo.report()}"
        build.cache.prune(source.path for source in build.sources.values())
        notebook_pages.prune(build)
        _write_dark_without_js(config)
        log.info("%s", summary)


# --- helpers -----------------------------------------------------------------------------


def with_step_assets(html: str, page_url: str) -> str:
    """A page that holds a step-through figure gets its script and stylesheet, in the
    content: a page without one loads neither."""
    if f'<figure class="{STEP_FIGURE_CLASS}"' not in html:
        return html
    # Relative to the page, as MkDocs writes its own links (the site may live in a folder).
    script = get_relative_url(STEP_SCRIPT, page_url)
    stylesheet = get_relative_url(STEP_STYLESHEET, page_url)
    return (
        f'<link rel="stylesheet" href="{stylesheet}">\n{html}\n'
        f'<script src="{script}" defer></script>'
    )


def _write_dark_without_js(config: MkDocsConfig) -> None:
    """The slate rules of the theme's and the site's stylesheets, for a dark-scheme
    reader without JavaScript (coursekit/content/dark_without_js.py), into the site.
    Material's only: another theme (the test fixtures' sites) has no slate scheme."""
    theme = []
    for name in ("main", "palette"):  # the two stylesheets Material's base.html links
        # The first theme folder that has one wins, as for templates.
        found = [
            path
            for folder in config.theme.dirs
            for path in sorted(Path(folder).glob(f"assets/stylesheets/{name}.*.min.css"))
        ]
        theme += found[:1]
    if config.theme.name != "material" or not theme:
        return
    own = [Path(config.docs_dir, str(css)) for css in [*config.extra_css, STEP_STYLESHEET]]
    sheets = [*theme, *(path for path in own if path.is_file())]
    css = dark_without_js(path.read_text(encoding="utf-8") for path in sheets)
    Path(config.site_dir, DARK_WITHOUT_JS).write_text(css, encoding="utf-8")


def _raw_tex_problem(output: str, page: Page) -> str | None:
    """Why a written page fails the build (is printed under `mkdocs serve`): it shows TeX
    source as text, named by the page and the line of its source; or None."""
    shown = raw_tex.raw_tex(output)
    if not shown:
        return None
    line = raw_tex.source_line(page.file.content_string, shown[0])
    where = f"docs/{page.file.src_uri}" + (f":{line}" if line else "")
    return (
        f"{where}: the built page shows TeX as text, not maths: {shown[0][:80]!r}"
        + (f" (and {len(shown) - 1} more)" if len(shown) > 1 else "")
        + ". Is a $...$ formula broken (a space just inside a dollar, a blank line), or "
        "maths inside raw HTML?"
    )


def _memo_results(page: PageResults) -> list[Any]:
    return [
        (r.block, r.output, r.failure.report() if r.failure else None, r.after_failure, drifted)
        for r, drifted in zip(page.results.values(), page.drifted.values(), strict=True)
    ]


def _drawing_with(function: Callable[..., Any], build: BuildRun) -> Callable[..., Any]:
    """A d2 or math fence's function, drawing with this build's diagram renderer."""

    def call(*args: Any, **kwargs: Any) -> Any:
        with rendering(build.renderer):
            return function(*args, **kwargs)

    return call


def _interview_topics(nav: Navigation, files: Files, folder: str) -> list[interview.Topic]:
    """The topic sections of the interview index's section, each with its questions;
    every question page of the folder must be in one of them."""
    index = next((p for p in nav.pages if p.file.src_uri == f"{folder}index.md"), None)
    if index is None:
        return []
    section = index.parent
    if section is None:
        raise CourseError(f"docs/{folder}index.md must be in a nav section of its own")
    topics = []
    for child in section.children:
        if not isinstance(child, Section):
            continue
        questions = []
        for item in child.children:
            if not isinstance(item, Page):
                continue
            body, meta = get_data(item.file.content_string)
            questions.append(interview.question(item.file.src_uri, body, meta))
        topics.append(interview.Topic(child.title, tuple(questions)))
    listed = {q.src for topic in topics for q in topic.questions}
    not_questions = {f"{folder}{name}" for name in INTERVIEW_MARKERS}
    missing = sorted(
        f.src_uri
        for f in files.documentation_pages()
        if f.src_uri.startswith(folder) and f.src_uri not in listed | not_questions
    )
    if missing:
        raise CourseError(
            f"docs/{missing[0]}: this question is not in a topic section of the "
            "'Interview questions' nav in mkdocs.yml, so the index would not list it"
        )
    return topics
