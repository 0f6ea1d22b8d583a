"""The suite's spread over workers (tests/harness/parallel.py): a module-scoped
fixture is made once per run, not once per worker.

pytest 9.2 with pytest-xdist 3.8 silently stops grouping (pytest-dev/pytest-xdist#1386:
``--dist loadgroup`` marks a test's group by changing its node id, which pytest 9.2 no
longer reads back); pyproject.toml keeps pytest below 9.2 until that is fixed, and this
test is what fails if the grouping breaks again."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.usefixtures("harness_importable")

MODULE = """
import os, pytest

@pytest.fixture(scope="module")
def costly(tmp_path_factory):
    made = tmp_path_factory.getbasetemp().parent / f"made-{os.getpid()}"
    made.write_text("")  # one file per worker that made it
    return made

@pytest.mark.parametrize("n", range(12))
def test_shared(costly, n):
    pass
"""


def test_a_module_fixture_is_made_once(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_shared=MODULE)
    base = pytester.path / "base"
    args = ("-p", "harness.parallel", "-n", "2", "--dist", "loadgroup")
    result = pytester.runpytest_subprocess(*args, f"--basetemp={base}", "-p", "no:randomly")
    result.assert_outcomes(passed=12)
    assert len(list(base.glob("made-*"))) == 1, "the fixture was made on two workers"
