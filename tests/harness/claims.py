"""Claim checks: a test that proves one sentence of a page, at the edges where it breaks.

A sentence that says how PyTorch behaves over a range of inputs, that two things are the
same, or that something is 0, raises, frees, keeps or stays, gets a test that runs the
page's own code (``tests/maths``: ``run_region``) on the inputs where such a sentence
breaks, and says which sentence it proves::

    @pytest.mark.claim("docs/interview/what-is-the-straight-through-estimator.md",
                       "gives gradient 0 at w = ±1", note="clamp-bounds")
    def test_clipped_trick_at_the_bounds() -> None: ...

* The quote must stand in the page as written (a run of white space counts as one
  space): a sentence that is rewritten leads back to its check, and a check never
  outlives its sentence.
* ``note="<name>"``: the claim holds since that version note's release (mkdocs.yml,
  ``version_notes``) and not before. The note must be shown on the page: a block of it
  is marked ``changed="<name>"``. On a release older than the note's, the check must
  fail (a strict xfail: if it passes there, the note is wrong); every check without a
  note must pass on every release. `make older-check` runs the claim checks on the older
  release of the version notes, so a claim whose verdict changes at an upgrade, without
  a note on its page, fails there.

A claim that breaks any of these rules fails its test before the test runs, with a
message that names the test's file and line. (Raising at collection instead would stop a
plain run, but under pytest-xdist a worker's error at collection surfaces as an
INTERNALERROR that names neither.)
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from packaging.version import Version

from coursekit import versions
from coursekit.execution.older import Note, notes
from coursekit.mkdocs_adapter.project import Project

ROOT = Path(__file__).resolve().parents[2]
MARKER = "claim(page, quote, note=None): this test proves that sentence of that page"
REFUSED = pytest.StashKey[str]()  # why a test's claim is refused, on that test


@dataclass(frozen=True)
class Claim:
    page: str  # "docs/...md", from the project's root
    quote: str  # the sentence, or enough of it, as the page's Markdown has it
    note: str | None  # the version note since which it holds


def claims_of(item: pytest.Item) -> list[Claim]:
    """Every claim the test is marked with (a test may prove several sentences)."""
    found = []
    for mark in item.iter_markers("claim"):
        page, quote = mark.args if len(mark.args) == 2 else (None, None)
        if not isinstance(page, str) or not isinstance(quote, str) or set(mark.kwargs) - {"note"}:
            raise _refused(item, "write @pytest.mark.claim(page, quote) or (page, quote, note=...)")
        found.append(Claim(page, quote, mark.kwargs.get("note")))
    return found


def _squeezed(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@cache
def _project() -> Project:
    return Project.load(ROOT / "mkdocs.yml")


@cache
def _notes() -> dict[str, Note]:
    return notes(_project().options.version_notes)


@cache
def _page(page: str) -> tuple[str, frozenset[str]]:
    """A page's text (white space squeezed) and the version notes its blocks show."""
    path = ROOT / page
    text = path.read_text(encoding="utf-8")
    shown = frozenset(b.changed for b in _project().read(path).blocks if b.changed)
    return _squeezed(text), shown


def problem(claim: Claim) -> str | None:
    """Why this claim cannot stand, or None."""
    if not (ROOT / claim.page).is_file():
        return f"its page {claim.page} does not exist"
    text, shown = _page(claim.page)
    if not claim.quote.strip() or _squeezed(claim.quote) not in text:
        return (
            f"{claim.page} does not say {claim.quote!r} (any more): prove the sentence "
            "it says now, and quote that"
        )
    if claim.note is not None:
        if claim.note not in _notes():
            known = ", ".join(sorted(_notes())) or "none"
            return f"note={claim.note!r} is no version note of mkdocs.yml (known: {known})"
        if claim.note not in shown:
            return (
                f"its version note {claim.note!r} is not on {claim.page}: mark the block "
                f'that shows the change changed="{claim.note}"'
            )
    return None


def _where(item: pytest.Item) -> str:
    function = getattr(item, "function", None)
    if function is None:
        return item.nodeid
    path = Path(inspect.getsourcefile(function) or item.path)
    line = inspect.getsourcelines(function)[1]
    return f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{line}"


class Refused(Exception):
    """A claim marker that breaks the rules above."""


def _refused(item: pytest.Item, why: str) -> Refused:
    return Refused(f"{_where(item)}: claim check {item.name}: {why}")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    running = Version(versions.torch())
    for item in items:
        try:
            for claim in claims_of(item):
                why = problem(claim)
                if why is not None:
                    raise _refused(item, why)
        except Refused as refused:
            item.stash[REFUSED] = str(refused)
            continue  # no xfail either: a refused claim fails on every release
        # The test fails before the latest release since which one of its claims holds.
        noted = [_notes()[claim.note] for claim in claims_of(item) if claim.note is not None]
        for note in sorted(noted, key=lambda note: Version(note.since))[-1:]:
            if running < Version(note.since):
                item.add_marker(
                    pytest.mark.xfail(
                        strict=True,
                        reason=f"PyTorch {running} is older than {note.since}, the release "
                        f"since which it holds (version note {note.name!r}); if it passes "
                        "here, the note is wrong",
                    )
                )


# First: after pytest's skipping plugin, a test's own xfail mark would make the refusal an
# expected failure.
@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    refused = item.stash.get(REFUSED, None)
    if refused is not None:
        pytest.fail(refused, pytrace=False)
