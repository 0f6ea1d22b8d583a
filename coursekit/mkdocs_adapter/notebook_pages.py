"""Notebooks in the build: chapter notebooks, executed exercise notebooks, their links.

* Every chapter page's notebook is generated from the page being built (from the same
  :class:`~coursekit.markdown.page.PageSource`, so includes are expanded once) and
  written into the site in place of the committed copy, so the download always matches
  the page. A committed copy that differs is reported (``make notebooks`` regenerates
  it; a test fails while one is stale: Colab opens the committed copy).
* Exercise notebook pages (mkdocs-jupyter) are executed in the build's own process
  (:mod:`coursekit.notebooks.execute`) into ``<cache>/notebooks/``; mkdocs-jupyter
  renders the executed copy (its own ``execute`` is off) and the download stays the
  clean notebook. Copies no build uses any more are removed after a build.
* Chapter and exercise pages get **Download notebook** and, with a repository address,
  **Open in Colab** under their title; notebook pages get the Colab link.
"""

from __future__ import annotations

import logging
import os
import posixpath
import re
import shutil
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import AnchorLink
from mkdocs.utils import get_relative_url

from coursekit import files as fingerprints
from coursekit import versions
from coursekit.errors import CourseError
from coursekit.markdown.page import PageSource
from coursekit.mkdocs_adapter import seams
from coursekit.mkdocs_adapter.build import BuildRun, ChapterNotebook, NotebookJob
from coursekit.mkdocs_adapter.serve_memo import ServeMemo
from coursekit.notebooks import chapters, execute, links
from coursekit.notebooks.exercises import render

log = logging.getLogger("mkdocs.plugins.coursekit.notebooks")


def register(build: BuildRun, files: Files, config: MkDocsConfig) -> None:
    """``on_files``: note the exercise notebooks to execute and the chapter notebooks."""
    folders = tuple(build.options.chapters)
    fingerprint = versions.fingerprint()  # once per build: it asks d2 for its version
    for file in list(files):
        if file.src_uri.endswith(".ipynb") and file.is_documentation_page():
            source = Path(file.abs_src_path or "")
            key = execute.cache_key(source, fingerprint)
            # The copy keeps the page's relative path: mkdocs-jupyter matches its
            # `include` patterns and names the download after it.
            target = build.cache_root / "notebooks" / key / file.src_uri
            name = os.path.relpath(source, build.root)
            build.notebook_jobs[file.src_uri] = NotebookJob(source, target, name)
    for page in list(files.documentation_pages()):
        uri = chapters.notebook_src_uri(page.src_uri, folders)
        if uri is None:
            continue
        committed = files.get_file_from_path(uri)
        text = committed.content_string if committed is not None else None
        if committed is not None:
            files.remove(committed)
        generated = File.generated(config, uri, content="")
        files.append(generated)
        build.chapter_notebooks[page.src_uri] = ChapterNotebook(generated, text)


def generate(
    build: BuildRun,
    src_uri: str,
    source: PageSource,
    config: MkDocsConfig,
    memo: ServeMemo | None = None,
) -> None:
    """``on_page_markdown`` of a chapter page: its notebook, from the page as read
    (under `mkdocs serve`, from the memo while the page's text is the same)."""
    entry = build.chapter_notebooks.get(src_uri)
    if entry is None:
        return

    recorded = build.record.pages.get(build.page_path(src_uri), {}) if build.record else {}

    def make() -> str:
        return render(chapters.build(source, build.torch, build.older.notes, recorded))

    if memo is None:
        content = make()
    else:
        notes = sorted((name, repr(note)) for name, note in build.older.notes.items())
        key = fingerprints.digest(
            src_uri, source.text, source.written, build.torch, notes, sorted(recorded.items())
        )
        content = memo.notebook(key, make)
    entry.file.content_string = content
    if entry.committed != content:
        log.info(
            "%s is out of date; run `make notebooks`",
            posixpath.join(Path(config.docs_dir).name, entry.file.src_uri),
        )


def use_executed_copy(build: BuildRun, page: Page) -> None:
    """``on_pre_page``: execute a notebook page, and render its executed copy."""
    job = build.notebook_jobs.get(page.file.src_uri)
    if job is None:
        return
    try:
        copy = execute.executed_copy(job.source, job.target, job.name)
    except execute.CellError as error:
        # The note follows the message in the build's error (mkdocs_adapter/errors.py).
        error.add_note("The notebook's page was not built.")
        raise
    build.restore[page.file.src_uri] = str(job.source)
    seams.read_from(page.file, str(copy))


