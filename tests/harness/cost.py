"""Where a test run's CPU time goes: CPU-seconds by group, printed at the end of every run.

Each process of the run (pytest itself, or its xdist controller and each worker) measures
the CPU time of each test's setup, call and teardown, and the summary adds them up by the
test's group (GROUPS). What no test's time holds is counted too, so that the groups add up
to all the CPU the run used: each process's own start-up and collection, and the
controller's scheduling ("pytest itself").

How a process measures: where the machine lets it (Linux, cgroup v1's cpuacct, as root),
every process of the run gets a cgroup of its own, and a test's time is what its cgroup
used meanwhile: the process and everything it started, waited for or not (a Chromium
renderer, a Jupyter kernel, the validator's JVM, a site build), while it ran. Elsewhere
the kernel's accounting of the process and of the children it waited for: a process that
is never waited for (a renderer whose parent exits first) is then missed, and the summary
says so. A process shared by a worker's tests (the kernel, the browser) is closed when the
session ends, in the teardown of the worker's last test: that teardown is a group of its
own, not its test's (nor its weight for the CI shards, tests/harness/shards.py).

CPU-seconds, not wall time: on a shared machine they are the steadier figure. The summary
is also written as JSON (``.cache/test-cost.json``) for ``make bench``.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
from collections.abc import Generator
from pathlib import Path

import pytest

# A test's group, by the start of its node id: the first prefix that matches wins.
GROUPS = (
    ("docs/", "drift check (every block of every page)"),
    ("tests/test_site.py", "builds (the whole site, twice)"),
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
SHARED = "processes shared by a worker's tests (kernel, browser), closed at its end"
PYTEST = "pytest itself (start-up, collection, scheduling)"
PROPERTY = "cpu_seconds"
SESSION_END = "cpu_seconds_session_end"  # the last test's teardown: see the docstring
REPORT = Path(".cache") / "test-cost.json"
CPUACCT = Path("/sys/fs/cgroup/cpuacct")  # cgroup v1's CPU accounting
CGROUP = "coursekit_cgroup"  # the run's cgroup, in a worker's workerinput


def group_of(nodeid: str) -> str:
    return next((name for prefix, name in GROUPS if nodeid.startswith(prefix)), OTHER)


def _own_seconds(who: int = resource.RUSAGE_SELF) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


class Meter:
    """The CPU-seconds one process of the run (and what it started) has used so far."""

    def __init__(self, cgroup: Path | None) -> None:
        self.cgroup = cgroup
        # What the process used before it joined its cgroup (start-up, imports).
        self.before = _own_seconds() if cgroup is not None else 0.0

    @classmethod
    def join(cls, run: Path | None, name: str) -> Meter:
        """Move this process into cgroup ``name`` of the run's, if the machine allows."""
        if run is None:
            return cls(None)
        own = run / name
        try:
            own.mkdir(exist_ok=True)
            (own / "cgroup.procs").write_text(str(os.getpid()), encoding="utf-8")
        except OSError:
            return cls(None)
        return cls(own)

    def seconds(self) -> float:
        if self.cgroup is not None:
            used = int((self.cgroup / "cpuacct.usage").read_text(encoding="utf-8")) / 1e9
            return self.before + used
        return _own_seconds() + _own_seconds(resource.RUSAGE_CHILDREN)

    @property
    def complete(self) -> bool:
        """Whether it counts processes nobody waited for."""
        return self.cgroup is not None


def _current_cgroup() -> Path | None:
    """This process's cpuacct cgroup (its folder), if cgroup v1 accounts CPU here."""
    try:
        lines = Path("/proc/self/cgroup").read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "cpuacct" in controllers.split(","):
            folder = CPUACCT / path.lstrip("/")
            return folder if (folder / "cpuacct.usage").is_file() else None
    return None


def _run_cgroup() -> Path | None:
    """A cgroup for the whole run, inside the one this process is in (a run inside a test,
    or inside `make bench`'s cgroup, is still counted by the outer one), or None."""
    current = _current_cgroup()
    if current is None:
        return None
    run = current / f"coursekit-tests-{os.getpid()}"
    try:
        run.mkdir()
    except OSError:
        return None
    return run


