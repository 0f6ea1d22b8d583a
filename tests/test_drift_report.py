"""The drift report tells the truth: red only for a failed block or a changed output.

Each case is the healthy fixture site, changed a little, drift-checked by the same
command the weekly workflow runs (``pytest docs --drift-report FILE``); the exit
status is the workflow's verdict.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support import fixture_site, run

from coursekit.execution.record import Record


def _drift_check(site: Path, report: Path) -> subprocess.CompletedProcess[str]:
    return run(
        [
            *(sys.executable, "-m", "pytest", "-c", str(site.parent / "pytest.ini")),
            *("--rootdir", str(site), "--drift-report", str(report), str(site / "docs")),
        ],
        site,
    )


def test_another_version_that_prints_the_same_is_green(tmp_path: Path) -> None:
    site = fixture_site("healthy", tmp_path)
    record = Record.load(site / "record.yml")
    record.torch = "9.9.9"
    record.save()
    done = _drift_check(site, tmp_path / "drift.md")
    assert done.returncode == 0, done.stdout
    report = (tmp_path / "drift.md").read_text()
    assert "No output changed and no block failed (4 blocks ran)." in report
    assert "against the record (PyTorch 9.9.9)" in report


def test_the_last_digits_of_floats_are_reported_apart_and_stay_green(tmp_path: Path) -> None:
    """The record of tests/fixtures/sites/numerical-drift came from another CPU."""
    site = fixture_site("numerical-drift", tmp_path)
    done = _drift_check(site, tmp_path / "drift.md")
    assert done.returncode == 0, done.stdout
    report = (tmp_path / "drift.md").read_text()
    assert "No output changed and no block failed (1 blocks ran)." in report
    assert "1 block(s) differ from the record only in the last digits of floats" in report
    _, numerical = report.split("### Numerical differences (not failures)")
    assert "-tensor([ 0.9885, 60.0000])" in numerical
    assert "+tensor([ 0.9886, 60.0000])" in numerical


def test_a_float_beyond_the_tolerance_is_drift(tmp_path: Path) -> None:
    site = fixture_site("numerical-drift", tmp_path)
    page = site / "docs" / "index.md"
    page.write_text(page.read_text().replace("60.0", "61.0"))
    done = _drift_check(site, tmp_path / "drift.md")
    assert done.returncode == 1, done.stdout
    report = (tmp_path / "drift.md").read_text()
    assert "0 block(s) failed and 1 printed something other than the record" in report
    assert "+tensor([ 0.9886, 61.0000])" in report.split("### Changed outputs")[1]


def test_a_failure_does_not_hide_the_drift_after_it(tmp_path: Path) -> None:
    site = fixture_site("healthy", tmp_path)
    page = site / "docs" / "index.md"
    # The first block now fails; the last one prints something else than its record.
    snippet = site / "snippets" / "example.py"
    snippet.write_text(
        snippet.read_text().replace('print("hello', 'raise KeyError("gone")\nprint("hello')
    )
    page.write_text(page.read_text().replace("answer = 6 * 7", "answer = 6 * 8"))
    done = _drift_check(site, tmp_path / "drift.md")
    assert done.returncode == 1, done.stdout
    report = (tmp_path / "drift.md").read_text()
    assert "1 block(s) failed and 1 printed something other than the record" in report
    failures, drift = report.split("### Changed outputs")
    assert "snippets/example.py:2 (included by docs/index.md:3): KeyError: 'gone'" in failures
    assert "docs/index.md:17" in drift and "(ran after a failure on its page)" in drift
    assert "-42\n+48" in drift


def test_a_long_line_that_changed_is_reported_word_by_word(tmp_path: Path) -> None:
    site = fixture_site("healthy", tmp_path)
    page = site / "docs" / "index.md"
    long = "the quick brown fox jumps over the lazy dog " * 4
    page.write_text(page.read_text().replace("print(answer)", f"print({long!r}, answer)"))
    record = Record.load(site / "record.yml")
    record.pages["docs/index.md"]["block-4"] = long.replace("lazy", "sleepy", 1) + " 42\n"
    record.save()
    done = _drift_check(site, tmp_path / "drift.md")
    assert done.returncode == 1, done.stdout
    assert "[-sleepy-]{+lazy+}" in (tmp_path / "drift.md").read_text()
