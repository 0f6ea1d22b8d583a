"""The exercise notebooks: generated from the exercise pages and their snippets.

Each exercise notebook is assembled from two sources that already exist, so nothing is
written twice:

* the exercise page (``docs/practice/exercises/<slug>.md``): its title, level line,
  ``## Task`` section and hint (the ``/// details | Hint`` block);
* the snippet (``snippets/practice/<slug_with_underscores>.py``): its ``starter``
  region (the cell the learner edits) and its ``check`` region (the cell that says
  whether the answer is right). The ``solution`` region is what the tests put in place
  of the starter.

The notebooks are committed without outputs (Colab opens them from the repository); the
site executes them at build time. ``make notebooks`` regenerates them, and a test fails
while one is stale.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from coursekit.content.exercise_nav import Exercise
from coursekit.errors import CourseError
from coursekit.markdown.regions import RegionError, read_region

_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")

HOW_TO = """\
## How to work

Edit the code cell below and run it, then run the check cell at the end. The check
recomputes the right answer with PyTorch from your own values. It prints **Correct**,
**Not quite** (with what it expected and what it got) or **Not done yet**."""

CHECK_INTRO = """\
## Check your answer

Run this cell after yours. You do not need to change it."""


class NotebookSourceError(CourseError, ValueError):
    """An exercise page or snippet lacks a part the notebook needs."""


def region(path: Path, name: str) -> str:
    """The code of region ``name`` of a snippet, as the page includes it."""
    try:
        return read_region(path, name).text.strip("\n")
    except RegionError as error:
        raise NotebookSourceError(str(error)) from None


def _plain(text: str) -> str:
    """Markdown of the site → Markdown a notebook shows: links as their text."""
    return _LINK.sub(r"\1", text)


def page_parts(exercise: Exercise) -> tuple[str, str, str, str]:
    """(title, level line, task, hint) of an exercise page; the hint may be ""."""
    text = exercise.page.read_text(encoding="utf-8")
    title = re.search(r"^# (.+)$", text, re.M)
    level = re.search(r"^\*\*Level:\*\*.*?(?=\n\n)", text, re.M | re.S)
    task = re.search(r"^## Task\n\n(.*?)\n+^## ", text, re.M | re.S)
    hint = re.search(r"^/// details \| Hint\n(.*?)^///$", text, re.M | re.S)
    if not (title and level and task):
        raise NotebookSourceError(
            f"{exercise.page}: needs a '# Title', a '**Level:**' line and a '## Task' section"
        )
    return (
        title[1].strip(),
        _plain(level[0]),
        _plain(task[1].strip()),
        _plain(hint[1].strip()) if hint else "",
    )


def build(exercise: Exercise) -> nbformat.NotebookNode:
    """The notebook of one exercise, with fixed cell ids so that it regenerates identically."""
    title, level, task, hint = page_parts(exercise)
    number, _, name = title.partition(":")
    intro = f"# {number} notebook:{name}\n\n{level}\n\n## Task\n\n{task}\n\n{HOW_TO}"
    cells = [
        nbformat.v4.new_markdown_cell(intro, id="task"),
        nbformat.v4.new_code_cell(region(exercise.snippet, "starter"), id="starter"),
    ]
    if hint:
        # After the starter: a learner reads it only when stuck, as on the page.
        cells.append(
            nbformat.v4.new_markdown_cell(
                f"<details><summary>Hint (open it if you are stuck)</summary>\n\n{hint}\n\n"
                "</details>",
                id="hint",
            )
        )
    cells += [
        nbformat.v4.new_markdown_cell(CHECK_INTRO, id="check-intro"),
        nbformat.v4.new_code_cell(region(exercise.snippet, "check"), id="check"),
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
