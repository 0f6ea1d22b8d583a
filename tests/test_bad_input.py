"""Bad input fails loudly, naming the Markdown file and line, in the build and in the tests.

Each case is a tiny site under tests/fixtures/sites/. Both the strict build and the
drift check run on it in their own processes (all in parallel: they are independent).
A broken block also fails `mkdocs build -q` (with and without --strict), and under
`mkdocs serve` it shows its error on the page while the server keeps running.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import copy_fixture_site

SITES = Path(__file__).parent / "fixtures" / "sites"


@dataclass(frozen=True)
class Case:
    name: str
    build_error: str | None  # None: the build itself cannot see this problem
    test_error: str | None  # None: no Markdown block to drift-check


CASES = [
    Case(
        "syntax-error",
        "docs/index.md:10: SyntaxError: invalid syntax",
        "docs/index.md:10: SyntaxError: invalid syntax",
    ),
    Case(
        "unexpected-exception",
        "docs/index.md:5: IndexError: list index out of range",
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
        "docs/index.md:3: ExpectedErrorMissing: the page says this block raises RuntimeError",
        "docs/index.md:3: ExpectedErrorMissing: the page says this block raises RuntimeError",
    ),
    Case("output-mismatch", None, "docs/index.md:3: block 'block-1' printed something other"),
    Case(
        "never-ends",
        "docs/index.md:3: BlockTimeout: the block ran for more than 1 s",
        "docs/index.md:3: BlockTimeout: the block ran for more than 1 s",
    ),
    # The notebook's cell error (coursekit/notebook_execution.py); no Markdown block.
    Case("failing-notebook", "docs/broken.ipynb: code cell 2 failed: IndexError", None),
]
# Errors of the page's code: the traceback shows the page's frames, and only them.
TRACEBACKS = {
    "unexpected-exception": ['  File "docs/index.md", line 5', "    print(values[10])"],
    "quiet-build": [
        '  File "docs/index.md", line 7',
        "    print(divide(1, 0))",
        '  File "docs/index.md", line 5',
        "    return a / b",
    ],
}
QUIET = "docs/index.md:5: ZeroDivisionError: division by zero"


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def _build(site: Path, out: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return _run([sys.executable, "-m", "mkdocs", "build", *flags, "--site-dir", str(out)], site)


def _error_message(stderr: str) -> str:
    """The message of the build's error: what follows MkDocs' "Error reading page" line."""
    lines = stderr.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("ERROR") and "Error reading page" not in line:
            first = line.split("-  ", 1)[1]
            rest = [x for x in lines[i + 1 :] if not x.startswith(("ERROR", "Aborted", "INFO"))]
            return "\n".join([first, *rest]).strip()
    return ""


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
        quiet = SITES / "quiet-build"
        jobs["quiet", "-q"] = pool.submit(_build, quiet, out / "quiet", "-q")
        jobs["quiet", "-q --strict"] = pool.submit(
            _build, quiet, out / "quiet-strict", "-q", "--strict"
        )
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
    message = _error_message(build.stderr)
    # The first line of the error is file:line: Type: message, as Python would say it.
    assert message.startswith(case.build_error), build.stderr
    assert "Documentation built" not in build.stderr
    # No frame of markdown-exec or of the runner, no generated source.
    assert "markdown_exec" not in build.stderr
    assert "coursekit" not in message
    assert "__import__" not in build.stderr
    if case.name in TRACEBACKS:
        assert message.splitlines()[1:] == [
            "Traceback (the page's code, most recent call last):",
            *TRACEBACKS[case.name],
        ]


@pytest.mark.parametrize("flags", ["-q", "-q --strict"])
def test_a_quiet_build_still_fails_with_file_and_line_first(flags: str, results: dict) -> None:
    build = results["quiet", flags]
    assert build.returncode != 0, f"mkdocs build {flags} published a broken page"
    message = _error_message(build.stderr)
    assert message.splitlines()[0] == QUIET, build.stderr
    assert message.splitlines()[2:] == TRACEBACKS["quiet-build"]


def test_a_failing_page_is_never_cached(results: dict) -> None:
    for case in CASES:
        if case.build_error is not None:
            assert results[case.name, "build"].returncode != 0
            assert not (SITES / case.name / ".cache" / "exec" / "docs__index.md.json").exists()


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_the_drift_check_fails_naming_file_and_line(case: Case, results: dict) -> None:
    test = results[case.name, "test"]
    if case.test_error is None:
        return
    assert test.returncode == 1, f"{case.name}: exit {test.returncode}\n{test.stdout}"
    assert case.test_error in test.stdout, test.stdout
    assert "1 failed" in test.stdout, "exactly the broken block fails, nothing else"
    assert "markdown_exec" not in test.stdout
    assert "coursekit/" not in test.stdout


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_for(url: str, server: subprocess.Popen[str], wanted: str, timeout: float = 120) -> str:
    """Poll ``url`` until its page contains ``wanted``; fail if the server dies first."""
    deadline = time.monotonic() + timeout
    page = ""
    while time.monotonic() < deadline:
        assert server.poll() is None, "mkdocs serve stopped"
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                page = response.read().decode("utf-8")
        except OSError:
            page = ""
        if wanted in page:
            return page
        time.sleep(0.3)
    raise AssertionError(f"{wanted!r} never appeared on {url}:\n{page[-2000:]}")


def test_serve_follows_a_snippet_edit_shows_errors_and_recovers(tmp_path: Path) -> None:
    site = copy_fixture_site("serve-edit", tmp_path)
    snippet = site / "snippets" / "example.py"
    port = _free_port()
    log = (tmp_path / "serve.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{port}"],
        cwd=site,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        _wait_for(url, server, "value: 1")
        # An edited region is rebuilt: snippets/ is watched (`watch:` in mkdocs.yml).
        snippet.write_text(snippet.read_text().replace('"value:", 1', '"value:", 2'))
        _wait_for(url, server, "value: 2")
        # A broken block: the error is on the page and in the terminal; the server lives.
        snippet.write_text(snippet.read_text().replace('"value:", 2', '"value:", 1 / 0'))
        page = _wait_for(url, server, "ZeroDivisionError")
        assert "exec-error" in page
        assert "docs/index.md:4: ZeroDivisionError: division by zero" in page
        assert "docs/index.md:4: ZeroDivisionError" in (tmp_path / "serve.log").read_text()
        # Fixed again: the page comes back.
        snippet.write_text(snippet.read_text().replace('"value:", 1 / 0', '"value:", 3'))
        page = _wait_for(url, server, "value: 3")
        assert "exec-error" not in page
        assert server.poll() is None
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
