"""The notebooks: exercise notebooks and chapter notebooks, up to date and run for real.

Every exercise notebook runs top to bottom three times: untouched (the check must say
"Not done yet"), with the reference solution in place of the starter (it must say
"Correct"), and with a deliberately wrong answer (it must say "Not quite" and show what
it expected and what it got). Those runs use the build's own in-process runner
(coursekit/notebooks/execute.py); a Jupyter kernel runs every one of them too and must
print exactly the same, cell by cell.

Chapter notebooks (coursekit/notebooks/chapters.py) run top to bottom in a Jupyter
kernel, and every code cell must print the recorded output of its block on the page.

The kernel runs share one kernel (tests/kernel.py), cleaned before each notebook, since
starting a kernel and importing torch costs seconds; one test checks that a notebook
prints the same in it as in a kernel of its own.
"""

from __future__ import annotations

import copy
import functools
import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from kernel import SharedKernel, printed, shown
from nbclient import NotebookClient
from support import ROOT, build, fixture_site, project

from coursekit import versions
from coursekit.content.exercise_nav import Exercise
from coursekit.execution import older
from coursekit.execution.compare import Verdict, compare
from coursekit.execution.record import Record, recorded_view
from coursekit.markdown.includes import Includes
from coursekit.markdown.page import read_page
from coursekit.markdown.regions import region_names
from coursekit.notebooks import chapters, execute, links
from coursekit.notebooks.exercises import region
from coursekit.notebooks.page_cleanup import StylePruner

PROJECT = project()  # one load per process: tests/support.py
EXERCISES = PROJECT.exercises()
CHAPTERS = PROJECT.chapter_pages()

MISTAKES = ROOT / "tests" / "mistakes"


def _mistakes(exercise: Exercise) -> list[str]:
    """The names of the plausible mistakes of an exercise (tests/mistakes/<slug>.py)."""
    return region_names(MISTAKES / f"{exercise.slug}.py")


# Every way a learner can run an exercise notebook: untouched, solved, and once with each
# mistake of tests/mistakes/<slug>.py in place of the starter.
VARIANTS = [
    (exercise.slug, variant)
    for exercise in EXERCISES
    for variant in ["untouched", "solution", *(f"mistake:{m}" for m in _mistakes(exercise))]
]
MISTAKE_VARIANTS = [v for v in VARIANTS if v[1].startswith("mistake:")]


def _variant(exercise: Exercise, variant: str) -> nbformat.NotebookNode:
    notebook = copy.deepcopy(nbformat.read(exercise.notebook, as_version=4))
    starter = next(cell for cell in notebook.cells if cell.get("id") == "starter")
    if variant == "solution":
        starter.source = region(exercise.snippet, "solution")
    elif variant.startswith("mistake:"):
        starter.source = region(MISTAKES / f"{exercise.slug}.py", variant.partition(":")[2])
    return notebook


@functools.cache
def _in_process(slug: str, variant: str) -> nbformat.NotebookNode:
    """One variant run by the build's own runner (coursekit/notebooks/execute.py). A
    learner's cell may raise (a mistake can): the check cell still runs after it."""
    exercise = next(e for e in EXERCISES if e.slug == slug)
    notebook = _variant(exercise, variant)
    return execute.execute(notebook, f"{slug} ({variant})", allow_errors=True)


def _check_output(slug: str, variant: str) -> str:
    notebook = _in_process(slug, variant)
    return printed(next(cell for cell in notebook.cells if cell.get("id") == "check"))


@pytest.fixture(scope="module")
def kernel() -> Iterator[SharedKernel]:
    shared = SharedKernel()
    yield shared
    shared.close()


