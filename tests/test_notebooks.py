"""The exercise notebooks: up to date, and their check cell tells right from wrong.

Every notebook is run top to bottom in a fresh Jupyter kernel three times:

* untouched: the check must say "Not done yet" (and nothing may raise);
* with the reference solution (the snippet's ``solution`` region, the code shown on
  the exercise page) in place of the starter: the check must say "Correct";
* with a deliberately wrong answer: the check must say "Not quite" and show what it
  expected and what it got.

Each run needs its own kernel (one process importing torch), so the 30 runs are
started in parallel, once per test session.
"""

from __future__ import annotations

import copy
import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from coursekit import notebooks

ROOT = Path(__file__).resolve().parent.parent

# A wrong answer for each exercise: a mistake a learner could really make.
WRONG = {
    # backward() run twice: the gradients add up to 2 * 2x.
    "basic-gradient": """\
import torch

x = torch.tensor(5.0, requires_grad=True)
y = x**2
y.backward()
y = x**2
y.backward()
""",
    # backward() started from y instead of z: the outer derivative 2y is missing.
    "chain-rule": """\
import torch

x = torch.tensor(2.0, requires_grad=True)
y = 3 * x + 4
z = y**2
y.backward()
""",
    # Two passes through the same graph without clearing.
    "several-variables": """\
import torch

x = torch.tensor(4.0, requires_grad=True)
y = torch.tensor(5.0, requires_grad=True)
z = x * y + x
z.backward(retain_graph=True)
z.backward()
""",
    # The reset was forgotten.
    "accumulation": """\
import torch

x = torch.tensor(3.0, requires_grad=True)
y = x**2
y.backward()
after_first = x.grad.item()
y = x**2
y.backward()
after_second = x.grad.item()
after_reset = x.grad.item()
""",
    # The upstream gradient is not all ones.
    "non-scalar": """\
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x**2
y.backward(torch.tensor([1.0, 1.0, 2.0]))
""",
    # The gradients are never cleared, so every step uses the sum of all old ones.
    "training-loop": None,  # built from the solution below
    # sum() instead of mean().
    "gradient-of-the-mean": """\
import torch

x = torch.tensor([2.0, 4.0, 6.0, 8.0], requires_grad=True)
y = (x**2).sum()
y.backward()
""",
    # A one-sided difference: its error is h/2 · f''(x), about 1e-5, not h²/6 · f'''(x).
    "check-a-gradient": """\
import torch


def f(t):
    return torch.tanh(t) * t**2


x = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
h = 1e-5


def central_difference(f, x, h):
    return (f(x + h) - f(x)) / h


f(x).backward()
from_autograd = x.grad
estimate = central_difference(f, x.detach(), h)
""",
    # Believes backward() overwrites .grad, and that a second pass always fails.
    "predict-the-output": """\
predictions = {"a": 4.0, "b": None, "c": 8.0, "d": "error", "e": "error", "f": 6.0}
""",
    # "Fixed" by deleting zero_grad(): the gradients now pile up.
    "find-the-bug": None,  # built from the starter below
    # The sigmoid's own derivative s(1 - s) is missing.
    "derive-a-gradient": """\
import math


def grad_w(x, w, b, t):
    s = 1 / (1 + math.exp(-(w * x + b)))
    return 2 * (s - t) * x


def grad_b(x, w, b, t):
    s = 1 / (1 + math.exp(-(w * x + b)))
    return 2 * (s - t)
""",
    # The ReLU mask is forgotten: the gradient flows through units that were off.
    "network-by-hand": None,  # built from the solution below
    # exp overwrites a.grad (= instead of +=): a value used twice loses a path.
    "tiny-autograd": None,  # built from the solution below
}


def _wrong(slug: str) -> str:
    if WRONG[slug] is not None:
        return WRONG[slug]
    if slug == "find-the-bug":
        starter = notebooks.region(notebooks.snippet_path(slug), "starter")
        without_clear = starter.replace("    optimizer.zero_grad()\n", "")
        assert without_clear != starter, "the find-the-bug starter no longer calls zero_grad()"
        return without_clear
    solution = notebooks.region(notebooks.snippet_path(slug), "solution")
    if slug == "network-by-hand":
        unmasked = solution.replace("dz1 = dh * (z1 > 0)", "dz1 = dh").split("torch.testing")[0]
        assert "(z1 > 0)" not in unmasked, "the network-by-hand solution no longer masks dh"
        return unmasked
    if slug == "tiny-autograd":
        overwriting = solution.replace("a.grad += e * out.grad", "a.grad = e * out.grad")
        assert overwriting != solution, "the tiny-autograd solution no longer adds into a.grad"
        return overwriting
    without_reset = solution.replace("    w.grad.zero_()\n    b.grad.zero_()\n", "")
    assert without_reset != solution, "the training-loop solution no longer clears gradients"
    return without_reset


VARIANTS = ("untouched", "solution", "wrong")


def _variant(slug: str, variant: str) -> nbformat.NotebookNode:
    notebook = nbformat.read(notebooks.notebook_path(slug), as_version=4)
    notebook = copy.deepcopy(notebook)
    starter = next(cell for cell in notebook.cells if cell.get("id") == "starter")
    if variant == "solution":
        starter.source = notebooks.region(notebooks.snippet_path(slug), "solution")
    elif variant == "wrong":
        starter.source = _wrong(slug)
    return notebook


