"""The private APIs the project relies on, checked so that an upgrade fails here, loudly.

pytest-markdown-docs has no public way to register a runner for a fence: the drift
check (coursekit/testing/drift.py) subclasses ``pytest_markdown_docs._runners._Runner``
and registers it with ``register_runner``. Under `mkdocs serve`,
coursekit/mkdocs_adapter/serve_memo.py wraps one page's ``render`` and restores the
attributes MkDocs' ``Page.render`` sets, and wraps one build's Material
``SearchIndex.add_entry_from_context``. If any of them changes shape, a test here names it.
"""

from __future__ import annotations

import inspect
from pathlib import Path

from mkdocs.config import load_config
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from pytest_markdown_docs import _runners
from pytest_markdown_docs.plugin import MarkdownInlinePythonItem


def test_pytest_markdown_docs_still_offers_named_runners() -> None:
    assert inspect.isclass(_runners._Runner)
    assert callable(_runners.register_runner)
    assert callable(_runners.get_runner)
    runtest = inspect.signature(_runners._Runner.runtest)
    assert list(runtest.parameters)[:3] == ["self", "test", "args"]
    failure = inspect.signature(_runners._Runner.repr_failure)
    assert list(failure.parameters)[:3] == ["self", "test", "excinfo"]


def test_our_runner_is_the_one_pytest_markdown_docs_finds() -> None:
    from coursekit.testing.drift import RUNNER, CourseRunner

    assert isinstance(_runners.get_runner(RUNNER), CourseRunner)
    # The item calls the runner with (test definition, globals): see its runtest.
    assert "self.runner.runtest(self.test_definition" in inspect.getsource(
        MarkdownInlinePythonItem.runtest
    )


# coursekit/mkdocs_adapter/serve_memo.py restores what MkDocs' Page.render sets on a
# page, and remembers what Material's SearchIndex.add_entry_from_context appends to its
# entries.


def _rendered_page(tmp_path: Path) -> tuple[Page, dict[str, object]]:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\n## Part\n\nSee [b](b.md#top).\n")
    (tmp_path / "docs" / "b.md").write_text("# B\n")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: t\nvalidation:\n  anchors: warn\nmarkdown_extensions: [toc]\n"
    )
    config = load_config(str(tmp_path / "mkdocs.yml"))
    files = Files([File(n, config.docs_dir, config.site_dir, True) for n in ("a.md", "b.md")])
    page = Page(None, files.get_file_from_path("a.md"), config)
    page.read_source(config)
    before = dict(vars(page))
    page.render(config, files)
    return page, before


def test_page_render_sets_only_the_attributes_the_memo_restores(tmp_path: Path) -> None:
    from coursekit.mkdocs_adapter.serve_memo import RENDER_ATTRIBUTES

    page, before = _rendered_page(tmp_path)
    changed = {k for k, v in vars(page).items() if k not in before or before[k] is not v}
    assert changed == RENDER_ATTRIBUTES, "Page.render changed shape: update serve_memo"
    # Links to other pages' anchors are keyed by File (rebuild_memo keeps their paths).
    assert page.links_to_anchors is not None
    assert [f.src_uri for f in page.links_to_anchors] == ["b.md"]


def test_material_search_index_appends_a_page_s_entries(tmp_path: Path) -> None:
    from material.plugins.search.plugin import SearchIndex

    page, _ = _rendered_page(tmp_path)
    assert list(inspect.signature(SearchIndex.add_entry_from_context).parameters) == [
        "self",
        "page",
    ]
    index = SearchIndex()
    index.add_entry_from_context(page)
    assert isinstance(index.entries, list)
    assert {entry["title"] for entry in index.entries} >= {"A", "Part"}


def test_mkdocs_renders_a_page_through_its_own_render_attribute() -> None:
    # The memo sets `page.render` on one page in on_page_markdown: MkDocs must call it on
    # the page, right after that event, and not Page.render of the class.
    from mkdocs.commands import build

    source = inspect.getsource(build._populate_page)
    markdown_event = source.index("on_page_markdown")
    assert source.index("page.render(config, files)") > markdown_event


def test_material_makes_its_search_index_in_on_config_and_fills_it_per_page() -> None:
    # The memo wraps the index of one build after Material's on_config made it.
    from material.plugins.search.plugin import SearchPlugin

    assert "self.search_index = SearchIndex(" in inspect.getsource(SearchPlugin.on_config)
    assert "self.search_index.add_entry_from_context(page)" in inspect.getsource(
        SearchPlugin.on_page_context
    )