def _fresh_kernel(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A notebook run in a Jupyter kernel of its own, in an empty folder (as on Colab)."""
    import tempfile

    notebook = copy.deepcopy(notebook)
    with tempfile.TemporaryDirectory() as folder:
        NotebookClient(
            notebook,
            timeout=300,
            kernel_name="python3",
            allow_errors=False,
            resources={"metadata": {"path": folder}},
        ).execute(stderr=subprocess.DEVNULL)  # the kernel's own log (TCP warning)
    return notebook


SLUGS = [e.slug for e in EXERCISES]


def test_committed_notebooks_are_up_to_date() -> None:
    wanted = PROJECT.notebooks()
    stale = [p for p, text in wanted.items() if not p.exists() or p.read_text("utf-8") != text]
    stale += PROJECT.orphan_notebooks()
    assert not stale, (
        f"regenerate with `make notebooks`: {[str(p.relative_to(ROOT)) for p in stale]}"
    )


def test_notebooks_have_no_outputs_and_match_the_exercises() -> None:
    folder = ROOT / "docs" / PROJECT.options.exercise_notebooks
    assert {path.stem for path in folder.glob("*.ipynb")} == set(SLUGS)
    for exercise in EXERCISES:
        notebook = nbformat.read(exercise.notebook, as_version=4)
        for cell in notebook.cells:
            if cell.cell_type == "code":
                assert not cell.outputs and cell.execution_count is None, exercise.slug


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.slug)
def test_a_notebook_has_the_hint_of_its_page(exercise: Exercise) -> None:
    notebook = nbformat.read(exercise.notebook, as_version=4)
    page = exercise.page.read_text(encoding="utf-8")
    hint = [cell for cell in notebook.cells if cell.get("id") == "hint"]
    assert bool(hint) == ("/// details | Hint" in page), exercise.slug
    if hint:
        assert "<summary>Hint" in hint[0].source


@pytest.mark.parametrize("slug", SLUGS)
def test_untouched_notebook_says_not_done_yet(slug: str) -> None:
    output = _check_output(slug, "untouched")
    assert output.startswith("Not done yet:"), output
    starter = next(c for c in _in_process(slug, "untouched").cells if c.get("id") == "starter")
    assert "Ellipsis" not in printed(starter), "an untouched starter prints Ellipsis"


@pytest.mark.parametrize("slug", SLUGS)
def test_reference_solution_is_correct(slug: str) -> None:
    output = _check_output(slug, "solution")
    assert output.startswith("Correct:"), output


def test_every_exercise_has_mistakes_to_tell_apart() -> None:
    assert {path.stem for path in MISTAKES.glob("*.py")} == set(SLUGS)
    for exercise in EXERCISES:
        names = _mistakes(exercise)
        assert len(names) >= 2, f"{exercise.slug}: at least two plausible mistakes"
        for name in names:
            cell = region(MISTAKES / f"{exercise.slug}.py", name)
            assert cell.startswith("# "), f"{exercise.slug}:{name}: say what the mistake is"


@pytest.mark.parametrize(("slug", "variant"), MISTAKE_VARIANTS, ids=lambda v: v)
def test_a_mistake_is_told_apart_from_the_answer(slug: str, variant: str) -> None:
    output = _check_output(slug, variant).strip()
    assert output.startswith(("Not quite:", "Not done yet:")), output
    assert "could not read your answer" not in output, output
    if output.startswith("Not quite:"):
        assert "expected" in output and "got" in output, output


@pytest.mark.parametrize(("slug", "variant"), VARIANTS, ids=lambda v: v)
def test_outputs_are_deterministic(slug: str, variant: str) -> None:
    output = _check_output(slug, variant)
    assert not re.search(r"0x[0-9a-fA-F]{6,}", output) and str(ROOT) not in output, output


@pytest.mark.xdist_group("kernel")
@pytest.mark.parametrize("slug", SLUGS)
def test_the_build_prints_what_a_kernel_prints(kernel: SharedKernel, slug: str) -> None:
    """The build runs the notebooks in its own process: every cell must print what a
    Jupyter kernel prints, for every variant."""
    exercise = next(e for e in EXERCISES if e.slug == slug)
    for variant in [v for s, v in VARIANTS if s == slug]:
        ran = kernel.run(_variant(exercise, variant), allow_errors=True)
        built = _in_process(slug, variant)
        theirs = [shown(c) for c in ran.cells if c.cell_type == "code"]
        ours = [shown(c) for c in built.cells if c.cell_type == "code"]
        assert ours == theirs, f"{slug} ({variant})"


@pytest.mark.xdist_group("kernel")
def test_the_shared_kernel_runs_a_notebook_as_a_fresh_kernel_does(kernel: SharedKernel) -> None:
    # After other notebooks ran in it: a chapter (warnings shown, setup cell) and an exercise.
    for notebook in (
        nbformat.reads(PROJECT.chapter_notebook(CHAPTERS[0]), as_version=4),
        _variant(EXERCISES[0], MISTAKE_VARIANTS[0][1]),
    ):
        kernel.run(nbformat.reads(PROJECT.chapter_notebook(CHAPTERS[-1]), as_version=4))
        fresh, shared = _fresh_kernel(notebook), kernel.run(notebook)
        assert [shown(c) for c in shared.cells if c.cell_type == "code"] == [
            shown(c) for c in fresh.cells if c.cell_type == "code"
        ]


def test_unused_notebook_styles_are_dropped_and_used_ones_kept() -> None:
    css = (
        '@charset "UTF-8";.used{color:red}.unused{color:blue}'
        ".used:not(.absent) b{margin:0}.used,.unused{padding:0}"
        ":is(.used, .unused) i{top:0}@media (max-width: 10px){.unused{x:1}.used{y:2}}"
        "@keyframes spin{from{a:0}to{a:1}}"
    )
    html = f'<style>{css}</style><p class="used">x</p>'
    pruned = StylePruner().prune(html)
    assert ".unused{color:blue}" not in pruned and "{x:1}" not in pruned
    for kept in (
        ".used{color:red}",
        ".used:not(.absent) b{margin:0}",
        ".used{padding:0}",
        ":is(.used, .unused) i{top:0}",
        "@media (max-width: 10px){.used{y:2}}",
        "@keyframes spin{from{a:0}to{a:1}}",
        '@charset "UTF-8";',
    ):
        assert kept in pruned, kept


def test_a_failing_cell_fails_the_build_naming_notebook_and_cell(tmp_path: Path) -> None:
    site = fixture_site("failing-notebook", tmp_path)
    built = build(site / "mkdocs.yml", tmp_path / "site", cache_dir=tmp_path / "cache")
    assert built.returncode != 0, built.log
    assert "broken.ipynb: code cell 2 failed: IndexError: list index out of range" in built.log
    assert not (tmp_path / "site" / "broken" / "index.html").exists()


# --- Chapter notebooks ---------------------------------------------------------------------


@functools.cache
def _record() -> Record:
    return Record.load(PROJECT.record)


@pytest.mark.parametrize("page", CHAPTERS, ids=lambda page: page.stem)
def test_chapter_notebook_is_clean(page: Path) -> None:
    # The same JSON as the committed copy, generated in another process, is checked by
    # test_committed_notebooks_are_up_to_date: the generation is deterministic.
    text = PROJECT.chapter_notebook(page)
    notebook = nbformat.reads(text, as_version=4)
    nbformat.validate(notebook)
    assert json.loads(text) == json.loads(json.dumps(json.loads(text), sort_keys=True))
    assert notebook.cells[0].cell_type == "code" and notebook.cells[0].id == "setup"
    assert "torch.__version__" in notebook.cells[0].source
    # Each code cell carries its block's recorded output (none for measured times), so a
    # reader offline sees what it should print.
    source = PROJECT.read(page)
    made = zip(chapters.cells(source), source.blocks, strict=True)
    blocks = {cell.cell_id: block for cell, block in made if cell.in_notebook}
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.execution_count is None
            block = blocks.get(cell.id)
            recorded = _record().expected(block.page, block.key) if block else None
            if block is None or block.timing or not recorded:
                assert not cell.outputs, cell.id
            else:
                assert printed(cell, "stdout") == recorded and len(cell.outputs) == 1, cell.id
            assert "--8<--" not in cell.source, "an include was left unexpanded"
            assert "coursekit" not in cell.source, "Colab does not have coursekit"
        else:
            assert "```math" not in cell.source and "\n///" not in cell.source


def _version_dependent(page: Path) -> bool:
    """A chapter whose notebook prints what depends on the release: a version note of
    its page, or a warning it filters."""
    source = PROJECT.read(page)
    return any(b.changed for b in source.blocks) or any(
        "warnings." in b.code for b in source.blocks
    )


@functools.cache
def _older_record() -> Record:
    return older.load(PROJECT.root / PROJECT.options.older_records, versions.torch())


@pytest.mark.xdist_group("kernel")
@pytest.mark.parametrize("page", CHAPTERS, ids=lambda page: page.stem)
def test_chapter_notebook_prints_the_recorded_outputs(
    kernel: SharedKernel, page: Path, request: pytest.FixtureRequest
) -> None:
    """Top to bottom in a clean kernel, each code cell prints its block's recorded output.

    On an older release (``--older``, `make older-check`) the chapters whose output
    depends on the release run too: a cell of a block with a version note prints that
    release's record, every other cell today's, so a downloaded notebook prints nothing
    its page does not explain."""
    on_older = bool(request.config.getoption("--older"))
    if on_older and not _version_dependent(page):
        pytest.skip("prints nothing that depends on the release")
    source = PROJECT.read(page)
    # The committed copy (the one Colab opens; the same as the download, which
    # test_committed_notebooks_are_up_to_date checks): on an older release, a notebook
    # made there would name that release as the site's.
    committed = PROJECT.chapter_notebook_path(page).read_text(encoding="utf-8")
    notebook = kernel.run(nbformat.reads(committed, as_version=4))
    cells = {cell.id: cell for cell in notebook.cells}
    setup = printed(cells["setup"], "stdout")
    # The notebook and the pages name the same PyTorch: the one that printed the outputs.
    assert f"The site's outputs came from PyTorch {_record().torch}" in setup
    assert "This notebook runs PyTorch" in setup
    made = chapters.cells(source)
    assert any(cell.in_notebook for cell in made), "a chapter without code cells"
    problems = []
    for cell, block in zip(made, source.blocks, strict=True):
        if not cell.in_notebook:
            continue
        ran = cells[cell.cell_id]
        record = _older_record() if on_older and block.changed else _record()
        output, expected = printed(ran, "stdout"), record.expected(block.page, block.key)
        if block.timing:  # measured times: the record keeps them with every number as #
            output = recorded_view(block, output)
        # Another CPU may round the last digits of a float otherwise: only real differences.
        if expected is None or compare(expected, output) is Verdict.REAL:
            problems.append(
                f"{block.where} (cell {cell.cell_id}) printed\n{output!r}\n"
                f"the record says\n{expected!r}"
            )
        if printed(ran, "stderr"):
            problems.append(f"{block.where} wrote to stderr: {printed(ran, 'stderr')}")
        value = shown(ran)[2]
        if value:  # Jupyter shows a last line's value; the page shows only what is printed
            problems.append(f"{block.where} (cell {cell.cell_id}) shows a value: {value!r}")
    assert not problems, "\n\n".join(problems)


def _page(tmp_path: Path, markdown: str, snippet: str = "") -> nbformat.NotebookNode:
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "demo.py").write_text(snippet, encoding="utf-8")
    includes = Includes({"base_path": ["snippets"], "check_paths": True}, tmp_path)
    from mkdocs.utils.meta import get_data

    body, _ = get_data(markdown)
    offset = markdown.count("\n") - body.count("\n")
    source = read_page(body, "docs/chapters/demo.md", includes, line_offset=offset)
    return chapters.build(source, "9.9", {})


DEMO = """\
---
description: front matter is not part of the notebook
---

# Demo {#demo}

See [the next chapter](next.md) or [PyTorch](https://pytorch.org/).

```math
y = x^2
```

```python exec="on"
--8<-- "demo.py:square"
```

/// warning | Careful
Inside a block.
///

```d2 alt="A box with an arrow." caption="A caption."
a -> b
```

```python exec="on" html="on"
print("<figure></figure>")
```

```python exec="on" raises="ZeroDivisionError"
print("before")
1 / 0
```

```python
shown_only = True
```
"""

DEMO_SNIPPET = """\
# --8<-- [start:square]
print(3**2)
# --8<-- [end:square]
"""


def test_a_page_becomes_cells_in_page_order(tmp_path: Path) -> None:
    notebook = _page(tmp_path, DEMO, DEMO_SNIPPET)
    kinds = [(cell.cell_type, cell.id) for cell in notebook.cells]
    assert kinds == [
        ("code", "setup"),
        ("markdown", "text-1"),
        ("code", "square"),
        ("markdown", "text-3"),
        ("code", "block-3"),
        ("markdown", "text-5"),
    ], kinds
    intro, middle, end = (notebook.cells[i].source for i in (1, 3, 5))
    assert intro.startswith("# Demo\n") and "front matter" not in intro
    assert "See the next chapter or [PyTorch](https://pytorch.org/)." in intro
    assert "$$\ny = x^2\n$$" in intro
    assert notebook.cells[2].source == "print(3**2)"
    assert "> **Warning: Careful**\n>\n> Inside a block." in middle
    assert "**Figure on the site:** A box with an arrow." in middle
    assert chapters.FIGURE_NOTE in middle and "<figure>" not in middle
    assert "```python\nshown_only = True\n```" in end
    assert "9.9" in notebook.cells[0].source


def test_expected_errors_are_printed_and_the_notebook_goes_on(tmp_path: Path) -> None:
    notebook = _page(tmp_path, DEMO, DEMO_SNIPPET)
    execute.execute(notebook, "demo")
    outputs = [printed(cell) for cell in notebook.cells if cell.cell_type == "code"]
    assert outputs[1:] == ["9\n", "before\nZeroDivisionError: division by zero\n"]


def test_a_value_the_page_does_not_show_is_not_shown(tmp_path: Path) -> None:
    """A cell that ends in a bare expression ends with ";" (Jupyter would show its value);
    one that ends in print is left as the page has it."""
    page = """# Values\n\n```python exec="on"\nx = [1]\nx.append(2)  # grows\n```\n
```python exec="on"\nprint(x)\n```\n"""
    cells = [c.source for c in _page(tmp_path, page).cells if c.cell_type == "code"]
    assert cells[1:] == ["x = [1]\nx.append(2);  # grows", "print(x)"]


def test_blocks_that_need_coursekit_are_left_out(tmp_path: Path) -> None:
    page = '# T\n\ntext\n\n```python exec="on"\nfrom coursekit import x\n```\n'
    notebook = _page(tmp_path, page)
    assert [cell.id for cell in notebook.cells] == ["setup", "text-1"]
    assert chapters.TOOLS_NOTE in notebook.cells[1].source


def test_colab_links_only_for_github() -> None:
    repo = links.repository("https://github.com/owner/course/")
    assert repo is not None and repo.edit_uri == "edit/main/docs/"
    assert repo.colab_url("docs/x.ipynb") == (
        "https://colab.research.google.com/github/owner/course/blob/main/docs/x.ipynb"
    )
    other = links.repository("https://gitlab.com/owner/course", "b")
    assert other is not None and other.colab_url("x.ipynb") is None
    assert other.edit_uri == "edit/b/docs/"
    assert links.repository(None) is None and links.repository("") is None


# --- The built site ----------------------------------------------------------------------

_EXTERNAL = re.compile(
    r"<(?:script|link|img|iframe|source)\b[^>]*?\b(?:src|href)=\"(?:https?:)?//(?!127\.0\.0\.1)[^\"]*\"",
    re.I,
)


def test_notebook_pages_are_built_with_a_download_and_no_third_party_request(
    built_site: Path,
) -> None:
    for exercise in EXERCISES:
        slug = exercise.slug
        page = built_site / "practice" / "notebooks" / slug / "index.html"
        html = page.read_text(encoding="utf-8")
        assert f'<a href="{slug}.ipynb" download>' in html, slug
        assert (page.parent / f"{slug}.ipynb").read_bytes() == exercise.notebook.read_bytes()
        # Executed at build time, untouched: the check cell's output is on the page.
        assert "Not done yet:" in html, slug
        assert not _EXTERNAL.findall(html), _EXTERNAL.findall(html)
        assert "cdnjs" not in html and "mathjax" not in html.lower(), slug
        # JupyterLab's whole stylesheet would make the page 660 kB (see page_cleanup); the
        # pruned one is about 140 kB. (The page's own size grows with the nav and outputs.)
        styles = sum(map(len, re.findall(r"<style[^>]*>(.*?)</style>", html, re.S)))
        assert styles < 200_000, f"{slug}: {styles} characters of <style>"
        # The exercise page's download link points at that file.
        exercise = built_site / "practice" / "exercises" / slug / "index.html"
        link = f"../../notebooks/{slug}/{slug}.ipynb"
        assert f'href="{link}"' in exercise.read_text(encoding="utf-8")
        assert (exercise.parent / link).resolve().exists()
    # Only the notebooks became notebook pages (mkdocs-jupyter's default also takes .md).
    for page in ("practice/index.html", "practice/exercises/basic-gradient/index.html"):
        assert "jupyter-wrapper" not in (built_site / page).read_text(encoding="utf-8")


def _notebook_pages() -> list[tuple[str, Path]]:
    """(page source under docs/, the committed notebook it links) for every such page."""
    chapter_pages = [
        (page.relative_to(ROOT / "docs").as_posix(), PROJECT.chapter_notebook_path(page))
        for page in CHAPTERS
    ]
    exercises = [(e.page.relative_to(ROOT / "docs").as_posix(), e.notebook) for e in EXERCISES]
    return chapter_pages + exercises


def _html(site: Path, src: str) -> str:
    return (site / src.removesuffix(".md") / "index.html").read_text(encoding="utf-8")


_LINKS = re.compile(r'<p class="notebook-links">(.*?)</p>', re.S)
_EDIT = re.compile(r'<a href="([^"]+)" title="Edit this page"')


@pytest.mark.parametrize("with_repo", [False, True], ids=["no-REPO_URL", "REPO_URL"])
def test_notebook_colab_and_edit_links_exactly_when_repo_url_is_set(
    request: pytest.FixtureRequest, with_repo: bool
) -> None:
    from conftest import TEST_REPO_URL

    site = request.getfixturevalue("built_site_with_repo_url" if with_repo else "built_site")
    for src, notebook in _notebook_pages():
        html = _html(site, src)
        links = _LINKS.search(html)
        assert links, f"{src}: no notebook links under the title"
        download = re.search(r'href="([^"]+)" download', links[1])
        assert download and ">Download notebook</a>" in links[1], src
        file = (site / src.removesuffix(".md") / download[1]).resolve()
        assert file.is_file(), f"{src}: the download {download[1]} is not in the site"
        # The download is the notebook of the page as built, which is the committed one.
        assert file.read_text(encoding="utf-8") == notebook.read_text(encoding="utf-8"), src
        colab = re.search(r'href="(https://colab[^"]+)">Open in Colab</a>', links[1])
        edit = _EDIT.search(html)
        if not with_repo:
            assert colab is None and edit is None, src
            continue
        repo_path = notebook.relative_to(ROOT).as_posix()
        assert colab and colab[1] == (
            f"https://colab.research.google.com/github/example/course/blob/main/{repo_path}"
        ), src
        assert edit and edit[1] == f"{TEST_REPO_URL}/edit/main/docs/{src}", src
    # Elsewhere: no notebook links; an edit link only with a repository.
    for page in ("index.html", "practice/quizzes/chain-rule/index.html"):
        html = (site / page).read_text(encoding="utf-8")
        assert not _LINKS.search(html), page
        assert bool(_EDIT.search(html)) == with_repo, page
        # Material's repository widget would ask GitHub's API for stars on every load.
        assert 'data-md-component="source"' not in html, page
    if not with_repo:
        assert "colab.research.google.com" not in "".join(
            path.read_text(encoding="utf-8") for path in site.rglob("*.html")
        )