def _run(slug: str, variant: str) -> str:
    """Run one variant top to bottom; return the check cell's printed output."""
    notebook = _variant(slug, variant)
    client = NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        allow_errors=False,
        resources={"metadata": {"path": str(ROOT)}},
    )
    client.execute()
    check = next(cell for cell in notebook.cells if cell.get("id") == "check")
    return "".join(
        output.get("text", "") for output in check.outputs if output.output_type == "stream"
    )


@pytest.fixture(scope="session")
def check_outputs() -> dict[tuple[str, str], str | BaseException]:
    """The check cell's output for every notebook and variant, run in parallel."""
    jobs = [(slug, variant) for slug in notebooks.EXERCISES for variant in VARIANTS]
    workers = int(os.environ.get("NOTEBOOK_WORKERS", max(2, os.cpu_count() or 2)))

    def run(job: tuple[str, str]) -> str | BaseException:
        try:
            return _run(*job)
        except Exception as error:  # reported by the test of that job
            return error

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return dict(zip(jobs, pool.map(run, jobs), strict=True))


def _output(check_outputs: dict, slug: str, variant: str) -> str:
    result = check_outputs[(slug, variant)]
    if isinstance(result, BaseException):
        pytest.fail(f"{slug} ({variant}) did not run to the end: {result}", pytrace=False)
    return result


def test_committed_notebooks_are_up_to_date() -> None:
    stale = notebooks.stale()
    assert not stale, f"regenerate with `python -m coursekit.notebooks`: {stale}"


def test_notebooks_have_no_outputs_and_match_the_exercises() -> None:
    committed = {path.stem for path in notebooks.NOTEBOOKS.glob("*.ipynb")}
    assert committed == set(notebooks.EXERCISES)
    for slug in notebooks.EXERCISES:
        notebook = nbformat.read(notebooks.notebook_path(slug), as_version=4)
        for cell in notebook.cells:
            if cell.cell_type == "code":
                assert not cell.outputs and cell.execution_count is None, slug


@pytest.mark.parametrize("slug", notebooks.EXERCISES)
def test_untouched_notebook_says_not_done_yet(check_outputs: dict, slug: str) -> None:
    output = _output(check_outputs, slug, "untouched")
    assert output.startswith("Not done yet:"), output


@pytest.mark.parametrize("slug", notebooks.EXERCISES)
def test_reference_solution_is_correct(check_outputs: dict, slug: str) -> None:
    output = _output(check_outputs, slug, "solution")
    assert output.startswith("Correct:"), output


@pytest.mark.parametrize("slug", notebooks.EXERCISES)
def test_wrong_answer_shows_expected_and_got(check_outputs: dict, slug: str) -> None:
    output = _output(check_outputs, slug, "wrong")
    assert output.startswith("Not quite:"), output
    assert "expected" in output and "got" in output, output


@pytest.mark.parametrize("slug", notebooks.EXERCISES)
def test_outputs_are_deterministic(check_outputs: dict, slug: str) -> None:
    for variant in VARIANTS:
        output = _output(check_outputs, slug, variant)
        assert not re.search(r"0x[0-9a-fA-F]{6,}", output) and str(ROOT) not in output, output


def test_unused_notebook_styles_are_dropped_and_used_ones_kept() -> None:
    css = (
        '@charset "UTF-8";.used{color:red}.unused{color:blue}'
        ".used:not(.absent) b{margin:0}.used,.unused{padding:0}"
        ":is(.used, .unused) i{top:0}@media (max-width: 10px){.unused{x:1}.used{y:2}}"
        "@keyframes spin{from{a:0}to{a:1}}"
    )
    html = f'<style>{css}</style><p class="used">x</p>'
    pruned = notebooks.prune_styles(html)
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


# --- The built site ----------------------------------------------------------------------

_EXTERNAL = re.compile(
    r"<(?:script|link|img|iframe|source)\b[^>]*?\b(?:src|href)=\"(?:https?:)?//(?!127\.0\.0\.1)[^\"]*\"",
    re.I,
)


def test_notebook_pages_are_built_with_a_download_and_no_third_party_request(
    built_site: Path,
) -> None:
    for slug in notebooks.EXERCISES:
        page = built_site / "practice" / "notebooks" / slug / "index.html"
        html = page.read_text(encoding="utf-8")
        assert f'<a href="{slug}.ipynb" download>' in html, slug
        assert (page.parent / f"{slug}.ipynb").read_bytes() == notebooks.notebook_path(
            slug
        ).read_bytes()
        # Executed at build time, untouched: the check cell's output is on the page.
        assert "Not done yet:" in html, slug
        assert not _EXTERNAL.findall(html), _EXTERNAL.findall(html)
        assert "cdnjs" not in html and "mathjax" not in html.lower(), slug
        # JupyterLab's whole stylesheet would make this 660 kB (see prune_styles).
        assert len(html) < 300_000, len(html)
        # The exercise page's download link points at that file.
        exercise = built_site / "practice" / "exercises" / slug / "index.html"
        link = f"../../notebooks/{slug}/{slug}.ipynb"
        assert f'href="{link}"' in exercise.read_text(encoding="utf-8")
        assert (exercise.parent / link).resolve().exists()
    # Only the notebooks became notebook pages (mkdocs-jupyter's default also takes .md).
    for page in ("practice/index.html", "practice/exercises/basic-gradient/index.html"):
        assert "jupyter-wrapper" not in (built_site / page).read_text(encoding="utf-8")