class Cost:
    """The run's totals, kept by the process that prints the summary (its hooks)."""

    def __init__(self, config: pytest.Config, meter: Meter) -> None:
        self.config = config
        self.meter = meter
        self.seconds: dict[str, float] = {}
        self.tests: dict[str, int] = {}
        self.complete = meter.complete

    def add(self, group: str, seconds: float, tests: int = 0) -> None:
        self.seconds[group] = self.seconds.get(group, 0.0) + seconds
        if tests:  # a group of work outside any test counts no tests
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

    @pytest.hookimpl(optionalhook=True)  # a hook of xdist's: the controller hears a worker end
    def pytest_testnodedown(self, node: object, error: object) -> None:
        output = getattr(node, "workeroutput", {})
        if "cpu_outside_tests" in output:
            self.add(PYTEST, float(output["cpu_outside_tests"]))
            self.complete = self.complete and bool(output.get("cpu_complete"))

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.tests:
            return
        own = self.config.stash[OWN]
        self.add(PYTEST, own.meter.seconds() - own.in_tests)
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
        how = (
            "every process of the run, by cgroup"
            if self.complete
            else "processes waited for only (no cgroup here): a process nobody waited for is missed"
        )
        terminalreporter.write_line(f"counted: {how}")
        path = self.config.rootpath / REPORT
        path.parent.mkdir(exist_ok=True)
        data = {
            "groups": self.seconds,
            "tests": self.tests,
            "total": total,
            "complete": self.complete,
        }
        path.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")


class _Own:
    """This process's meter, and how much of it its tests used."""

    def __init__(self, meter: Meter) -> None:
        self.meter = meter
        self.in_tests = 0.0


COST = pytest.StashKey[Cost]()
OWN = pytest.StashKey[_Own]()


RUN = pytest.StashKey[Path | None]()


def pytest_configure(config: pytest.Config) -> None:
    worker = getattr(config, "workerinput", None)
    if worker is None:
        run = config.stash[RUN] = _run_cgroup()
        config.stash[OWN] = _Own(Meter.join(run, "controller"))
        # Every process measures its tests; only the one that reports (not a worker) sums.
        config.stash[COST] = Cost(config, config.stash[OWN].meter)
        config.pluginmanager.register(config.stash[COST], "coursekit-cost")
    else:
        run = Path(worker[CGROUP]) if worker.get(CGROUP) else None
        config.stash[OWN] = _Own(Meter.join(run, worker["workerid"]))


@pytest.hookimpl(optionalhook=True)  # xdist's: what the controller hands a worker it starts
def pytest_configure_node(node: object) -> None:
    run = node.config.stash.get(RUN, None)  # type: ignore[attr-defined]
    node.workerinput[CGROUP] = str(run) if run is not None else ""  # type: ignore[attr-defined]


def pytest_sessionfinish(session: pytest.Session) -> None:
    # A worker hands the controller what it used outside its tests (xdist's workeroutput).
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        own = session.config.stash[OWN]
        output["cpu_outside_tests"] = own.meter.seconds() - own.in_tests
        output["cpu_complete"] = own.meter.complete


def pytest_unconfigure(config: pytest.Config) -> None:
    """The controller removes the run's cgroups; one that still holds a process means
    something outlived the run: say what."""
    run = config.stash.get(RUN, None)
    if run is None:
        return
    with contextlib.suppress(OSError):  # back where it was, so the run's cgroup empties
        (run.parent / "cgroup.procs").write_text(str(os.getpid()), encoding="utf-8")
    for cgroup in [*sorted(p for p in run.iterdir() if p.is_dir()), run]:
        for pid in (cgroup / "cgroup.procs").read_text(encoding="utf-8").split():
            with contextlib.suppress(OSError):
                command = Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")[:120]
                print(f"coursekit: process {pid} outlived the test run: {command}")
        with contextlib.suppress(OSError):
            cgroup.rmdir()


def _measured(item: pytest.Item, name: str = PROPERTY) -> Generator[None, None, None]:
    own = item.config.stash[OWN]
    start = own.meter.seconds()
    yield
    used = own.meter.seconds() - start
    own.in_tests += used
    item.user_properties.append((name, used))


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
