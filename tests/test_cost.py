"""The CPU summary printed at the end of every run (coursekit/testing/cost.py): each test's
CPU time lands in its group, with pytest-xdist's workers as without them."""

from __future__ import annotations

import json

import pytest

from coursekit.testing.cost import SHARED

pytest_plugins = ["pytester"]

BUSY = """
import subprocess, sys, time

def burn(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass

def test_busy():
    burn(0.4)

def test_busy_child():  # a child process's CPU counts once it has been waited for
    subprocess.run([sys.executable, "-c", f"import time\\nend = time.process_time() + 0.4\\n"
                    "while time.process_time() < end: pass"], check=True)
"""


@pytest.mark.parametrize("workers", ["0", "2"])
def test_each_test_is_counted_in_its_group(pytester: pytest.Pytester, workers: str) -> None:
    pytester.makepyfile(
        **{"tests/maths/test_busy": BUSY, "tests/test_idle": "def test_idle(): pass"}
    )
    result = pytester.runpytest_subprocess("-p", "coursekit.testing.cost", "-n", workers)
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*CPU-seconds by group*", "maths*2 tests*", "total*"])
    report = json.loads((pytester.path / ".cache" / "test-cost.json").read_text())
    assert report["tests"] == {"maths": 2, "other (units, layout, lint)": 1}
    assert 0.75 < report["groups"]["maths"] < 3, report
    assert report["groups"]["other (units, layout, lint)"] < 0.2, report


SHARED_PROCESS = """
import subprocess, sys
import pytest

from coursekit.testing.cost import SHARED

@pytest.fixture(scope="session")
def kernel():
    burn = "import time\\nend = time.process_time() + 0.6\\nwhile time.process_time() < end: pass"
    child = subprocess.Popen([sys.executable, "-c", burn])
    yield child
    child.wait()  # waited for when the session ends, as the shared Jupyter kernel is

def test_uses_the_kernel(kernel):
    pass

def test_idle():
    pass
"""


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_process_shared_by_the_session_is_counted_apart(
    pytester: pytest.Pytester, workers: str
) -> None:
    pytester.makepyfile(**{"tests/test_shared": SHARED_PROCESS})
    result = pytester.runpytest_subprocess("-p", "coursekit.testing.cost", "-n", workers)
    result.assert_outcomes(passed=2)
    report = json.loads((pytester.path / ".cache" / "test-cost.json").read_text())
    # Not in the group of the test whose teardown ended the session.
    assert report["groups"]["other (units, layout, lint)"] < 0.3, report
    assert 0.5 < report["groups"][SHARED] < 2, report
