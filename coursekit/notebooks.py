"""The exercise notebooks: generated from the exercise pages and their snippets.

Each ``docs/practice/notebooks/<slug>.ipynb`` is assembled from two sources that
already exist, so nothing is written twice:

* the exercise page ``docs/practice/exercises/<slug>.md``: its title, level line and
  ``## Task`` section;
* the snippet ``snippets/practice/<slug_with_underscores>.py``: its ``starter`` region
  (the cell the learner edits) and its ``check`` region (the cell that says whether
  the answer is right). The ``solution`` region is what the tests put in place of the
  starter.

Regenerate after editing either source::

    python -m coursekit.notebooks          # rewrite the notebooks
    python -m coursekit.notebooks --check  # exit 1 if a committed notebook is stale

The notebooks are committed without outputs: the site executes them at build time
(mkdocs-jupyter), and the download is the clean notebook.

The module also post-processes the notebook pages of the built site
(:func:`page_content`): a download link, and no script or stylesheet from another host.
"""

from __future__ import annotations

import argparse
import re
import sys
from functools import lru_cache
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
PAGES = ROOT / "docs" / "practice" / "exercises"
SNIPPETS = ROOT / "snippets" / "practice"
NOTEBOOKS = ROOT / "docs" / "practice" / "notebooks"

# Syllabus order, then the three exercises of other kinds (predict, debug, derive).
EXERCISES = (
    "basic-gradient",
    "chain-rule",
    "several-variables",
    "accumulation",
    "non-scalar",
    "training-loop",
    "gradient-of-the-mean",
    "predict-the-output",
    "find-the-bug",
    "derive-a-gradient",
    "check-a-gradient",
    "network-by-hand",
    "tiny-autograd",
    "write-a-custom-function",
)

_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")

HOW_TO = """\
## How to work

Edit the code cell below and run it, then run the check cell at the end. The check
recomputes the right answer with PyTorch from your own values. It prints **Correct**,
**Not quite** (with what it expected and what it got) or **Not done yet**."""

CHECK_INTRO = """\
## Check your answer

Run this cell after yours. You do not need to change it."""


class NotebookSourceError(ValueError):
    """An exercise page or snippet lacks a part the notebook needs."""


def snippet_path(slug: str) -> Path:
    return SNIPPETS / f"{slug.replace('-', '_')}.py"


def region(path: Path, name: str) -> str:
    """The code between ``# --8<-- [start:name]`` and ``# --8<-- [end:name]``."""
    text = path.read_text(encoding="utf-8")
    match = re.search(
        rf"^# --8<-- \[start:{re.escape(name)}\]\n(.*?)^# --8<-- \[end:{re.escape(name)}\]",
        text,
        re.S | re.M,
    )
    if not match:
        raise NotebookSourceError(f"{path.relative_to(ROOT)}: no region named {name!r}")
    return match.group(1).strip("\n")


def page_parts(slug: str) -> tuple[str, str, str]:
    """(title, level line, task text) of an exercise page, links reduced to their text."""
    path = PAGES / f"{slug}.md"
    text = path.read_text(encoding="utf-8")
    title = re.search(r"^# (.+)$", text, re.M)
    level = re.search(r"^\*\*Level:\*\*.*?(?=\n\n)", text, re.M | re.S)
    task = re.search(r"^## Task\n\n(.*?)\n+^## ", text, re.M | re.S)
    if not (title and level and task):
        raise NotebookSourceError(
            f"{path.relative_to(ROOT)}: needs a '# Title', a '**Level:**' line and a "
            "'## Task' section"
        )
    return title[1].strip(), _LINK.sub(r"\1", level[0]), _LINK.sub(r"\1", task[1].strip())


def build(slug: str) -> nbformat.NotebookNode:
    """The notebook of one exercise, with fixed cell ids so that it regenerates identically."""
    title, level, task = page_parts(slug)
    number, _, name = title.partition(":")
    snippet = snippet_path(slug)
    cells = [
        nbformat.v4.new_markdown_cell(
            f"# {number} notebook:{name}\n\n{level}\n\n## Task\n\n{task}\n\n{HOW_TO}",
            id="task",
        ),
        nbformat.v4.new_code_cell(region(snippet, "starter"), id="starter"),
        nbformat.v4.new_markdown_cell(CHECK_INTRO, id="check-intro"),
        nbformat.v4.new_code_cell(region(snippet, "check"), id="check"),
    ]
    return new_notebook(cells)


def new_notebook(cells: list[nbformat.NotebookNode]) -> nbformat.NotebookNode:
    """A validated notebook of ``cells`` for a plain Python 3 kernel."""
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    nbformat.validate(notebook)
    return notebook


def render(notebook: nbformat.NotebookNode) -> str:
    """The notebook as committed: nbformat's JSON and a final newline."""
    return nbformat.writes(notebook) + "\n"


