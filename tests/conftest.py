"""Shared test fixtures: the whole site, built once per test run.

The site is built twice, one build after the other (tests/support.py, ``build_sites``):
as a local build makes it (the project's execution cache, so an author's second run is
quick), and as the deploy workflow makes it (REPO_URL set: edit and Colab links) with an
execution cache of its own that starts empty, so that every block runs again in a second
process (tests/test_determinism.py compares the two).

The builds are made by the first test that needs them, under a file lock: every other
process of the run that needs the site waits for that lock, then reads the result. The
run schedules tests/test_site.py first (tests/harness/parallel.py), so under xdist one
worker builds while the others run the tests that need no site; those that do, and the
drift check of the pages, run last. The drift check takes each page's outputs from the
deploy build, which ran every block afresh (``pytest_coursekit_fresh_outputs``), instead
of running it a third time; the drift check alone (`pytest docs`, `make record`) runs
every page itself.

PREBUILT_SITES=<folder> names the two sites made already by
`python tests/support.py sites <folder> <REPO_URL>` (CI builds them once for every shard).
"""

from __future__ import annotations

import gc
import json
import os
from pathlib import Path

import pytest
from filelock import FileLock
from hypothesis import settings
from support import QUIET_ENV, ROOT, build_sites

for key, value in QUIET_ENV.items():
    os.environ.setdefault(key, value)

# The property tests (claim checks) draw the same examples on every run and machine, so a
# run fails only when the code or PyTorch changed, never by the luck of the draw. The
# weekly workflow searches afresh (HYPOTHESIS_PROFILE=explore): what it finds becomes an
# @example.
settings.register_profile("repeatable", derandomize=True, database=None)
settings.register_profile("explore", max_examples=200)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

# Fixture sites are broken on purpose; tests/test_bad_input.py builds and checks them.
# tests/mistakes/ holds learners' wrong answers, run by tests/test_notebooks.py; imported
# (as pytest-markdown-docs would, to read docstrings), one raises on purpose.
collect_ignore = ["fixtures", "mistakes"]

# The suite's own plugins (tests/harness/): claim checks, the spread over workers, the
# CPU-seconds by group, the CI shards.
pytest_plugins = ("harness.claims", "harness.parallel", "harness.cost", "harness.shards")

TEST_REPO_URL = "https://github.com/example/course"
SITES = ("built_site", "built_site_with_repo_url")  # what build_sites makes


def pytest_collection_finish(session: pytest.Session) -> None:
    """Freeze what collection made, in each process of the run, before any test runs.

    Pages collect garbage before each memory profile (``while gc.collect(): pass``, e.g.
    snippets/control/memory_and_time.py), and a collection walks every object the process
    tracks: frozen, the test modules, torch and hypothesis are left out of those walks.
    """
    gc.collect()
    gc.freeze()


def _shared_dir(factory: pytest.TempPathFactory) -> Path:
    """A folder every process of this run sees (xdist workers get subfolders of it)."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def site_builds(factory: pytest.TempPathFactory) -> Path:
    """The folder of the two builds of this run: made now if no process made them yet."""
    if os.environ.get("PREBUILT_SITES"):
        return Path(os.environ["PREBUILT_SITES"]).resolve()
    shared = _shared_dir(factory)
    (shared / "sites.started").touch()
    with FileLock(str(shared / "sites.lock")):  # one process builds, the others wait here
        if not all((shared / f"{name}.json").exists() for name in SITES):
            build_sites(shared, TEST_REPO_URL)
    return shared


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
            return None  # the drift check runs the pages itself
        with FileLock(str(shared / "sites.lock")):  # until the builds are done
            pass
    # Even a failed build leaves the pages it ran before the failure; the rest are run.
    return shared / "fresh-cache" / "exec"


@pytest.fixture
def harness_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite's plugins (tests/harness/) can be loaded by a pytester subprocess."""
    path = [str(ROOT / "tests"), *filter(None, [os.environ.get("PYTHONPATH")])]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(path))


def built(factory: pytest.TempPathFactory, name: str) -> Path:
    shared = site_builds(factory)
    result = json.loads((shared / f"{name}.json").read_text(encoding="utf-8"))
    if result["returncode"] != 0:
        pytest.fail(f"the strict build ({name}) failed:\n{result['log']}", pytrace=False)
    return shared / name


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole site as a local build makes it (no REPO_URL), built once per test run."""
    return built(tmp_path_factory, "built_site")


@pytest.fixture(scope="session")
def built_site_with_repo_url(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site as the deploy workflow builds it: REPO_URL set (edit and Colab links);
    every block run again, in another process, with an empty execution cache."""
    return built(tmp_path_factory, "built_site_with_repo_url")
