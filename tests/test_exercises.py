"""The exercise pages: every part the syllabus asks for, and solutions that pass their checks.

Each page docs/practice/exercises/<slug>.md has a task, starter code (a plain fence, not
run), a hint, and a hidden solution whose executed fence includes the same snippet region
the notebook tests use. The notebooks themselves are tested in tests/test_notebooks.py.
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from pathlib import Path

import pytest

from coursekit import notebooks
from coursekit.fences import scan

ROOT = Path(__file__).resolve().parent.parent
LEVELS = {"beginner", "intermediate", "advanced"}


def _page(slug: str) -> str:
    return (notebooks.PAGES / f"{slug}.md").read_text(encoding="utf-8")


def _snippet(slug: str) -> str:
    return f"practice/{slug.replace('-', '_')}.py"


def test_the_exercises_in_order() -> None:
    assert {p.stem for p in notebooks.PAGES.glob("*.md")} == set(notebooks.EXERCISES)
    for number, slug in enumerate(notebooks.EXERCISES, start=1):
        assert re.search(rf"^# Exercise 2\.{number}: ", _page(slug), re.M), slug


@pytest.mark.parametrize("slug", notebooks.EXERCISES)
def test_page_has_task_starter_hint_solution(slug: str) -> None:
    text = _page(slug)
    level = re.search(r"^\*\*Level:\*\* (\w+)\.", text, re.M)
    assert level and level[1] in LEVELS
    for heading in ("## Task", "## Starter code"):
        assert f"\n{heading}\n" in text, heading
    fences = scan(text, slug)
    starter = [f for f in fences if f"{_snippet(slug)}:starter" in f.body]
    assert len(starter) == 1 and not starter[0].executed, "starter code must not be executed"
    assert "\n/// details | Hint\n" in text
    solution_block = text.split("\n/// details | Solution\n", 1)[1].split("\n///\n", 1)[0]
    solution = [f for f in scan(solution_block, slug) if f.executed]
    assert len(solution) == 1 and not solution[0].indent
    assert f'--8<-- "{_snippet(slug)}:solution"' in solution[0].body


@pytest.mark.parametrize("slug", notebooks.EXERCISES)
def test_page_links_to_its_notebook_and_download(slug: str) -> None:
    text = _page(slug)
    assert f"](../notebooks/{slug}.ipynb)" in text
    assert f'href="../../notebooks/{slug}/{slug}.ipynb" download' in text


@pytest.mark.parametrize("slug", notebooks.EXERCISES)
def test_no_maths_left_unconverted(slug: str) -> None:
    """`$` followed by a digit never opens maths (coursekit.mathml): write `${2x}$`."""
    prose = re.sub(r"```.*?```|`[^`\n]*`", "", _page(slug), flags=re.S)
    assert not re.search(r"(?<![\\$\w])\$\d", prose)


def _run(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<exercise>", "exec"), {"__name__": "__exercise__"})
    return out.getvalue()


@pytest.mark.parametrize("slug", notebooks.EXERCISES)
def test_snippet_runs_on_its_own_and_its_solution_is_correct(slug: str) -> None:
    """`python snippets/practice/<slug>.py` runs starter, solution, then the check."""
    path = notebooks.snippet_path(slug)
    output = _run(path.read_text(encoding="utf-8"))
    assert output.splitlines()[-1].startswith("Correct:"), output


@pytest.mark.parametrize("slug", notebooks.EXERCISES)
def test_untouched_starter_is_not_done_yet(slug: str) -> None:
    path = notebooks.snippet_path(slug)
    code = notebooks.region(path, "starter") + "\n" + notebooks.region(path, "check")
    assert _run(code).splitlines()[-1].startswith("Not done yet:")


def test_practice_index_lists_every_exercise_with_its_level() -> None:
    index = (ROOT / "docs" / "practice" / "index.md").read_text(encoding="utf-8")
    for slug in notebooks.EXERCISES:
        level = re.search(r"^\*\*Level:\*\* (\w+)\.", _page(slug), re.M)[1]
        row = next(line for line in index.splitlines() if f"](exercises/{slug}.md)" in line)
        assert f"| {level} |" in row and f"](notebooks/{slug}.ipynb)" in row
    assert "```quiz-index" in index


def _blocks(code: str) -> list[str]:
    """The `def block_...` functions of a region, each as its source text."""
    return re.findall(r"^def block_\w+\(\):\n(?:    .*\n)+", code + "\n", re.M)


def test_predict_the_output_checks_the_blocks_the_learner_reads() -> None:
    """The check runs its own copy of the blocks: it must be the code shown in the starter."""
    path = notebooks.snippet_path("predict-the-output")
    starter, solution, check = (
        _blocks(notebooks.region(path, name)) for name in ("starter", "solution", "check")
    )
    assert len(starter) == 6
    assert starter == solution == check


def test_predict_the_output_accepts_error_in_any_case() -> None:
    """A learner who writes "Error" (or " ERROR ") predicted the same thing as "error"."""
    path = notebooks.snippet_path("predict-the-output")
    solution = notebooks.region(path, "solution").replace('"d": "error"', '"d": " Error "')
    assert '" Error "' in solution
    output = _run(solution + "\n" + notebooks.region(path, "check"))
    assert output.splitlines()[-1].startswith("Correct:"), output


def test_derive_a_gradient_hint_names_every_link_of_the_chain() -> None:
    """A formula that forgets the 2 of 2(s - t) must not be told only about the sigmoid."""
    path = notebooks.snippet_path("derive-a-gradient")
    solution = notebooks.region(path, "solution").replace("return 2 * (s - t)", "return (s - t)")
    assert solution.count("return (s - t)") == 2
    last = _run(solution + "\n" + notebooks.region(path, "check")).splitlines()[-1]
    assert last.startswith("Not quite:"), last
    assert "2(s − t), the sigmoid's derivative, and x (for w)" in last, last


MISTAKES = ROOT / "tests" / "mistakes"


def _mistakes(slug: str) -> dict[str, str]:
    """The named regions of tests/mistakes/<slug>.py, each a wrong starter cell."""
    text = (MISTAKES / f"{slug}.py").read_text(encoding="utf-8")
    region = r"^# --8<-- \[start:([\w-]+)\]\n(.*?)^# --8<-- \[end:\1\]"
    return dict(re.findall(region, text, re.M | re.S))


def _run_like_a_notebook(cell: str, check: str) -> str:
    """The learner's cell (an error in it is shown, as in a notebook), then the check cell."""
    namespace: dict = {"__name__": "__exercise__"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # A notebook shows an error in the learner's cell; the check cell runs after it.
        with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(Exception):
            exec(compile(cell, "<learner>", "exec"), namespace)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(check, "<check>", "exec"), namespace)
    return out.getvalue()


@pytest.mark.parametrize("slug", notebooks.EXERCISES)
def test_every_mistake_is_caught(slug: str) -> None:
    """Each plausible mistake gets "Not quite" (or an honest "Not done yet"), never "Correct"."""
    mistakes = _mistakes(slug)
    assert len(mistakes) >= 2, slug
    check = notebooks.region(notebooks.snippet_path(slug), "check")
    for name, cell in mistakes.items():
        assert cell.startswith("# "), f"{slug}:{name} must start with a comment naming it"
        verdict = _run_like_a_notebook(cell, check).strip()
        assert verdict.startswith(("Not quite:", "Not done yet:")), (name, verdict)
        assert "could not read your answer" not in verdict, (name, verdict)


@pytest.mark.parametrize("slug", notebooks.EXERCISES)
def test_untouched_starter_never_shows_ellipsis(slug: str) -> None:
    path = notebooks.snippet_path(slug)
    code = notebooks.region(path, "starter") + "\n" + notebooks.region(path, "check")
    assert "ellipsis" not in _run(code).lower()
