"""Bad input fails loudly, naming the Markdown file and line, in the build and in the tests.

Each case is a tiny site under tests/fixtures/sites/. Both the strict build and the
drift check run on it in their own processes (all in parallel: they are independent).
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

SITES = Path(__file__).parent / "fixtures" / "sites"


@dataclass(frozen=True)
class Case:
    name: str
    build_error: str | None  # None: the build itself cannot see this problem
    test_error: str | None  # None: no Markdown block to drift-check


CASES = [
    Case("syntax-error", "docs/index.md:10: syntax error", "docs/index.md:10: syntax error"),
    Case(
        "unexpected-exception",
        "'docs/index.md:3' exited with errors",
        "docs/index.md:5: IndexError: list index out of range",
    ),
    Case(
        "missing-include",
        "docs/index.md:4: Snippet at path 'no_such_file.py' could not be found",
        "docs/index.md:4: Snippet at path 'no_such_file.py' could not be found",
    ),
    Case(
        "missing-region",
        "docs/index.md:8: Snippet section 'absent' could not be located",
        "docs/index.md:8: Snippet section 'absent' could not be located",
    ),
    Case(
        "expected-error-missing",
        "docs/index.md:3: the page says this block raises RuntimeError",
        "docs/index.md:3: the page says this block raises RuntimeError",
    ),
    Case("output-mismatch", None, "docs/index.md:3: block 1 printed something other than"),
    Case(
        "never-ends",
        "docs/index.md:3: the block ran for more than 1 s",
        "docs/index.md:3: the block ran for more than 1 s",
    ),
]


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def _build(site: Path, out: Path) -> subprocess.CompletedProcess[str]:
    # Never `-q`: MkDocs then drops warnings before strict mode can count them.
    return _run([sys.executable, "-m", "mkdocs", "build", "--site-dir", str(out)], site)


def _drift_check(site: Path) -> subprocess.CompletedProcess[str]:
    record = site / "record.yml"
    return _run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-c",
            str(SITES / "pytest.ini"),
            "--rootdir",
            str(site),
            "--outputs-record",
            str(record),
            "--mkdocs-config",
            "mkdocs.yml",
            str(site / "docs"),
        ],
        site,
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the fixture sites are built (one folder per case)."""
    return tmp_path_factory.mktemp("fixture-sites")


@pytest.fixture(scope="module")
def results(built: Path) -> dict[tuple[str, str], subprocess.CompletedProcess[str]]:
    out = built
    jobs = {}
    with ThreadPoolExecutor(max_workers=4) as pool:
        for name in [case.name for case in CASES] + ["healthy"]:
            site = SITES / name
            jobs[name, "build"] = pool.submit(_build, site, out / name)
            jobs[name, "test"] = pool.submit(_drift_check, site)
    return {key: job.result() for key, job in jobs.items()}


def test_the_healthy_control_site_passes(results: dict) -> None:
    build, test = results["healthy", "build"], results["healthy", "test"]
    assert build.returncode == 0, build.stderr
    assert test.returncode == 0, test.stdout
    assert "4 passed" in test.stdout


def test_outputs_are_labelled_and_silent_blocks_get_no_box(results: dict, built: Path) -> None:
    assert results["healthy", "build"].returncode == 0
    page = (built / "healthy" / "index.html").read_text(encoding="utf-8")
    assert page.count('<div class="result exec-output"') == 3  # four blocks, one silent
    assert '<p class="exec-output__label">Output (ZeroDivisionError expected)</p>' in page
    assert "ZeroDivisionError: division by zero" in page


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_the_build_fails_naming_file_and_line(case: Case, results: dict) -> None:
    build = results[case.name, "build"]
    if case.build_error is None:
        assert build.returncode == 0, "the build does not compare outputs; only the tests do"
        return
    assert build.returncode != 0, f"{case.name}: the build reported success:\n{build.stderr}"
    assert case.build_error in build.stderr, build.stderr
    assert "Documentation built" not in build.stderr


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_the_drift_check_fails_naming_file_and_line(case: Case, results: dict) -> None:
    test = results[case.name, "test"]
    if case.test_error is None:
        return
    assert test.returncode == 1, f"{case.name}: exit {test.returncode}\n{test.stdout}"
    assert case.test_error in test.stdout, test.stdout
    assert "1 failed" in test.stdout, "exactly the broken block fails, nothing else"
