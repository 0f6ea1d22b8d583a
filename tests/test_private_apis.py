"""The private APIs the project relies on, checked so that an upgrade fails here, loudly.

pytest-markdown-docs has no public way to register a runner for a fence: the drift
check (coursekit/testing/drift.py) subclasses ``pytest_markdown_docs._runners._Runner``
and registers it with ``register_runner``. Under `mkdocs serve`,
coursekit/mkdocs_adapter/serve_memo.py wraps one page's ``render`` and restores the
attributes MkDocs' ``Page.render`` sets, and wraps one build's Material
``SearchIndex.add_entry_from_context``. If any of them changes shape, a test here names it.

Each seam is exercised, not read: the third-party code runs on a tiny page or fence and
the test looks at what it did (a rename, a reordered call or a moved step fails here,
a reformatted source line does not).
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
from mkdocs.commands import build
from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from pytest_markdown_docs import _runners
from pytest_markdown_docs.definitions import FenceTestDefinition

from coursekit.mkdocs_adapter.build import PageResults

pytest_plugins = ["pytester"]


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


PROBE_PAGE = """\
```python runner:PrivateApiProbe
passes = True
```

```python runner:PrivateApiProbe
raise ValueError("the probe fails here")
```
"""


def test_a_fence_s_runner_gets_its_definition_and_the_hook_s_globals(
    pytester: pytest.Pytester,
) -> None:
    """What CourseRunner relies on, run through pytest-markdown-docs' own item: a fence
    marked `runner:NAME` is run by the runner registered under NAME, called with
    (the fence's test definition, globals holding what pytest_markdown_docs_globals
    returned); the definition's start_line is the fence's line as coursekit's scanner
    numbers it (drift.py looks results up by it); a failure is reported by the runner's
    repr_failure."""
    from coursekit.markdown.fences import scan

    @_runners.register_runner()
    class PrivateApiProbe(_runners._Runner):  # registered for this process, harmlessly
        def __init__(self) -> None:
            self.calls: list[tuple[Any, dict[str, Any]]] = []

        def runtest(self, test: FenceTestDefinition, args: dict[str, Any], **_: Any) -> None:
            self.calls.append((test, dict(args)))
            if "raise" in test.source:
                raise ValueError("the probe fails here")

        def repr_failure(
            self,
            test: FenceTestDefinition,
            excinfo: pytest.ExceptionInfo[BaseException],
            style: Any = None,
        ) -> str:
            return f"probe report: line {test.start_line}: {excinfo.value}"

    probe = _runners.get_runner("PrivateApiProbe")
    assert isinstance(probe, PrivateApiProbe)
    pytester.makeconftest(
        "def pytest_markdown_docs_globals():\n    return {'from_hook': 'the drift state'}\n"
    )
    pytester.makefile(".md", page=PROBE_PAGE)
    result = pytester.runpytest_inprocess(
        "--markdown-docs", "-p", "no:randomly", "-p", "no:cacheprovider"
    )
    fences = scan(PROBE_PAGE, "page.md")
    result.assert_outcomes(passed=1, failed=1)
    assert all(isinstance(test, FenceTestDefinition) for test, _ in probe.calls)
    assert [(t.start_line, t.source.strip()) for t, _ in probe.calls] == [
        (fence.line, fence.body.strip()) for fence in fences
    ]
    result.stdout.fnmatch_lines([f"*probe report: line {fences[1].line}: the probe fails here*"])
    assert [args.get("from_hook") for _, args in probe.calls] == ["the drift state"] * len(fences)


# coursekit/mkdocs_adapter/seams.py: what MkDocs' Page.render sets on a page (the serve
# memo sets it again), what Material's SearchIndex.add_entry_from_context appends to its
# entries, mkdocs-jupyter's nb_url, and File.abs_src_path as the page's source.


def _site(tmp_path: Path, extra: str = "") -> tuple[MkDocsConfig, Files]:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\n## Part\n\nSee [b](b.md#top).\n")
    (tmp_path / "docs" / "b.md").write_text("# B\n")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: t\nvalidation:\n  anchors: warn\nmarkdown_extensions: [toc]\n" + extra
    )
    config = load_config(str(tmp_path / "mkdocs.yml"))
    files = Files([File(n, config.docs_dir, config.site_dir, True) for n in ("a.md", "b.md")])
    return config, files


def _page(config: MkDocsConfig, files: Files) -> Page:
    page = Page(None, files.get_file_from_path("a.md"), config)
    page.read_source(config)
    return page


def _rendered_page(tmp_path: Path) -> tuple[Page, dict[str, object]]:
    config, files = _site(tmp_path)
    page = _page(config, files)
    before = dict(vars(page))
    page.render(config, files)
    return page, before


def _render_attributes(page: Page) -> dict[str, Any]:
    from coursekit.mkdocs_adapter.seams import RENDER_ATTRIBUTES

    found = {k: v for k, v in vars(page).items() if k in RENDER_ATTRIBUTES}
    found["toc"] = [(item.id, item.title, len(item.children)) for item in page.toc]
    return found


def test_page_render_sets_only_the_attributes_the_memo_restores(tmp_path: Path) -> None:
    from coursekit.mkdocs_adapter.seams import RENDER_ATTRIBUTES

    page, before = _rendered_page(tmp_path)
    changed = {k for k, v in vars(page).items() if k not in before or before[k] is not v}
    assert changed == RENDER_ATTRIBUTES, "Page.render changed shape: update seams.py"
    # Links to other pages' anchors are keyed by File (rebuild_memo keeps their paths).
    assert page.links_to_anchors is not None
    assert [f.src_uri for f in page.links_to_anchors] == ["b.md"]


def test_the_memo_restores_a_render_on_a_new_page_object(tmp_path: Path) -> None:
    """Our wrapper on the real Page: a second build's page of the same source is answered
    from the memo, without Page.render, and ends up as the first one's render left it."""
    from coursekit.mkdocs_adapter.serve_memo import ServeMemo

    config, files = _site(tmp_path)
    memo = ServeMemo()
    memo.begin(config, files)
    first = _page(config, files)
    memo.wrap_render(first, [], PageResults("docs/index.md", {}, {}, {}))
    first.render(config, files)
    second = _page(config, files)
    memo.wrap_render(second, [], PageResults("docs/index.md", {}, {}, {}))
    second.render(config, files)
    assert memo.stats == {"rendered": 1, "reused": 1, "templated": 0}
    assert _render_attributes(second) == _render_attributes(first)


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


