"""Shared test fixtures: the site, built once per test run.

The drift check itself is the plugin ``coursekit.testing.drift`` (loaded from
pyproject.toml), so the same plugin also runs the small fixture sites.

Two builds, one after the other in one background process (tests/support.py sites),
started as soon as the tests are collected, while the other tests run: the site as a
local build makes it (the project's execution cache, so an author's second run is
quick), and as the deploy workflow makes it (REPO_URL set: edit and Colab links) with an
execution cache of its own that starts empty, so every block runs again in a second
process. Every pytest process (xdist worker) waits for the same result files, so the
site is built once per run, however many workers there are. tests/test_determinism.py
compares the two.

The drift check of the pages then takes its outputs from the deploy build, which has
just run every block afresh (``pytest_coursekit_fresh_outputs``), instead of running
every block a third time. The Markdown items run last (coursekit/testing/parallel.py), so
by then the builds are done. The drift check alone (`pytest docs`, `make record`) still
runs every page itself.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support import QUIET_ENV, ROOT

for key, value in QUIET_ENV.items():
    os.environ.setdefault(key, value)

# Fixture sites are broken on purpose; tests/test_bad_input.py builds and checks them.
# tests/mistakes/ holds learners' wrong answers, run by tests/test_notebooks.py; imported
# (as pytest-markdown-docs would, to read docstrings), one raises on purpose.
collect_ignore = ["fixtures", "mistakes"]

# Claim checks: tests that prove a sentence of a page (tests/harness/claims.py).
pytest_plugins = ("harness.claims",)

TEST_REPO_URL = "https://github.com/example/course"
SITES = ("built_site", "built_site_with_repo_url")  # what the background builder makes
BUILD_TIMEOUT = 1800


def _shared_dir(factory: pytest.TempPathFactory) -> Path:
    """A folder every process of this run sees (xdist workers get subfolders of it)."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def start_site_builds(factory: pytest.TempPathFactory) -> Path:
    """Start the builds unless a process of this run already did; return where they go.

    PREBUILT_SITES=<folder> names the two sites made already by
    `python tests/support.py sites <folder> <REPO_URL>` (CI builds them once for every
    shard of the suite): nothing is built then."""
    from filelock import FileLock

    if os.environ.get("PREBUILT_SITES"):
        return Path(os.environ["PREBUILT_SITES"]).resolve()
    shared = _shared_dir(factory)
    with FileLock(str(shared / "sites.lock")):
        started = shared / "sites.started"
        if not started.exists():
            # Through a shell that leaves it running and returns: the builder is then no
            # child of this worker, which would reap it whenever it next starts a process
            # and count its CPU-seconds in whatever test that is (they are counted once,
            # from its result files, in pytest_terminal_summary).
            builder = subprocess.Popen(
                [
                    "/bin/sh",
                    "-c",
                    '"$0" "$@" >/dev/null 2>&1 &',
                    sys.executable,
                    str(ROOT / "tests" / "support.py"),
                    "sites",
                    str(shared),
                    TEST_REPO_URL,
                ],
                start_new_session=True,  # its own process group, which outlives this worker
            )
            builder.wait()
            # The shell's pid names the process group that the builder stays in.
            (shared / "sites.pid").write_text(str(builder.pid), encoding="utf-8")
            started.touch()
    return shared


def pytest_unconfigure(config: pytest.Config) -> None:
    """The run is over: stop builds nobody will read (a run of a few tests that started
    them must not leave two whole-site builds running in the background)."""
    factory = getattr(config, "_tmp_path_factory", None)
    if factory is None or os.environ.get("PYTEST_XDIST_WORKER"):
        return  # only the process that owns the run's temporary folder
    shared = _shared_dir(factory)
    pid_file = shared / "sites.pid"
    finished = all((shared / f"{n}.json").exists() for n in SITES)
    if pid_file.exists() and not finished:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(int(pid_file.read_text(encoding="utf-8")), signal.SIGTERM)


def pytest_coursekit_fresh_outputs(config: pytest.Config, root: Path) -> Path | None:
    """The deploy build's execution cache, every block of it run in this test run, for the
    drift check of this project's pages (fixture sites run their own); None when this
    run builds no site."""
    if root.resolve() != ROOT:
        return None
    if os.environ.get("PREBUILT_SITES"):
        shared = Path(os.environ["PREBUILT_SITES"]).resolve()
    else:
        shared = _shared_dir(config._tmp_path_factory)  # type: ignore[attr-defined]
        if not (shared / "sites.started").exists():
            return None
    if not _finished(shared / "built_site_with_repo_url.json"):
        return None  # the drift check runs the pages itself; the site tests fail
    # Even a failed build leaves the pages it ran before the failure; the rest are run.
    return shared / "fresh-cache" / "exec"


@pytest.hookimpl(tryfirst=True)  # before coursekit.testing.cost prints the summary
def pytest_terminal_summary(config: pytest.Config) -> None:
    """The background site builds: no test waits for their CPU time, so count it here."""
    from coursekit.testing.cost import add_background

    factory = getattr(config, "_tmp_path_factory", None)
    if factory is None:
        return
    for name in SITES:
        result = _shared_dir(factory) / f"{name}.json"
        if result.exists():
            cpu = json.loads(result.read_text(encoding="utf-8")).get("cpu", 0.0)
            add_background(config, "builds (the whole site, twice, in the background)", cpu)


def _finished(result_file: Path) -> bool:
    """Wait (at most BUILD_TIMEOUT) for a background build's result file."""
    deadline = time.monotonic() + BUILD_TIMEOUT
    while not result_file.exists():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def wait_for_site(factory: pytest.TempPathFactory, name: str) -> Path:
    shared = start_site_builds(factory)
    result_file = shared / f"{name}.json"
    if not _finished(result_file):
        pytest.fail(f"the site build ({name}) did not finish", pytrace=False)
    result = json.loads(result_file.read_text(encoding="utf-8"))
    if result["returncode"] != 0:
        pytest.fail(f"the strict build ({name}) failed:\n{result['log']}", pytrace=False)
    return shared / name


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Start the build now if any selected test needs the site: it runs while others do.
    from coursekit.testing.parallel import SITE_FIXTURES

    if config.option.collectonly:
        return  # nothing will run
    needed = set(SITE_FIXTURES)
    if os.environ.get("BROWSER_TEST_SITE"):
        needed -= {"site_dir", "site_url"}  # the browser tests use that site instead
    if any(needed & set(getattr(item, "fixturenames", ())) for item in items):
        start_site_builds(config._tmp_path_factory)  # type: ignore[attr-defined]


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole site as a local build makes it (no REPO_URL), built once per test run."""
    return wait_for_site(tmp_path_factory, "built_site")


@pytest.fixture(scope="session")
def built_site_with_repo_url(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site as the deploy workflow builds it: REPO_URL set (edit and Colab links);
    every block run again, in another process, with an empty execution cache."""
    return wait_for_site(tmp_path_factory, "built_site_with_repo_url")
