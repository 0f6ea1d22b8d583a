"""Where a test run's CPU time goes: CPU-seconds by group, printed at the end of every run.

Loaded from pyproject.toml (``-p coursekit.testing.cost``). Each process that runs tests
(an xdist worker, or pytest itself under ``-n 0``) measures the CPU time of each test's
setup, call and teardown: its own and that of the child processes it waited for (a
fixture site built in a subprocess, a notebook kernel). The measurement rides on the
test's report (``user_properties``), so the process that prints the summary sees every
worker's. A process that several tests share for the whole session (the Jupyter kernel,
the browser) is only waited for when the session ends, in the teardown of the worker's
last test: that teardown is counted in a group of its own, not in its test's group (nor
in the test's weight for the CI shards, coursekit/testing/shards.py). Work no test
waits for, such as the site builds that tests/conftest.py starts in the background, is
added with :func:`add_background`.

CPU-seconds, not wall time: on a shared machine they are the steadier figure. The
summary is also written as JSON (``.cache/test-cost.json``) for ``make bench``.
"""

from __future__ import annotations

import json
import resource
from collections.abc import Generator
from pathlib import Path

import pytest

# A test's group, by the start of its node id: the first prefix that matches wins.
GROUPS = (
    ("docs/", "drift check (every block of every page)"),
    ("tests/test_portability.py", "portability (every block on two other MKL paths)"),
    ("tests/browser/", "browser"),
    ("tests/maths/", "maths"),
    ("tests/test_notebooks.py", "notebooks"),
    ("tests/test_exercises.py", "notebooks"),
    ("tests/test_html.py", "HTML"),
    ("tests/test_interview.py", "HTML"),
    ("tests/test_determinism.py", "builds (fixture sites, serve, cache)"),
    ("tests/test_bad_input.py", "builds (fixture sites, serve, cache)"),
    ("tests/test_serve.py", "builds (fixture sites, serve, cache)"),
    ("tests/test_exec_cache.py", "builds (fixture sites, serve, cache)"),
    ("tests/test_rebuild_memo.py", "builds (fixture sites, serve, cache)"),
    ("tests/test_record.py", "builds (fixture sites, serve, cache)"),
    ("tests/test_drift_report.py", "builds (fixture sites, serve, cache)"),
    ("tests/test_version_notes.py", "builds (fixture sites, serve, cache)"),
    ("tests/test_numerics.py", "builds (fixture sites, serve, cache)"),
)
OTHER = "other (units, layout, lint)"
SHARED = "processes shared by a whole session (kernel, browser), counted at its end"
PROPERTY = "cpu_seconds"
SESSION_END = "cpu_seconds_session_end"  # the last test's teardown: see the docstring
REPORT = Path(".cache") / "test-cost.json"


def group_of(nodeid: str) -> str:
    return next((name for prefix, name in GROUPS if nodeid.startswith(prefix)), OTHER)


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class Cost:
    """The run's totals, kept by the process that prints the summary (its hooks)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.seconds: dict[str, float] = {}
        self.tests: dict[str, int] = {}

    def add(self, group: str, seconds: float, tests: int = 0) -> None:
        self.seconds[group] = self.seconds.get(group, 0.0) + seconds
        if tests:  # a group of work no test waited for counts no tests
            self.tests[group] = self.tests.get(group, 0) + tests

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # The teardown report carries all three phases' measurements (one list per test).
        if report.when == "teardown":
            seconds = 0.0
            for name, value in report.user_properties:
                if name == PROPERTY and isinstance(value, float):
                    seconds += value
                elif name == SESSION_END and isinstance(value, float):
                    self.add(SHARED, value)
            self.add(group_of(report.nodeid), seconds, tests=1)

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.tests:
            return
        total = sum(self.seconds.values())
        rows = sorted(self.seconds.items(), key=lambda row: -row[1])
        rows = [(group, s) for group, s in rows if s >= 0.05 or self.tests.get(group)]
        width = max(len(group) for group, _ in rows)
        terminalreporter.section("CPU-seconds by group")
        for group, seconds in rows:
            tests = self.tests.get(group, 0)
            count = f"{tests:5d} tests" if tests else "          -"
            terminalreporter.write_line(f"{group:<{width}}  {count}  {seconds:8.1f} s")
        terminalreporter.write_line(f"{'total':<{width}}  {'':11}  {total:8.1f} s")
        path = self.config.rootpath / REPORT
        path.parent.mkdir(exist_ok=True)
        data = {"groups": self.seconds, "tests": self.tests, "total": total}
        path.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")


COST = pytest.StashKey[Cost]()


def add_background(config: pytest.Config, group: str, seconds: float) -> None:
    """Count CPU time spent where no test waited for it (e.g. a background site build)."""
    if COST in config.stash:
        config.stash[COST].add(group, seconds)


def pytest_configure(config: pytest.Config) -> None:
    # Every process measures its tests; only the one that reports (not a worker) sums.
    if not hasattr(config, "workerinput"):
        config.stash[COST] = Cost(config)
        config.pluginmanager.register(config.stash[COST], "coursekit-cost")


def _measured(item: pytest.Item, name: str = PROPERTY) -> Generator[None, None, None]:
    start = _cpu()
    yield
    item.user_properties.append((name, _cpu() - start))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    yield from _measured(item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    yield from _measured(item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, None, None]:
    # No next test: the session's fixtures end here too, and their processes with them.
    yield from _measured(item, PROPERTY if nextitem is not None else SESSION_END)
