"""The exercise pages: every part the syllabus asks for, and solutions that pass their checks.

Each page docs/practice/exercises/<slug>.md has a task, starter code (a plain fence, not
run), a hint, and a hidden solution whose executed fence includes the same snippet region
the notebook tests use. The notebooks themselves are tested in tests/test_notebooks.py.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
from support import ROOT, project

from coursekit.markdown.fences import scan
from coursekit.notebooks.exercises import region

PROJECT = project()  # one load per process: tests/support.py
EXERCISES = {exercise.slug: exercise for exercise in PROJECT.exercises()}
SLUGS = list(EXERCISES)
LEVELS = {"beginner", "intermediate", "advanced"}


def _page(slug: str) -> str:
    return EXERCISES[slug].page.read_text(encoding="utf-8")


def _snippet(slug: str) -> str:
    return f"practice/{slug.replace('-', '_')}.py"


# The nav's sections of Practice > Exercises, and the label of their exercises' numbers.
PARTS = {"Part 1": "1", "Part 2": "2", "Part 3": "3", "Going deeper": "D"}


def _exercise_sections() -> dict[str, list[str]]:
    nav = PROJECT.config.nav
    practice = next(i["Practice"] for i in nav if isinstance(i, dict) and "Practice" in i)
    exercises = next(i["Exercises"] for i in practice if isinstance(i, dict) and "Exercises" in i)
    return {title: list(paths) for section in exercises for title, paths in section.items()}


def test_the_exercises_in_order() -> None:
    """Exercise P.N is the Nth exercise of part P's section of the nav."""
    pages = ROOT / "docs" / PROJECT.options.exercises
    assert {p.stem for p in pages.glob("*.md")} == set(SLUGS), "every exercise is in the nav"
    sections = _exercise_sections()
    assert list(sections) == list(PARTS), "one section per part, in reading order"
    for title, paths in sections.items():
        for number, path in enumerate(paths, start=1):
            slug = Path(path).stem
            assert re.search(rf"^# Exercise {PARTS[title]}\.{number}: ", _page(slug), re.M), slug


@pytest.mark.parametrize("slug", SLUGS)
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


@pytest.mark.parametrize("slug", SLUGS)
def test_page_links_to_its_notebook_and_download(slug: str) -> None:
    text = _page(slug)
    assert f"](../notebooks/{slug}.ipynb)" in text
    assert f'href="../../notebooks/{slug}/{slug}.ipynb" download' in text


@pytest.mark.parametrize("slug", SLUGS)
def test_no_maths_left_unconverted(slug: str) -> None:
    """`$` followed by a digit never opens maths (coursekit.content.mathml): write `${2x}$`."""
    prose = re.sub(r"```.*?```|`[^`\n]*`", "", _page(slug), flags=re.S)
    assert not re.search(r"(?<![\\$\w])\$\d", prose)


