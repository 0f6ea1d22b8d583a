"""MkDocs hooks for the notebooks: chapter notebooks, download, Colab and edit links.

Loaded from ``mkdocs.yml`` (``hooks:``), after ``coursekit/mkdocs_hooks.py``.

* Every chapter page's notebook is generated from the page being built and written into
  the site at ``chapters/notebooks/<slug>.ipynb`` (coursekit/chapter_notebooks.py), in
  place of the committed copy, so the download always matches the page. A committed copy
  that differs is reported (``python -m coursekit.chapter_notebooks`` regenerates it;
  tests/test_notebooks.py fails while one is stale: Colab opens the committed copy).
* Chapter and exercise pages get **Download notebook** and, when the site is built with
  ``REPO_URL``, **Open in Colab** under their title; notebook pages get the Colab link.
* ``edit_uri`` (Material's edit button) is set only when ``REPO_URL`` is.
"""

from __future__ import annotations

import logging
import posixpath
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

from coursekit import chapter_notebooks, includes, notebook_links

log = logging.getLogger("mkdocs.hooks.coursekit.notebooks")

EXERCISES = "practice/exercises/"
EXERCISE_NOTEBOOKS = "practice/notebooks/"


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    repo = notebook_links.repository(config.repo_url)
    # Without a repository an edit link would point nowhere (MkDocs would even warn).
    config.edit_uri = repo.edit_uri if repo else None
    if not repo:
        config.repo_url = None
    return config


# Notebook JSON by (page, page text, snippets' state): `mkdocs serve` regenerates only
# the notebooks whose page or snippets changed.
_generated: dict[tuple[str, str, tuple[tuple[str, int], ...]], str] = {}


def _snippets_state(root: Path, options: dict[str, Any]) -> tuple[tuple[str, int], ...]:
    bases = options.get("base_path", ["."])
    bases = [bases] if isinstance(bases, str) else bases
    return tuple(
        (str(path), path.stat().st_mtime_ns)
        for base in bases
        for path in sorted((root / base).rglob("*"))
        if path.is_file()
    )


def _notebook_json(text: str, md_path: str, options: dict[str, Any], root: Path) -> str:
    key = (md_path, text, _snippets_state(root, options))
    if key not in _generated:
        pinned = chapter_notebooks.pinned_torch(root / "pyproject.toml")
        try:
            notebook = chapter_notebooks.build(text, md_path, options, root, pinned)
        except (chapter_notebooks.ChapterNotebookError, includes.IncludeError) as error:
            raise PluginError(str(error)) from None
        _generated[key] = chapter_notebooks.render(notebook)
    return _generated[key]


def on_files(files: Files, config: MkDocsConfig) -> Files:
    root = Path(config.config_file_path).parent
    options = dict(config.mdx_configs.get("pymdownx.snippets", {}))
    for page in list(files.documentation_pages()):
        uri = chapter_notebooks.notebook_src_uri(page.src_uri)
        if uri is None or page.abs_src_path is None:
            continue
        text = Path(page.abs_src_path).read_text(encoding="utf-8")
        md_path = Path(page.abs_src_path).relative_to(root).as_posix()
        content = _notebook_json(text, md_path, options, root)
        committed = files.get_file_from_path(uri)
        if committed is not None:
            if committed.content_string != content:
                log.info(
                    "%s/%s is out of date; run `python -m coursekit.chapter_notebooks`",
                    Path(config.docs_dir).name,
                    uri,
                )
            files.remove(committed)
        files.append(File.generated(config, uri, content=content))
    return files


def _repo_path(config: MkDocsConfig, src_uri: str) -> str:
    """A docs file's path in the repository (mkdocs.yml sits at its root)."""
    docs = Path(config.docs_dir).relative_to(Path(config.config_file_path).parent)
    return posixpath.join(docs.as_posix(), src_uri)


def _notebook_of(page: Page, files: Files) -> tuple[File | None, str | None]:
    """(the notebook file of a page, the URL of its download) or (None, None)."""
    src = page.file.src_uri
    uri = chapter_notebooks.notebook_src_uri(src)
    if uri is not None:
        file = files.get_file_from_path(uri)
        return (file, file.url) if file else (None, None)
    if src.startswith(EXERCISES):
        slug = src.removeprefix(EXERCISES).removesuffix(".md")
        file = files.get_file_from_path(f"{EXERCISE_NOTEBOOKS}{slug}.ipynb")
        if file is not None and file.is_documentation_page():
            # mkdocs-jupyter copies the notebook next to its page (include_source).
            return file, f"{file.url}{slug}.ipynb"
    return None, None


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    repo = notebook_links.repository(config.repo_url)
    src = page.file.src_uri
    if src.endswith(".ipynb"):
        # An exercise notebook's own page: its download link is already there.
        colab = repo.colab_url(_repo_path(config, src)) if repo else None
        return notebook_links.insert_under_title(html, notebook_links.links_html(None, colab))
    file, download = _notebook_of(page, files)
    if file is None or download is None:
        return html
    colab = repo.colab_url(_repo_path(config, file.src_uri)) if repo else None
    href = get_relative_url(download, page.url)
    return notebook_links.insert_under_title(html, notebook_links.links_html(href, colab))


def on_page_context(context: Any, page: Page, config: MkDocsConfig, nav: Any) -> Any:
    # A generated notebook is edited through its exercise page and snippet, not itself.
    src = page.file.src_uri
    repo = notebook_links.repository(config.repo_url)
    if repo and src.startswith(EXERCISE_NOTEBOOKS) and src.endswith(".ipynb"):
        slug = src.removeprefix(EXERCISE_NOTEBOOKS).removesuffix(".ipynb")
        page.edit_url = f"{repo.url}/{repo.edit_uri}{EXERCISES}{slug}.md"
    return context
