"""Every plausible mistake in tests/mistakes/<slug>.py is told apart from the right answer.

Each region of tests/mistakes/<slug>.py is a complete replacement for the starter cell of
exercise <slug>, holding one mistake a learner could make (its first line says which).
Run with the exercise's check cell in one namespace, as in the notebook, the check must
say "Not quite" (with what it expected and what it got) or, where that is the honest
verdict, "Not done yet". Nothing may raise.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from coursekit import notebooks

ROOT = Path(__file__).resolve().parent.parent
MISTAKES = ROOT / "tests" / "mistakes"
_REGION = re.compile(r"^# --8<-- \[start:([\w-]+)\]", re.M)


def _cases() -> list:
    cases = []
    for path in sorted(MISTAKES.glob("*.py")):
        names = _REGION.findall(path.read_text(encoding="utf-8"))
        cases += [pytest.param(path.stem, name, id=f"{path.stem}:{name}") for name in names]
    return cases


def test_every_mistakes_file_belongs_to_an_exercise_and_has_two_mistakes() -> None:
    for path in MISTAKES.glob("*.py"):
        assert path.stem in notebooks.EXERCISES, path.name
        assert len(_REGION.findall(path.read_text(encoding="utf-8"))) >= 2, path.name


@pytest.mark.parametrize(("slug", "mistake"), _cases())
def test_the_check_catches_the_mistake(slug: str, mistake: str) -> None:
    code = notebooks.region(MISTAKES / f"{slug}.py", mistake)
    assert code.startswith("# "), "the first line says what the mistake is"
    check = notebooks.region(notebooks.snippet_path(slug), "check")
    out = io.StringIO()
    namespace: dict = {"__name__": "__main__"}
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"<{slug}:{mistake}>", "exec"), namespace)
        exec(compile(check, f"<{slug}:check>", "exec"), namespace)
    verdict = out.getvalue().strip().splitlines()[-1]
    assert verdict.startswith(("Not quite:", "Not done yet:")), verdict
    if verdict.startswith("Not quite:"):
        assert "expected" in verdict and "got" in verdict, verdict