def _run(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<exercise>", "exec"), {"__name__": "__exercise__"})
    return out.getvalue()


@pytest.mark.parametrize("slug", SLUGS)
def test_snippet_runs_on_its_own_and_its_solution_is_correct(slug: str) -> None:
    """`python snippets/practice/<slug>.py` runs starter, solution, then the check."""
    path = EXERCISES[slug].snippet
    output = _run(path.read_text(encoding="utf-8"))
    assert output.splitlines()[-1].startswith("Correct:"), output


@pytest.mark.parametrize("slug", SLUGS)
def test_untouched_starter_is_not_done_yet(slug: str) -> None:
    path = EXERCISES[slug].snippet
    code = region(path, "starter") + "\n" + region(path, "check")
    assert _run(code).splitlines()[-1].startswith("Not done yet:")


def test_practice_index_lists_every_exercise_with_its_level() -> None:
    index = (ROOT / "docs" / "practice" / "index.md").read_text(encoding="utf-8")
    for slug in SLUGS:
        level = re.search(r"^\*\*Level:\*\* (\w+)\.", _page(slug), re.M)[1]
        row = next(line for line in index.splitlines() if f"](exercises/{slug}.md)" in line)
        assert f"| {level} |" in row and f"](notebooks/{slug}.ipynb)" in row
    assert "```quiz-index" in index


def _blocks(code: str) -> list[str]:
    """The `def block_...` functions of a region, each as its source text."""
    return re.findall(r"^def block_\w+\(\):\n(?:    .*\n)+", code + "\n", re.M)


def test_predict_the_output_checks_the_blocks_the_learner_reads() -> None:
    """The check runs its own copy of the blocks: it must be the code shown in the starter."""
    path = EXERCISES["predict-the-output"].snippet
    starter, solution, check = (
        _blocks(region(path, name)) for name in ("starter", "solution", "check")
    )
    assert len(starter) == 6
    assert starter == solution == check


def test_predict_the_output_accepts_error_in_any_case() -> None:
    """A learner who writes "Error" (or " ERROR ") predicted the same thing as "error"."""
    path = EXERCISES["predict-the-output"].snippet
    solution = region(path, "solution").replace('"d": "error"', '"d": " Error "')
    assert '" Error "' in solution
    output = _run(solution + "\n" + region(path, "check"))
    assert output.splitlines()[-1].startswith("Correct:"), output


def test_what_does_the_node_save_accepts_runtimeerror_and_tensors() -> None:
    """Writing "RuntimeError" for the freed value, or tensor(5.) for 5, is right too."""
    path = EXERCISES["what-does-the-node-save"].snippet
    solution = (
        region(path, "solution")
        .replace('"error",  # backward()', '"RuntimeError",  # backward()')
        .replace('"p.grad_fn._saved_other": 5.0', '"p.grad_fn._saved_other": torch.tensor(5.0)')
    )
    assert '"RuntimeError"' in solution and "torch.tensor(5.0)" in solution
    output = _run(solution + "\n" + region(path, "check"))
    assert output.splitlines()[-1].startswith("Correct:"), output


def test_what_does_the_node_save_accepts_the_exception_class() -> None:
    """Writing RuntimeError unquoted, the class itself, for the freed value is right too."""
    path = EXERCISES["what-does-the-node-save"].snippet
    solution = region(path, "solution").replace('"error",  # backward()', "RuntimeError,  # ")
    assert "RuntimeError,  # " in solution
    output = _run(solution + "\n" + region(path, "check"))
    assert output.splitlines()[-1].startswith("Correct:"), output


def test_jvp_by_hand_diagnoses_an_entrywise_product_and_a_list() -> None:
    """`J * u` and the right numbers typed as a list each get their own diagnosis."""
    path = EXERCISES["jvp-by-hand"].snippet
    mistakes = ROOT / "tests" / "mistakes" / "jvp-by-hand.py"
    for name, phrase in [("elementwise-product", "J @ u"), ("list-not-tensor", "a list")]:
        output = _run(region(mistakes, name) + "\n" + region(path, "check"))
        last = output.splitlines()[-1]
        assert last.startswith("Not quite: expected by_hand") and phrase in last, last
        assert ("entry by entry" in last) == (name == "elementwise-product"), last


def test_derive_a_gradient_hint_names_every_link_of_the_chain() -> None:
    """A formula that forgets the 2 of 2(s - t) must not be told only about the sigmoid."""
    path = EXERCISES["derive-a-gradient"].snippet
    solution = region(path, "solution").replace("return 2 * (s - t)", "return (s - t)")
    assert solution.count("return (s - t)") == 2
    last = _run(solution + "\n" + region(path, "check")).splitlines()[-1]
    assert last.startswith("Not quite:"), last
    assert "2(s − t), the sigmoid's derivative, and x (for w)" in last, last


def test_validation_loop_accepts_a_float32_mean() -> None:
    """(predictions == labels).float().mean().item() is right, though float32 rounds it."""
    path = EXERCISES["validation-loop"].snippet
    old = """            predicted = model(inputs).argmax(dim=1)
            correct += (predicted == targets).sum().item()
            total += len(targets)
    model.train()  # back to training mode
    return correct / total"""
    new = """            hits.append(model(inputs).argmax(dim=1) == targets)
    model.train()  # back to training mode
    return torch.cat(hits).float().mean().item()"""
    solution = region(path, "solution")
    assert solution.count(old) == 1
    solution = solution.replace(old, new).replace("correct, total = 0, 0", "hits = []")
    output = _run(solution + "\n" + region(path, "check"))
    accuracy = float(output.splitlines()[0].rsplit(" ", 1)[1])
    assert accuracy != round(accuracy, 6), "float32 must round the accuracy for this test"
    assert output.splitlines()[-1].startswith("Correct:"), output


def test_a_view_made_under_no_grad_checks_the_blocks_the_learner_reads() -> None:
    """As for predict-the-output: the check's own copy of the blocks is the starter's."""
    path = EXERCISES["a-view-made-under-no-grad"].snippet
    starter, solution, check = (
        _blocks(region(path, name)) for name in ("starter", "solution", "check")
    )
    assert len(starter) == 8
    assert starter == solution == check


def test_a_view_made_under_no_grad_reads_a_right_list_written_in_quotes() -> None:
    """Every placeholder is the string "?", so a learner may answer in quotes: the right
    lists written as strings are right too (REVIEW.md: the check once rejected them)."""
    path = EXERCISES["a-view-made-under-no-grad"].snippet
    solution = (
        region(path, "solution")
        .replace('"e": [3.0, 3.0, 0.0, 0.0],', '"e": "[3.0, 3.0, 0.0, 0.0]",')
        .replace('"g": [2.0, 4.0, 3.0, 4.0],', '"g": "[2.0, 4.0, 3.0, 4.0]",')
        .replace('"c": None,', '"c": "None",')
    )
    assert '"e": "[3.0' in solution and '"g": "[2.0' in solution and '"c": "None"' in solution
    output = _run(solution + "\n" + region(path, "check"))
    assert output.splitlines()[-1].startswith("Correct:"), output
