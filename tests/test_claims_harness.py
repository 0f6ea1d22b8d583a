"""The claim checks' own rules (tests/harness/claims.py), run as an author would meet them:
a quote the page does not say, on any of a test's markers, fails that test with a message
naming its file and line, with and without pytest-xdist; a version note the page does not
show is refused; a refused claim is an error, never an xfail or xpass (its own xfail mark
or a note's notwithstanding); before the note's release a noted claim is a strict xfail."""

from __future__ import annotations

import os
import re

import pytest
from packaging.version import Version
from support import ROOT

from coursekit import versions

pytest_plugins = ["pytester"]

PAGE = "docs/interview/what-is-the-straight-through-estimator.md"
SAID = "It is the same as `SignSTE`, value and gradient, at every $w$"


def _run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, body: str, *options: str
) -> str:
    path = [str(ROOT / "tests"), *filter(None, [os.environ.get("PYTHONPATH")])]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(path))
    pytester.makepyfile(test_claimed=f"import pytest\n\n{body}")
    result = pytester.runpytest_subprocess(
        "-p", "harness.claims", "-p", "no:randomly", "-rA", *options
    )
    return result.stdout.str() + result.stderr.str()


@pytest.mark.parametrize("workers", ["0", "2"])  # as `make test` runs: under pytest-xdist
@pytest.mark.parametrize(
    "second_mark",
    [
        f"@pytest.mark.claim({PAGE!r}, {SAID!r})",  # every marker is read, not the first alone
        # Its own xfail mark: the harness's setup hook runs before that of pytest's skipping
        # plugin, which would otherwise turn the refusal into an expected failure.
        "@pytest.mark.xfail(reason='its own')",
    ],
    ids=["and-a-quote-it-says", "and-its-own-xfail"],
)
def test_a_quote_the_page_does_not_say_fails_its_test(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, workers: str, second_mark: str
) -> None:
    out = _run(
        pytester,
        monkeypatch,
        f"@pytest.mark.claim({PAGE!r}, 'a sentence the page never wrote')\n"
        f"{second_mark}\n"
        "def test_claimed():\n    assert False\n\n\n"
        "def test_unclaimed():\n    pass\n",
        "-n",
        workers,
    )
    assert "test_claimed.py:3: claim check test_claimed" in out
    assert "does not say 'a sentence the page never wrote'" in out
    assert "1 passed, 1 error" in out  # the claimed test errs at setup; the others run
    assert "INTERNALERROR" not in out
    assert not re.search("XFAIL|XPASS|xfailed|xpassed", out)


def test_a_note_the_page_does_not_show_is_refused(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = _run(
        pytester,
        monkeypatch,
        f"@pytest.mark.claim({PAGE!r}, {SAID!r}, note='checkpoint-warning')\n"
        "def test_noted():\n    pass\n",
    )
    assert "its version note 'checkpoint-warning' is not on" in out
    # Refused on every release: never the strict xfail that the note (since 2.15.0) would
    # give on an older one.
    assert "1 error" in out
    assert not re.search("XFAIL|XPASS|xfailed|xpassed", out)


def test_a_noted_claim_is_a_strict_xfail_before_its_release(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = _run(
        pytester,
        monkeypatch,
        f"@pytest.mark.claim({PAGE!r}, {SAID!r}, note='clamp-bounds')\n"
        "def test_noted():\n    pass\n",
    )
    # On the older release, passing means the note is wrong.
    if Version(versions.torch()) < Version("2.14"):
        assert "XPASS(strict)" in out and "1 failed" in out
    else:
        assert "1 passed" in out
