"""Shared test fixtures.

The drift check itself is the plugin ``coursekit.pytest_plugin`` (loaded from
pyproject.toml), so the same plugin also runs the small fixture sites below.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
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
SITES = ROOT / "tests" / "fixtures" / "sites"


def copy_fixture_site(name: str, destination: Path) -> Path:
    """A writable copy of tests/fixtures/sites/<name> under ``destination``, for tests
    that edit it (its shared base.yml points at this checkout's hooks)."""
    shutil.copy2(SITES / "pytest.ini", destination / "pytest.ini")
    base = (SITES / "base.yml").read_text(encoding="utf-8")
    hooks = (ROOT / "coursekit" / "mkdocs_hooks.py").as_posix()
    (destination / "base.yml").write_text(
        base.replace("../../../../coursekit/mkdocs_hooks.py", hooks), encoding="utf-8"
    )
    site = destination / name
    shutil.copytree(SITES / name, site, ignore=shutil.ignore_patterns(".cache"))
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


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole site, built once per test session with `mkdocs build --strict`."""
    site = tmp_path_factory.mktemp("site")
    result = build_site(site)
    if result.returncode != 0:
        pytest.fail(
            f"mkdocs build --strict failed:\n{result.stdout}\n{result.stderr}", pytrace=False
        )
    return site