class _RenderProbe(BasePlugin):
    """Sets `page.render` on the page in on_page_markdown, as the memo does."""

    def __init__(self) -> None:
        self.renders: list[tuple[Any, Any, str | None]] = []

    def on_page_markdown(self, markdown: str, page: Page, config: Any, files: Any) -> str:
        def render(config: MkDocsConfig, files: Files) -> None:
            self.renders.append((config, files, page.markdown))
            page.content = "<p>from the probe</p>"

        page.render = render  # type: ignore[method-assign]
        return markdown + "\nafter on_page_markdown\n"


def test_mkdocs_renders_a_page_through_its_own_render_attribute(tmp_path: Path) -> None:
    # The memo sets `page.render` on one page in on_page_markdown: MkDocs must call it on
    # the page, right after that event (with its result), and not Page.render of the class.
    config, files = _site(tmp_path)
    probe = _RenderProbe()
    config.plugins["render-probe"] = probe
    page = Page(None, files.get_file_from_path("a.md"), config)
    build._populate_page(page, config, files)
    assert len(probe.renders) == 1, "MkDocs did not call the page's own render: update serve_memo"
    rendered_config, rendered_files, markdown = probe.renders[0]
    assert rendered_config is config and rendered_files is files
    assert markdown is not None and markdown.endswith("after on_page_markdown\n")
    assert page.content == "<p>from the probe</p>"


