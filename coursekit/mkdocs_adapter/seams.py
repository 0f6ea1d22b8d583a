"""Every use of MkDocs, Material or mkdocs-jupyter that is not their public API: here only.

Each is a seam a release can move without notice, and each has a test in
tests/test_private_apis.py that fails when it does:

* what ``Page.render`` sets on a page (MkDocs 1.6): the serve memo saves it after a
  render and sets it again on the next build's page instead of rendering
  (:func:`render_state`, :func:`restore_render`), and it answers a page's render by
  setting the page's own ``render`` (:func:`answer_render`);
* Material's search index: made per build by its plugin's ``on_config``; the memo
  answers ``add_entry_from_context`` of an unchanged page with the entries it appended
  the last time (:func:`search_index`, :func:`answer_search`);
* mkdocs-jupyter's download link of a notebook page (``nb_url``), which the theme
  prints (:func:`notebook_download`);
* the source MkDocs reads a page from (``File.abs_src_path``): a notebook page is
  rendered from its executed copy, and mkdocs-jupyter then copies the clean notebook
  next to the page (:func:`read_from`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

# What Page.render sets on a page (MkDocs 1.6).
RENDER_ATTRIBUTES = frozenset(
    {"content", "toc", "_title_from_render", "present_anchor_ids", "links_to_anchors"}
)
# mkdocs-jupyter's render of a notebook page sets these instead (it replaces the page's
# render): the title is the notebook's first heading.
NOTEBOOK_RENDER_ATTRIBUTES = frozenset({"content", "toc", "title"})

Render = Callable[[MkDocsConfig, Files], None]


def answer_render(page: Page, render: Render) -> Render:
    """Make ``render`` the page's render for this build; return the page's own."""
    original: Render = page.render
    page.render = render  # type: ignore[method-assign,assignment]  # this page, this build
    return original


def render_state(page: Page) -> dict[str, Any]:
    """Everything set on the page, to compare before and after a render."""
    return dict(vars(page))


def rendered(page: Page, before: dict[str, Any]) -> set[str] | None:
    """What a render changed on the page; None when it is not what :func:`restore_render`
    knows how to set again."""
    changed = {
        k
        for k, v in vars(page).items()
        if k != "render" and (k not in before or before[k] is not v)
    }
    known = changed <= RENDER_ATTRIBUTES or changed <= NOTEBOOK_RENDER_ATTRIBUTES
    return changed if known else None


def saved_render(page: Page, changed: set[str]) -> dict[str, Any]:
    """The attributes a render set, to set again on a later build's page (links to other
    pages' anchors by path: File objects are new every build)."""
    attributes = {
        k: copy.deepcopy(v)
        for k, v in vars(page).items()
        if k in RENDER_ATTRIBUTES | changed and k != "links_to_anchors"
    }
    links = vars(page).get("links_to_anchors", False)
    if links is not False:
        attributes["links_to_anchors"] = links and {f.src_uri: dict(a) for f, a in links.items()}
    return attributes


def restore_render(page: Page, attributes: dict[str, Any], files: Files) -> bool:
    """Set a saved render on this build's page; False if a linked page is gone."""
    restored = {k: copy.deepcopy(v) for k, v in attributes.items()}
    links = restored.get("links_to_anchors")
    if links is not None:
        by_file = {files.get_file_from_path(uri): anchors for uri, anchors in links.items()}
        if None in by_file:
            return False
        restored["links_to_anchors"] = by_file
    vars(page).update(restored)
    return True


def search_index(config: MkDocsConfig) -> Any | None:
    """This build's search index (Material's plugin makes one in ``on_config``)."""
    plugin = config.plugins.get("material/search") or config.plugins.get("search")
    return getattr(plugin, "search_index", None)


AddEntry = Callable[[Page], None]


def answer_search(index: Any, add: Callable[[Page, AddEntry, list[Any]], None]) -> None:
    """Answer ``index.add_entry_from_context(page)`` with ``add(page, original, entries)``,
    where ``entries`` is the index's list that a call appends to."""
    original: AddEntry = index.add_entry_from_context
    index.add_entry_from_context = lambda page: add(page, original, index.entries)


def notebook_download(page: Page) -> str | None:
    """The download link mkdocs-jupyter gave a notebook page (None on other pages)."""
    value = vars(page).get("nb_url")
    return None if value is None else str(value)


def read_from(file: File, path: str) -> None:
    """MkDocs (and mkdocs-jupyter) read this page, and copy it, from ``path`` now."""
    file.abs_src_path = path
