"""Shared test fixtures.

The drift check itself is the plugin ``coursekit.pytest_plugin`` (loaded from
pyproject.toml), so the same plugin also runs the small fixture sites below.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Builds started by the tests stay quiet about MkDocs 2 (Material's and a plugin's banners).
os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
os.environ.setdefault("DISABLE_MKDOCS_2_WARNING", "true")
# Same as the Makefile: tiny examples run faster on one thread (set before torch loads).
os.environ.setdefault("OMP_NUM_THREADS", "1")

# Fixture sites are broken on purpose; test_bad_input.py runs them in their own processes.
collect_ignore = ["fixtures"]
FIXTURE_SITES = ROOT / "tests" / "fixtures" / "sites"


def copy_fixture_site(name: str, destination: Path) -> Path:
    """A writable copy of tests/fixtures/sites/<name> under ``destination``, for tests
    that edit it (its shared base.yml points at this checkout's hooks)."""
    shutil.copy2(FIXTURE_SITES / "pytest.ini", destination / "pytest.ini")
    base = (FIXTURE_SITES / "base.yml").read_text(encoding="utf-8")
    hooks = (ROOT / "coursekit" / "mkdocs_hooks.py").as_posix()
    (destination / "base.yml").write_text(
        base.replace("../../../../coursekit/mkdocs_hooks.py", hooks), encoding="utf-8"
    )
    site = destination / name
    shutil.copytree(FIXTURE_SITES / name, site, ignore=shutil.ignore_patterns(".cache"))
    return site


def build_site(
    destination: Path, config: Path = ROOT / "mkdocs.yml", *, exec_cache: bool = True
) -> subprocess.CompletedProcess[str]:
    """`mkdocs build --strict` into ``destination``; the caller checks the result.

    ``exec_cache=False`` runs every block instead of reading .cache/exec/.
    """
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    if not exec_cache:
        env["COURSEKIT_EXEC_CACHE"] = "off"
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--config-file",
            str(config),
            "--site-dir",
            str(destination),
        ],
        cwd=config.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


# --- The site, built once per test run ------------------------------------------------
#
# Two builds, one after the other in one background process started as soon as the tests
# are collected (the caches of the first make the second quick): the site as a local
# build makes it, and as the deploy workflow makes it (REPO_URL set: edit and Colab
# links). Every pytest process (xdist worker) waits for the same result files, so the
# site is built once per run, however many workers there are, while the other tests run.

TEST_REPO_URL = "https://github.com/example/course"
SITES = {"built_site": {}, "built_site_with_repo_url": {"REPO_URL": TEST_REPO_URL}}
BUILD_TIMEOUT = 900


def _shared_dir(factory: pytest.TempPathFactory) -> Path:
    """A folder every process of this run sees (xdist workers get subfolders of it)."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def start_site_builds(factory: pytest.TempPathFactory) -> Path:
    """Start the builds unless a process of this run already did; return where they go."""
    from filelock import FileLock

    shared = _shared_dir(factory)
    with FileLock(str(shared / "sites.lock")):
        started = shared / "sites.started"
        if not started.exists():
            subprocess.Popen(
                [
                    *(sys.executable, str(ROOT / "tests" / "site_builder.py")),
                    *(str(shared), str(ROOT), json.dumps(SITES)),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # outlives the worker that started it
            )
            started.touch()
    return shared


def wait_for_site(factory: pytest.TempPathFactory, name: str) -> Path:
    shared = start_site_builds(factory)
    result_file = shared / f"{name}.json"
    deadline = time.monotonic() + BUILD_TIMEOUT * len(SITES)
    while not result_file.exists():
        if time.monotonic() > deadline:
            pytest.fail(f"the site build ({name}) did not finish", pytrace=False)
        time.sleep(0.2)
    result = json.loads(result_file.read_text(encoding="utf-8"))
    if result["returncode"] != 0:
        pytest.fail(
            f"mkdocs build --strict ({name}) failed:\n{result['stdout']}\n{result['stderr']}",
            pytrace=False,
        )
    return shared / name


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Start the build now if any selected test needs the site: it runs while others do.
    wanted = set(SITES)
    if not os.environ.get("BROWSER_TEST_SITE"):  # else the browser tests use that site
        wanted |= {"site_dir", "site_url"}
    if any(wanted & set(getattr(item, "fixturenames", ())) for item in items):
        start_site_builds(config._tmp_path_factory)  # type: ignore[attr-defined]


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole site as a local build makes it (no REPO_URL), built once per test run."""
    return wait_for_site(tmp_path_factory, "built_site")


@pytest.fixture(scope="session")
def built_site_with_repo_url(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site as the deploy workflow builds it: REPO_URL set (edit and Colab links)."""
    return wait_for_site(tmp_path_factory, "built_site_with_repo_url")