def test_material_makes_its_search_index_in_on_config_and_fills_it_per_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The memo wraps the index of one build after Material's on_config made it, on the
    # instance; Material must make a new index per build and call that instance per page.
    from material.plugins.search.plugin import SearchIndex

    from coursekit.mkdocs_adapter.serve_memo import ServeMemo

    config, files = _site(tmp_path, "theme:\n  name: material\nplugins: [search]\n")
    plugin = config.plugins["material/search"]
    page = _page(config, files)
    page.render(config, files)

    plugin.on_config(config)
    index = plugin.search_index
    assert isinstance(index, SearchIndex)
    indexed: list[Page] = []
    index.add_entry_from_context = indexed.append
    plugin.on_page_context({}, page=page, config=config, nav=None)
    assert indexed == [page]
    plugin.on_config(config)
    assert plugin.search_index is not index, "one index for every build: update serve_memo"

    # Our wrapper through Material's own events: the second build's entries come from
    # the memo, equal to the first's, without Material indexing the page again.
    original, calls = SearchIndex.add_entry_from_context, []

    def counted(self: SearchIndex, page: Page) -> None:
        calls.append(page)
        original(self, page)

    monkeypatch.setattr(SearchIndex, "add_entry_from_context", counted)
    memo, entries = ServeMemo(), []
    memo.begin(config, files)
    for _ in range(2):
        plugin.on_config(config)
        memo.wrap_search(config)
        plugin.on_page_context({}, page=page, config=config, nav=None)
        entries.append(plugin.search_index.entries)
    assert len(calls) == 1
    assert entries[1] == entries[0] and {e["title"] for e in entries[0]} >= {"A", "Part"}


def test_a_page_is_read_and_its_notebook_copied_from_the_source_set_on_its_file(
    tmp_path: Path,
) -> None:
    """seams.read_from: MkDocs reads the page's source, and mkdocs-jupyter renders it and
    copies the download next to the page, from File.abs_src_path at that moment."""
    from mkdocs_jupyter.plugin import Plugin as JupyterPlugin

    from coursekit.mkdocs_adapter import seams

    config, files = _site(tmp_path)
    other = tmp_path / "elsewhere.md"
    other.write_text("# From elsewhere\n", encoding="utf-8")
    file = files.get_file_from_path("a.md")
    assert file is not None
    seams.read_from(file, str(other))
    page = Page(None, file, config)
    page.read_source(config)
    assert page.markdown is not None and page.markdown.startswith("# From elsewhere")

    notebook = tmp_path / "docs" / "n.ipynb"
    notebook.write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    executed = tmp_path / "executed.ipynb"
    executed.write_text(notebook.read_text())
    nb_file = File("n.ipynb", config.docs_dir, config.site_dir, True)
    jupyter = JupyterPlugin()
    jupyter.load_config({"include_source": True})
    nb_page = Page(None, nb_file, config)
    seams.read_from(nb_file, str(executed))
    seams.read_from(nb_file, str(notebook))  # the clean copy back, as on_post_page does
    jupyter.on_post_page("", page=nb_page, config=config)
    copied = Path(nb_file.abs_dest_path).parent / "n.ipynb"
    assert copied.read_text() == notebook.read_text(), "mkdocs-jupyter copies another file"


def test_mkdocs_jupyter_names_a_notebook_page_s_download_nb_url(tmp_path: Path) -> None:
    """seams.notebook_download: mkdocs-jupyter sets page.nb_url, which the theme prints."""
    from mkdocs_jupyter.plugin import Plugin as JupyterPlugin

    from coursekit.mkdocs_adapter import seams

    config, _ = _site(tmp_path)
    notebook = tmp_path / "docs" / "n.ipynb"
    notebook.write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    page = Page(None, File("n.ipynb", config.docs_dir, config.site_dir, True), config)
    JupyterPlugin()._set_nb_url(page)  # what its on_pre_page calls for a notebook page
    download = seams.notebook_download(page)
    assert download is not None and download.endswith("n.ipynb"), "nb_url moved: update seams"
