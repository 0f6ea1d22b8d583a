"""Bad input fails loudly, naming the Markdown file and line, in the build and in the tests.

Each case is a tiny site under tests/fixtures/sites/. Both the strict build and the
drift check run on it in their own processes (all in parallel: they are independent).
A broken block also fails `mkdocs build -q` (with and without --strict);
tests/test_serve.py shows what `make serve` does with one.
"""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from support import FIXTURE_SITES, build, run

SITES = FIXTURE_SITES


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
    # The build compares every output with the record too: what is built is what was recorded.
    Case(
        "output-mismatch",
        "docs/index.md:3: block 'block-1' printed something other",
        "docs/index.md:3: block 'block-1' printed something other",
    ),
    Case(
        "never-ends",
        "docs/index.md:3: BlockTimeout: the block ran for more than 1 s",
        "docs/index.md:3: BlockTimeout: the block ran for more than 1 s",
    ),
    # A block the page scan runs but no fence shows (coursekit/mkdocs_adapter/build.py).
    Case("unshown-block", "docs/index.md:6: this block ran, but no fence showed its output", None),
    # markdown-exec's own python fence would have to be overwritten: refused, not done.
    Case("python-fence-taken", "mkdocs.yml: another fence is registered for py, python", None),
    # Maths that reached the page as text, whatever produced it (coursekit/content/raw_tex.py).
    Case("raw-tex", "docs/index.md:6: the built page shows TeX as text", None),
    # The notebook's cell error (coursekit/notebooks/execute.py); no Markdown block.
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


def _error_message(log: str) -> str:
    """The message of the build's error: what follows MkDocs' "Error reading page" line."""
    lines = log.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("ERROR") and not re.search(r"Error (?:reading|building) page", line):
            first = line.split("-  ", 1)[1]
            rest = [
                x for x in lines[i + 1 :] if not x.startswith(("ERROR", "Aborted", "INFO", "Abort"))
            ]
            return "\n".join([first, *rest]).strip()
    return ""


