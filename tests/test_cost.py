"""The CPU summary printed at the end of every run (tests/harness/cost.py): each test's
CPU time lands in its group, with pytest-xdist's workers as without them; what pytest
itself used is counted too, and where the machine has cgroups, so is a process nobody
waited for."""

from __future__ import annotations

import json

import pytest
from harness.cost import PYTEST, SHARED

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.usefixtures("harness_importable")

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
    result = pytester.runpytest_subprocess("-p", "harness.cost", "-n", workers)
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*CPU-seconds by group*", "maths*2 tests*", "total*"])
    report = json.loads((pytester.path / ".cache" / "test-cost.json").read_text())
    assert report["tests"] == {"maths": 2, "other (units, layout, lint)": 1}
    assert 0.75 < report["groups"]["maths"] < 3, report
    assert report["groups"]["other (units, layout, lint)"] < 0.2, report


SHARED_PROCESS = """
import subprocess, sys
import pytest

from harness.cost import SHARED

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
def test_a_process_shared_by_the_session_is_counted(
    pytester: pytest.Pytester, workers: str
) -> None:
    pytester.makepyfile(**{"tests/test_shared": SHARED_PROCESS})
    result = pytester.runpytest_subprocess("-p", "harness.cost", "-n", workers)
    result.assert_outcomes(passed=2)
    report = json.loads((pytester.path / ".cache" / "test-cost.json").read_text())
    other, shared = report["groups"]["other (units, layout, lint)"], report["groups"][SHARED]
    assert 0.5 < other + shared < 2, report
    if not report["complete"]:
        # Waited for when the session ends: not in the group of the test whose teardown
        # ended the session (by cgroup, whatever test ran while it worked counts it).
        assert other < 0.3 and shared > 0.5, report
    assert report["groups"][PYTEST] > 0.2, "pytest's own start-up and collection count"


ORPHAN = """
import subprocess, sys, time
from pathlib import Path

def test_starts_a_process_nobody_waits_for(tmp_path):
    done = tmp_path / "done"
    burn = (
        "import time, pathlib\\nend = time.process_time() + 0.6\\n"
        "while time.process_time() < end: pass\\n"
        f"pathlib.Path({str(done)!r}).touch()"
    )
    # A grandchild: its parent exits at once, so nobody of this run waits for it.
    subprocess.run(["sh", "-c", f'{sys.executable} -c "{burn}" & exit 0'], check=True)
    deadline = time.monotonic() + 60
    while not done.exists() and time.monotonic() < deadline:  # it burns meanwhile
        time.sleep(0.05)
    assert done.exists()
"""


def test_a_process_nobody_waits_for_is_counted_where_cgroups_allow(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(**{"tests/test_orphan": ORPHAN})
    result = pytester.runpytest_subprocess("-p", "harness.cost", "-n", "0")
    result.assert_outcomes(passed=1)
    report = json.loads((pytester.path / ".cache" / "test-cost.json").read_text())
    other = report["groups"]["other (units, layout, lint)"]
    if report["complete"]:
        assert 0.5 < other < 2, report
        result.stdout.fnmatch_lines(["counted: every process of the run, by cgroup"])
    else:
        assert other < 0.3, report  # missed, and the summary says so
        result.stdout.fnmatch_lines(["counted: processes waited for only*"])
