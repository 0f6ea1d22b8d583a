"""Maths always renders: inline $...$ becomes MathML, also wrapped over a line break, and
a page that would still show TeX as text is found (coursekit/content/raw_tex.py; the
build refuses such a page: tests/test_bad_input.py, case raw-tex)."""

from __future__ import annotations

import markdown
import pytest

from coursekit.content.raw_tex import raw_tex, source_line


def _html(text: str) -> str:
    return markdown.Markdown(extensions=["coursekit.content.mathml"]).convert(text)


def test_a_formula_wrapped_over_a_line_break_renders() -> None:
    page = _html("Then $u^{\\top} u = \\sum_i u_i^2 -\n\\bigl(\\sum_i u_i\\bigr)^2$ is a variance.")
    assert page.count("<math") == 1
    assert 'alttext="u^{\\top} u = \\sum_i u_i^2 - \\bigl(\\sum_i u_i\\bigr)^2"' in page
    assert raw_tex(page) == []


@pytest.mark.parametrize(
    "text",
    [
        "It costs $5 and\n$10 a month.",  # a digit after the closing $: never maths
        "- a $x\n\n  y$ list item",  # no maths over a blank line
    ],
)
def test_dollars_that_are_not_maths_stay_text(text: str) -> None:
    assert "<math" not in _html(text)


def test_raw_tex_is_found_in_prose_only() -> None:
    prose = "<p>A formula: $\\frac{a}{b}$, and x_{i} here.</p>"
    assert raw_tex(prose) == ["$\\frac{a}{b}$", "_{"]
    kept = (
        "<p><code>$\\frac{a}{b}$</code></p><pre>\\sum_i</pre>"
        '<math alttext="\\frac{a}{b}"><mi>a</mi></math><script>"$\\alpha$"</script>'
        "<p>It costs $5 and $10.</p>"
    )
    assert raw_tex(kept) == []


def test_a_tex_command_alone_is_found() -> None:
    assert raw_tex("<p>the sum \\sum_i p_i</p>") == ["\\sum"]


def test_the_source_line_of_what_is_shown() -> None:
    source = "# Page\n\ntext\n<div>$\\frac{a}{b}$</div>\n"
    assert source_line(source, "$\\frac{a}{b}$") == 4
    assert source_line(source, "\\nothing here") is None