def notebook_path(slug: str) -> Path:
    return NOTEBOOKS / f"{slug}.ipynb"


def stale() -> list[str]:
    """Slugs whose committed notebook differs from what :func:`build` produces."""
    return [
        slug
        for slug in EXERCISES
        if not notebook_path(slug).exists()
        or notebook_path(slug).read_text(encoding="utf-8") != render(build(slug))
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only report stale notebooks")
    args = parser.parse_args(argv)
    if args.check:
        outdated = stale()
        for slug in outdated:
            print(f"{notebook_path(slug).relative_to(ROOT)} is out of date", file=sys.stderr)
        if outdated:
            print("Run: python -m coursekit.notebooks", file=sys.stderr)
        return 1 if outdated else 0
    NOTEBOOKS.mkdir(parents=True, exist_ok=True)
    for slug in EXERCISES:
        notebook_path(slug).write_text(render(build(slug)), encoding="utf-8")
        print(f"wrote {notebook_path(slug).relative_to(ROOT)}")
    return 0


# --- The notebook pages of the site (called from coursekit/mkdocs_hooks.py) ---------

# nbconvert's template always emits MathJax (from a CDN, or an empty src when the URL
# is blank) and a Mermaid loader that imports from a CDN. The notebooks use neither,
# and the site makes no third-party request, so both are removed.
_MATHJAX = re.compile(
    r"<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->\s*", re.S | re.I
)
_MERMAID = re.compile(r"<script type=\"module\">(?:(?!</script>).)*?mermaid.*?</script>\s*", re.S)


def page_content(html: str, page: object) -> str:
    """Clean a notebook page's HTML and put a download link under its title."""
    nb_url = getattr(page, "nb_url", None)
    src = getattr(getattr(page, "file", None), "src_uri", "")
    if not nb_url or not src.endswith(".ipynb"):
        return html
    html = prune_styles(_MERMAID.sub("", _MATHJAX.sub("", html)))
    name = Path(src).name
    download = (
        f'<p class="notebook-download"><a href="{name}" download>Download this notebook '
        f"({name})</a> and run it in Jupyter; its last cell checks your answer. Below, the "
        "notebook as it ran when the site was built, before any answer was filled in.</p>"
    )
    # Right under the notebook's title, or first if it has none.
    head, found, rest = html.partition("</h1>")
    return f"{head}{found}{download}{rest}" if found else download + html


# mkdocs-jupyter inlines JupyterLab's whole stylesheet (about 570 kB) into every notebook
# page. Rules for classes that the page does not use are dropped, which keeps about a
# fifth of it: the page looks the same and loads much faster.
_STYLE = re.compile(r"(<style[^>]*>)(.*?)(</style>)", re.S)
# Classes inside :not(), :is(), :where() or :has() are not all required for a match.
_NOT = re.compile(r":(?:not|is|where|has)\([^()]*\)")
_CLASS = re.compile(r"\.(-?[A-Za-z_][\w-]*)")


@lru_cache(maxsize=32)  # pure: `mkdocs serve` rebuilds the same 13 pages each time
def prune_styles(html: str) -> str:
    without_styles = _STYLE.sub("", html)
    used = {c for m in re.finditer(r'class="([^"]*)"', without_styles) for c in m[1].split()}
    return _STYLE.sub(lambda m: m[1] + _prune(m[2], used) + m[3], html)


@lru_cache(maxsize=8)
def _rules(css: str) -> tuple[str, ...]:
    """Top-level rules and at-rule blocks of a stylesheet (comments are dropped).

    Every notebook page inlines the same JupyterLab stylesheet: it is split once.
    """
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    rules, depth, start = [], 0, 0
    for i, char in enumerate(css):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                rules.append(css[start : i + 1])
                start = i + 1
        elif char == ";" and depth == 0:  # @charset, @import
            rules.append(css[start : i + 1])
            start = i + 1
    return tuple(rules)


def _selectors(selector_list: str) -> list[str]:
    """Split at the commas between selectors, not those inside :is(...) or [...]."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(selector_list):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(selector_list[start:i])
            start = i + 1
    return [*parts, selector_list[start:]]


def _prune(css: str, used: set[str]) -> str:
    kept = []
    for rule in _rules(css):
        head, brace, body = rule.partition("{")
        selector = head.strip()
        if not brace or selector.startswith(("@font-face", "@keyframes", "@charset", "@import")):
            kept.append(rule)
        elif selector.startswith("@"):  # @media, @supports: prune inside
            inner = _prune(body[:-1], used)
            if inner:
                kept.append(f"{head}{{{inner}}}")
        else:
            # A selector can match only if every class it requires is on the page.
            alive = [
                s for s in _selectors(selector) if set(_CLASS.findall(_NOT.sub("", s))) <= used
            ]
            if alive:
                kept.append(f"{','.join(alive)}{{{body}")
    return "".join(kept)


if __name__ == "__main__":
    sys.exit(main())
