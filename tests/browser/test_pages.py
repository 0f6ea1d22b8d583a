"""Every page of the built site, in a real browser: offline, accessible, nothing third-party.

Each test runs once per page (the id is the page's URL path). The page is visited once and
the visit's record is shared by these tests; see audit_page.py. The reader's view on a phone
is also checked without JavaScript, from a second, cheap visit with scripts off and the
system's scheme dark (conftest.py, no_js_views; reader_view.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .audit_page import SCHEMES, NoScriptView, PageAudit, describe_violations
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


# --- the reader's view: a phone's width, with JavaScript and without (reader_view.py) ------

MODES = ("js", "no-js")
NoScriptViews = Callable[[str], NoScriptView]


def _without_js(no_js_views: NoScriptViews, page_path: str) -> NoScriptView:
    view = no_js_views(page_path)
    if view.error:
        pytest.fail(f"{page_id(page_path)} without JavaScript: could not check: {view.error}")
    return view


def _on_a_phone(
    page_audits: Audits, no_js_views: NoScriptViews, page_path: str, mode: str
) -> dict[str, Any]:
    if mode == "js":
        return _visit(page_audits, page_path, "phone").phone
    return _without_js(no_js_views, page_path).phone


@pytest.mark.parametrize("mode", MODES)
def test_no_wider_than_a_phone(
    page_audits: Audits, no_js_views: NoScriptViews, page_path: str, mode: str
) -> None:
    width, screen = _on_a_phone(page_audits, no_js_views, page_path, mode)["width"]
    assert width <= screen, (
        f"{page_id(page_path)} ({mode}): {width}px wide on a {screen}px screen: it scrolls sideways"
    )


def test_every_tab_stop_has_a_box(page_audits: Audits, page_path: str) -> None:
    """At desktop size (the phone's own is in test_reads_well_on_a_phone)."""
    stops = _visit(page_audits, page_path, "keyboard").empty_stops
    assert not stops, (
        f"{page_id(page_path)}: Tab lands on a control without a box (nothing to see):\n"
        + _bullets(stops)
    )


PHONE_PROBLEMS = {
    "empty_stops": "Tab lands on a control without a box",
    "broken_code": "inline code in a table broken inside a name (line end shown as /)",
    "lone_punctuation": "punctuation on another line than its inline maths",
    "lone_permalinks": "a heading's hidden permalink takes a line of its own",
    "hidden_blanks": "a quiz blank outside its code box's visible part",
}


def _quiz_instructions(quiz: dict[str, Any] | None, mode: str) -> list[str]:
    """The quiz tells the reader to press Check answer exactly when that button is shown,
    and a reader without it is told what to do instead."""
    if not quiz:
        return []
    problems = []
    if quiz["says_check_answer"] and not quiz["check_buttons"]:
        problems.append("the page says to press Check answer, and no such button is shown")
    if mode == "js" and not quiz["says_check_answer"]:
        problems.append("the page does not say how to check an answer")
    if not quiz["check_buttons"] and not quiz["noscript_line"]:
        problems.append("no Check answer button, and no line saying what to do without it")
    return problems


@pytest.mark.parametrize("mode", MODES)
def test_reads_well_on_a_phone(
    page_audits: Audits, no_js_views: NoScriptViews, page_path: str, mode: str
) -> None:
    view = _on_a_phone(page_audits, no_js_views, page_path, mode)
    problems = [f"{why}: {item}" for key, why in PHONE_PROBLEMS.items() for item in view[key]]
    problems += [f"quiz: {p}" for p in _quiz_instructions(view["quiz"], mode)]
    assert not problems, f"{page_id(page_path)} ({mode}, 390px):\n{_bullets(problems)}"


def test_a_dark_system_gets_the_dark_scheme_without_javascript(
    page_audits: Audits, no_js_views: NoScriptViews, page_path: str
) -> None:
    """Without JavaScript, a system set to dark shows the very colours the slate scheme
    shows with JavaScript (coursekit/content/dark_without_js.py: overrides/main.html's
    <noscript> stylesheet, and the copies in a page's own styles): so axe-core's verdict
    on the slate scheme holds for it too (axe itself needs scripts to run). Code and
    maths, which axe leaves to this file, are measured again."""
    slate = _visit(page_audits, page_path, "dark", "slate").slate
    view = _without_js(no_js_views, page_path)
    assert not view.failed_requests, f"{page_id(page_path)} without JavaScript:\n" + _bullets(
        view.failed_requests
    )
    body, dark = slate["body"], view.scheme["body"]
    differ = [
        f"<body> {name}: {dark.get(name)!r}, the slate scheme has {body.get(name)!r}"
        for name in sorted(body.keys() | dark.keys())
        if body.get(name) != dark.get(name)
    ]
    # Content: every colour an element shows without JavaScript, an element of its kind
    # shows in the slate scheme (elements only one of the two has are not compared).
    differ += [
        f"<{kind}>: {colours} (text / background / fill / stroke); the slate scheme has "
        + " or ".join(slate["content"][kind])
        for kind, seen in sorted(view.scheme["content"].items())
        if kind in slate["content"]
        for colours in seen
        if colours not in slate["content"][kind]
    ]
    assert not differ, (
        f"{page_id(page_path)}, dark system without JavaScript, colours unlike the slate "
        f"scheme's ({len(differ)}):\n" + _bullets(differ[:12])
    )
    faint = [
        f"{e['kind']} {e['text']!r}: {e['color']} on {e['background']}, "
        f"{contrast(e['color'], e['background']):.2f} < {_required(e)}"
        for e in view.colours
        if contrast(e["color"], e["background"]) < _required(e)
    ]
    assert not faint, (
        f"{page_id(page_path)} (dark, without JavaScript): text too faint:\n" + _bullets(faint)
    )
