"""Every page of the built site, in a real browser: offline, accessible, nothing third-party.

Each test runs once per page (the id is the page's URL path). The page is visited once and
the visit's record is shared by these tests; see audit_page.py.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .audit_page import SCHEMES, PageAudit, describe_violations
from .conftest import page_id, site_pages
from .contrast import contrast

Audits = Callable[[str], PageAudit]


def _bullets(items: list[str]) -> str:
    return "\n".join(f"- {item}" for item in items)


def _visit(page_audits: Audits, page_path: str, *steps: str) -> PageAudit:
    audit = page_audits(page_path)
    broken = {step: audit.errors[step] for step in ("load", *steps) if step in audit.errors}
    if broken:
        pytest.fail(f"{page_id(page_path)}: could not check: {broken}", pytrace=False)
    return audit


def test_every_built_page_is_covered(site_dir: Path) -> None:
    """The pages the tests visit are exactly the pages the build wrote."""
    built = {
        p.relative_to(site_dir).as_posix().removesuffix("index.html")
        for p in site_dir.rglob("*.html")
        if p.name == "index.html" or p.parent == site_dir
    }
    tested = set(site_pages())
    assert built == tested, (
        f"built but not visited: {sorted(built - tested)}; "
        f"visited but not built: {sorted(tested - built)}"
    )


def test_loads_without_errors(page_audits: Audits, page_path: str) -> None:
    audit = _visit(page_audits, page_path)
    problems = [f"console: {e}" for e in audit.console_errors]
    problems += [f"request failed: {r}" for r in audit.failed_requests]
    assert not problems, f"{page_id(page_path)}:\n{_bullets(problems)}"


def test_no_third_party_request(page_audits: Audits, page_path: str) -> None:
    audit = _visit(page_audits, page_path)
    assert not audit.foreign_requests, (
        f"{page_id(page_path)} requested (and the test blocked) URLs outside the site:\n"
        + _bullets(sorted(set(audit.foreign_requests)))
    )


def _media_faults(item: dict[str, Any]) -> list[str]:
    faults = []
    if not item["loaded"]:
        faults.append("did not load")
    if not item["visible"]:
        width, height = item["size"]
        faults.append(f"is not visible (rendered {width}×{height})")
    if not item["name"]:
        faults.append("has no alt text (img alt, or svg role=img with aria-label or title)")
    return faults


def test_images_and_diagrams_load_with_alt_text(page_audits: Audits, page_path: str) -> None:
    audit = _visit(page_audits, page_path, "media")
    problems = [
        f"{item['what']} " + "; ".join(faults)
        for item in audit.media
        if (faults := _media_faults(item))
    ]
    assert not problems, f"{page_id(page_path)}:\n{_bullets(problems)}"


def test_no_unrendered_maths(page_audits: Audits, page_path: str) -> None:
    audit = _visit(page_audits, page_path, "maths")
    assert not audit.raw_tex, (
        f"{page_id(page_path)}: TeX shown as text instead of maths (see CONTRIBUTING.md, "
        f"Maths):\n" + _bullets(audit.raw_tex)
    )


def test_diagram_labels_fit_their_shapes(page_audits: Audits, page_path: str) -> None:
    """D2 sizes shapes in its own font; the page's font draws the labels
    (coursekit/figures/d2.py)."""
    labels = _visit(page_audits, page_path, "labels").labels
    if labels["diagrams"]:
        assert labels["labels"], f"{page_id(page_path)}: no diagram labels found to check"
    assert not labels["overflowing"], (
        f"{page_id(page_path)}: diagram labels outside their shapes:\n"
        + _bullets(labels["overflowing"])
    )


def test_code_blocks_have_a_working_copy_button(page_audits: Audits, page_path: str) -> None:
    audit = _visit(page_audits, page_path, "copy")
    assert not audit.code_blocks_without_button, (
        f"{page_id(page_path)}: code blocks without a copy button:\n"
        + _bullets(audit.code_blocks_without_button)
    )
    if audit.copied is None:
        return  # no code on this page
    code, clipboard = audit.copied
    assert clipboard == code, (
        f"{page_id(page_path)}: the copy button put {clipboard!r} on the clipboard, "
        f"the block shows {code!r}"
    )


@pytest.mark.parametrize("scheme", SCHEMES)
def test_axe_finds_no_serious_violation(page_audits: Audits, page_path: str, scheme: str) -> None:
    step = "dark" if scheme == "dark" else "axe-light"
    audit = _visit(page_audits, page_path, step, f"axe-{scheme}")
    violations = audit.axe[scheme]
    assert not violations, (
        f"{page_id(page_path)} ({scheme} scheme): axe-core found serious or critical "
        f"violations:\n{describe_violations(violations)}"
    )


# WCAG AA: 4.5 for normal text, 3 for large text (24 px, or 18.66 px when bold).
def _required(entry: dict[str, Any]) -> float:
    large = entry["px"] >= 24 or (entry["bold"] and entry["px"] >= 18.66)
    return 3.0 if large else 4.5


@pytest.mark.parametrize("scheme", SCHEMES)
def test_code_and_maths_keep_their_contrast(
    page_audits: Audits, page_path: str, scheme: str
) -> None:
    """The text axe's color-contrast rule leaves to this test (audit_page.OWN_CONTRAST)."""
    step = "dark" if scheme == "dark" else "axe-light"
    audit = _visit(page_audits, page_path, step, f"axe-{scheme}")
    faint = [
        f"{e['kind']} {e['text']!r}: {e['color']} on {e['background']}, "
        f"{contrast(e['color'], e['background']):.2f} < {_required(e)}"
        for e in audit.colours[scheme]
        if contrast(e["color"], e["background"]) < _required(e)
    ]
    assert not faint, f"{page_id(page_path)} ({scheme} scheme): text too faint:\n" + _bullets(faint)