def restore_source(build: BuildRun, page: Page) -> None:
    """``on_post_page``: the download copied next to the page is the clean notebook."""
    source = build.restore.pop(page.file.src_uri, None)
    if source is not None:
        seams.read_from(page.file, source)


HEADING_ID = re.compile(r"<h([1-6])\b[^>]*\sid=\"([^\"]+)\"")


def align_toc(page: Page, html: str) -> None:
    """``on_page_content`` of a notebook page: its contents and skip link use its heading ids.

    mkdocs-jupyter slugs the table of contents from the Markdown, and nbconvert slugs the
    headings from the HTML. They differ when a heading holds code ("… with `create_graph`"
    loses its last word in the first), and then "Skip to content" led nowhere.
    """
    headings = [(int(level), heading_id) for level, heading_id in HEADING_ID.findall(html)]
    items: list[AnchorLink] = []
    stack = list(reversed(page.toc.items))
    while stack:
        item = stack.pop()
        items.append(item)
        stack.extend(reversed(item.children))
    levels = [item.level for item in items]
    if levels != [level for level, _ in headings]:
        raise CourseError(
            f"docs/{page.file.src_uri}: the contents list headings of levels {levels}, the "
            f"page has {[level for level, _ in headings]}; its contents cannot be linked"
        )
    for item, (_, heading_id) in zip(items, headings, strict=True):
        item.id = heading_id


def prune(build: BuildRun) -> None:
    """After a build: remove executed copies that no notebook of the site uses now."""
    folder = build.cache_root / "notebooks"
    used = {job.target.relative_to(folder).parts[0] for job in build.notebook_jobs.values()}
    if folder.is_dir():
        for entry in folder.iterdir():
            if entry.name not in used:
                shutil.rmtree(entry, ignore_errors=True)


# --- links under the title --------------------------------------------------------------


def _repo_path(config: MkDocsConfig, src_uri: str) -> str:
    """A docs file's path in the repository (mkdocs.yml sits at its root)."""
    docs = Path(config.docs_dir).relative_to(Path(config.config_file_path).parent)
    return posixpath.join(docs.as_posix(), src_uri)


def _notebook_of(build: BuildRun, page: Page, files: Files) -> tuple[File | None, str | None]:
    """(the notebook file of a page, the URL of its download) or (None, None)."""
    src = page.file.src_uri
    chapter = build.chapter_notebooks.get(src)
    if chapter is not None:
        return chapter.file, chapter.file.url
    exercises = build.options.exercises.rstrip("/") + "/"
    if src.startswith(exercises):
        slug = src.removeprefix(exercises).removesuffix(".md")
        uri = f"{build.options.exercise_notebooks.rstrip('/')}/{slug}.ipynb"
        file = files.get_file_from_path(uri)
        if file is not None and file.is_documentation_page():
            # mkdocs-jupyter copies the notebook next to its page (include_source).
            return file, f"{file.url}{slug}.ipynb"
    return None, None


def links_under_title(
    build: BuildRun, html: str, page: Page, config: MkDocsConfig, files: Files
) -> str:
    """``on_page_content``: Download notebook and Open in Colab under the title."""
    repo = links.repository(config.repo_url, build.options.repo_branch)
    src = page.file.src_uri
    if src in build.notebook_jobs:
        # An exercise notebook's own page: its download link is already there.
        colab = repo.colab_url(_repo_path(config, src)) if repo else None
        return links.insert_under_title(html, links.links_html(None, colab))
    file, download = _notebook_of(build, page, files)
    if file is None or download is None:
        return html
    colab = repo.colab_url(_repo_path(config, file.src_uri)) if repo else None
    href = get_relative_url(download, page.url)
    return links.insert_under_title(html, links.links_html(href, colab))


def edit_link(build: BuildRun, page: Page, config: MkDocsConfig) -> None:
    """``on_page_context``: a generated notebook is edited through its exercise page."""
    repo = links.repository(config.repo_url, build.options.repo_branch)
    notebooks = build.options.exercise_notebooks.rstrip("/") + "/"
    src = page.file.src_uri
    if repo and src.startswith(notebooks) and src.endswith(".ipynb"):
        slug = src.removeprefix(notebooks).removesuffix(".ipynb")
        exercises = build.options.exercises.rstrip("/")
        page.edit_url = f"{repo.url}/{repo.edit_uri}{exercises}/{slug}.md"
