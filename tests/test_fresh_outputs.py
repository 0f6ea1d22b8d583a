"""In `make test` the drift check takes each page's outputs from the deploy build, which
ran every block afresh in the same run, instead of running the page a third time
(``pytest_coursekit_fresh_outputs``, answered by tests/conftest.py)."""

from __future__ import annotations

import sys
from pathlib import Path

from support import fixture_site, run

from coursekit.execution.cache import ExecCache
from coursekit.execution.page_run import run_page
from coursekit.mkdocs_adapter.project import Project

CONFTEST = """
from pathlib import Path


def pytest_coursekit_fresh_outputs(config, root):
    return Path({folder!r})
"""


def test_the_drift_check_checks_the_outputs_a_fresh_build_made(tmp_path: Path) -> None:
    site = fixture_site("healthy", tmp_path)
    page = site / "docs" / "index.md"
    blocks = Project.load(site / "mkdocs.yml").read(page).blocks
    outputs = [result.output for result in run_page(blocks)]
    # What the build of this run stored, with one output that only it printed: the drift
    # check must report that one, so it read the build's outputs instead of running.
    outputs[-1] = "printed by the build\n"
    fresh = tmp_path / "fresh-cache" / "exec"
    ExecCache(fresh).store(blocks, outputs)
    (site / "docs" / "conftest.py").write_text(CONFTEST.format(folder=str(fresh)))

    args = [sys.executable, "-m", "pytest", "-c", str(tmp_path / "pytest.ini")]
    done = run([*args, "--rootdir", str(tmp_path), str(site / "docs")], tmp_path)

    assert done.returncode == 1, done.stdout + done.stderr
    assert "+printed by the build" in done.stdout, done.stdout
    # The other blocks were compared too, and match their record.
    assert "1 failed" in done.stdout, done.stdout