def _cli_build(site: Path, out: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    """The real `mkdocs build` command line, for what only the command line decides."""
    return run([sys.executable, "-m", "mkdocs", "build", *flags, "--site-dir", str(out)], site)


@dataclass(frozen=True)
class DriftResult:
    failed: list[str]  # the failure messages of this site's tests
    passed: int


def _drift_check_all(out: Path) -> dict[str, DriftResult]:
    """One pytest run drift-checks every fixture site (each page belongs to the site of
    the nearest mkdocs.yml); the JUnit report says what failed where."""
    report = out / "drift.xml"
    names = [case.name for case in CASES if case.test_error] + ["healthy", "numerical-drift"]
    done = run(
        [
            *(sys.executable, "-m", "pytest", "-c", str(SITES / "pytest.ini")),
            *("--rootdir", str(SITES), "--junitxml", str(report)),
            *(str(SITES / name / "docs") for name in names),
        ],
        SITES,
    )
    assert report.exists(), done.stdout + done.stderr
    results: dict[str, DriftResult] = {name: DriftResult([], 0) for name in names}
    for case in ET.parse(report).iter("testcase"):
        name = case.get("classname", "").split(".docs.")[0]  # "healthy.docs.index.md"
        failure = case.find("failure")
        entry = results[name]
        if failure is not None:
            entry.failed.append(f"{failure.get('message', '')}\n{failure.text or ''}")
        elif case.find("skipped") is None:
            results[name] = DriftResult(entry.failed, entry.passed + 1)
    return results


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the fixture sites are built (one folder per case)."""
    return tmp_path_factory.mktemp("fixture-sites")


@pytest.fixture(scope="module")
def results(built: Path) -> dict[tuple[str, str], Any]:
    out: dict[tuple[str, str], Any] = {}
    for name in [case.name for case in CASES] + ["healthy", "numerical-drift"]:
        out[name, "build"] = build(
            SITES / name / "mkdocs.yml", built / name, cache_dir=built / f"{name}-cache"
        )
    # What `make serve` does with an output that is not its record: it keeps serving.
    out["output-mismatch", "serve"] = build(
        SITES / "output-mismatch" / "mkdocs.yml",
        built / "output-mismatch-served",
        cache_dir=built / "output-mismatch-served-cache",
        serving=True,
    )
    quiet = SITES / "quiet-build"
    out["quiet", "-q"] = _cli_build(quiet, built / "quiet", "-q")
    out["quiet", "-q --strict"] = _cli_build(quiet, built / "quiet-strict", "-q", "--strict")
    for name, result in _drift_check_all(built).items():
        out[name, "test"] = result
    return out


def test_the_healthy_control_site_passes(results: dict) -> None:
    built, test = results["healthy", "build"], results["healthy", "test"]
    assert built.returncode == 0, built.log
    assert not test.failed and test.passed == 4, test


def test_the_last_digits_of_floats_may_differ_from_the_record(results: dict) -> None:
    """The record came from another CPU: the build passes and says so, the drift check
    passes (it reports the block as numerical, tests/test_drift_report.py)."""
    built, test = results["numerical-drift", "build"], results["numerical-drift", "test"]
    assert built.returncode == 0, built.log
    assert "1 outputs differ from the record in the last digits of floats only" in built.log
    assert not test.failed and test.passed == 1, test


def test_serve_shows_an_output_that_is_not_the_record_with_a_warning(
    results: dict, built: Path
) -> None:
    served = results["output-mismatch", "serve"]
    assert served.returncode == 0, served.log
    page = (built / "output-mismatch-served" / "index.html").read_text(encoding="utf-8")
    # The terminal gets the same text (coursekit.serve's logger, not captured here).
    assert "docs/index.md:3: block &#x27;block-1&#x27; printed something other" in page
    warning = page.index("Not the recorded output")
    assert warning < page.index("exec-output"), "the warning comes before the new output"
    assert "-41" in page and "+42" in page  # the diff: the record, then what it printed


def test_outputs_are_labelled_and_silent_blocks_get_no_box(results: dict, built: Path) -> None:
    assert results["healthy", "build"].returncode == 0
    page = (built / "healthy" / "index.html").read_text(encoding="utf-8")
    assert page.count('<div class="result exec-output"') == 3  # four blocks, one silent
    assert '<p class="exec-output__label">Output (ZeroDivisionError expected)</p>' in page
    assert "ZeroDivisionError: division by zero" in page


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_the_build_fails_naming_file_and_line(case: Case, results: dict) -> None:
    built = results[case.name, "build"]
    if case.build_error is None:
        assert built.returncode == 0, "the build does not compare outputs; only the tests do"
        return
    assert built.returncode != 0, f"{case.name}: the build reported success:\n{built.log}"
    message = _error_message(built.log)
    # The first line of the error is file:line: Type: message, as Python would say it.
    assert message.startswith(case.build_error), built.log
    assert "Documentation built" not in built.log
    # No frame of markdown-exec or of the runner, no generated source.
    assert "markdown_exec" not in built.log
    assert "coursekit/" not in message and "coursekit." not in message
    assert "__import__" not in built.log
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


def test_a_failing_page_is_never_cached(results: dict, built: Path) -> None:
    for case in CASES:
        # These ran cleanly: their real outputs may be cached (the record is checked and
        # every block must be shown on every build, cached or not).
        if case.build_error is not None and case.name not in {"output-mismatch", "unshown-block"}:
            assert results[case.name, "build"].returncode != 0
            assert not (built / f"{case.name}-cache" / "exec" / "docs__index.md.json").exists()
    # The control: a healthy page is cached where its build was told to keep it.
    assert (built / "healthy-cache" / "exec" / "docs__index.md.json").exists()


@pytest.mark.parametrize("case", [c for c in CASES if c.test_error], ids=lambda case: case.name)
def test_the_drift_check_fails_naming_file_and_line(case: Case, results: dict) -> None:
    test = results[case.name, "test"]
    assert len(test.failed) == 1, f"{case.name}: exactly the broken block fails: {test}"
    assert case.test_error in test.failed[0], test.failed[0]
    assert "markdown_exec" not in test.failed[0]
    assert "coursekit/" not in test.failed[0]
