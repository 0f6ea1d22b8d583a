"""Plots of real runs, in the browser: present, visible, named, with their data, in both schemes.

Screenshots of every plot go to screenshots/plots/ (gitignored), one per scheme, so a
reader can look at what was measured.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest
from axe_playwright_python.sync_playwright import Axe

from coursekit.figures import plots

from .audit_page import SCHEMES, SERIOUS, describe_violations, switch_to_dark
from .conftest import ROOT
from .contrast import TEXT_CONTRAST, contrast

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

# Each page with plots, and how many it has.
PLOTS = {
    "chapters/training-loop/": 1,
    "chapters/chain-rule/": 1,
    "chapters/gradient-accumulation/": 2,
    "chapters/gradients-to-training/": 1,
    "chapters/non-scalar-outputs/": 1,
}
SHOTS = ROOT / "screenshots" / "plots"
GRAPHICS_CONTRAST = 3.0  # WCAG 1.4.11: lines and markers against the page
PHONE = {"width": 390, "height": 844}
SMALLEST_TEXT_PX = 10  # tick labels and axis titles, on a phone
_AXE = Axe()

# Every stroke and fill the plot paints (decorative translucent grid lines aside), with the
# colour behind the figure. Glyphs (text drawn as paths) are measured as text.
PAINT_JS = """
(figure) => {
  const behind = (el) => {
    for (; el; el = el.parentElement) {
      const bg = getComputedStyle(el).backgroundColor;
      if (!/rgba\\(.*, 0\\)$/.test(bg) && bg !== "transparent") return bg;
    }
    return "rgb(255, 255, 255)";
  };
  const background = behind(figure);
  const found = [];
  for (const el of figure.querySelectorAll("svg path, svg use")) {
    if (el.closest("defs")) continue;
    const style = getComputedStyle(el);
    const glyph = /DejaVu/.test(el.getAttribute("href") || "");
    for (const [kind, colour, opacity] of [
      ["stroke", style.stroke, style.strokeOpacity],
      ["fill", style.fill, style.fillOpacity],
    ]) {
      if (colour === "none" || Number(opacity) < 1) continue;
      if (kind === "stroke" && style.strokeWidth === "0px") continue;
      found.push({kind: glyph ? "text" : kind, colour, background});
    }
  }
  return found;
}
"""


@pytest.fixture(params=[(path, scheme) for path in PLOTS for scheme in SCHEMES],
                ids=lambda p: f"{p[0].strip('/').split('/')[-1]}-{p[1]}")  # fmt: skip
def plot_page(
    request: pytest.FixtureRequest, new_context: Callable[..., BrowserContext]
) -> Iterator[tuple[Page, str, str]]:
    path, scheme = request.param
    context = new_context()
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto(path)
    if scheme == "dark":
        switch_to_dark(page)
    yield page, path, scheme
    context.close()


def test_plots_are_present_visible_and_named(plot_page: tuple[Page, str, str]) -> None:
    page, path, scheme = plot_page
    figures = page.locator("article figure.plot-figure")
    assert figures.count() == PLOTS[path], f"{path}: {figures.count()} plots"
    SHOTS.mkdir(parents=True, exist_ok=True)
    for i, figure in enumerate(figures.all()):
        svg = figure.locator(":scope > svg")
        svg.scroll_into_view_if_needed()
        box = svg.bounding_box()
        assert svg.is_visible() and box and box["width"] >= 300 and box["height"] >= 150, box
        assert svg.get_attribute("role") == "img"
        alt = svg.get_attribute("aria-label") or ""
        assert len(alt.split()) >= 10, f"{path} plot {i + 1}: alt text too short: {alt!r}"
        assert figure.locator("figcaption").inner_text().strip()
        name = path.strip("/").split("/")[-1]
        figure.screenshot(path=SHOTS / f"{name}-{i + 1}-{scheme}.png")


def test_data_tables_are_collapsed_and_open_on_click(plot_page: tuple[Page, str, str]) -> None:
    page, path, _ = plot_page
    for figure in page.locator("article figure.plot-figure").all():
        details = figure.locator(":scope > details.plot-data")
        table = details.locator("table").first
        assert not table.is_visible(), f"{path}: the data table should start collapsed"
        details.locator("summary", has_text="Data").click()
        assert table.is_visible()
        rows = table.locator("tbody tr")
        assert rows.count() >= 2
        cells = [c.strip() for c in rows.first.locator("td").all_inner_texts()]
        assert all(re.fullmatch(r"-?[\d.]+(e[-+]\d+)?", c) for c in cells), cells


def test_plots_are_readable_and_axe_clean(plot_page: tuple[Page, str, str]) -> None:
    page, path, scheme = plot_page
    problems: list[str] = []
    for i, figure in enumerate(page.locator("article figure.plot-figure").all()):
        figure.locator(":scope > details.plot-data").evaluate("(d) => { d.open = true; }")
        painted = figure.evaluate(PAINT_JS)
        assert painted, f"{path} plot {i + 1}: nothing painted"
        for paint in painted:
            needed = TEXT_CONTRAST if paint["kind"] == "text" else GRAPHICS_CONTRAST
            ratio = contrast(paint["colour"], paint["background"])
            if ratio < needed:
                problems.append(
                    f"plot {i + 1}: {paint['kind']} {paint['colour']} on "
                    f"{paint['background']}: {ratio:.2f} < {needed}"
                )
    options: dict[str, Any] = {"resultTypes": ["violations"]}
    result = _AXE.run(page, context="article figure.plot-figure", options=options)
    violations = [v for v in result.response["violations"] if v["impact"] in SERIOUS]
    if violations:
        summary = [
            {
                "id": v["id"],
                "impact": v["impact"],
                "help": v["help"],
                "nodes": [(" ".join(map(str, n["target"])), "") for n in v["nodes"]],
            }
            for v in violations
        ]
        problems.append("axe:\n" + describe_violations(summary))
    assert not sorted(set(problems)), f"{path} ({scheme}):\n" + "\n".join(sorted(set(problems)))


@pytest.mark.parametrize("path", list(PLOTS))
def test_plot_text_stays_readable_on_a_phone(
    path: str, new_context: Callable[..., BrowserContext]
) -> None:
    """Text is drawn at font.size SVG units; the CSS scale of the SVG sets its size in px."""
    context = new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(path)
    scales = page.eval_on_selector_all(
        "article figure.plot-figure > svg",
        "(svgs) => svgs.map((s) => s.getBoundingClientRect().width / s.viewBox.baseVal.width)",
    )
    context.close()
    sizes = [round(plots.RC["font.size"] * scale, 1) for scale in scales]
    assert sizes and min(sizes) >= SMALLEST_TEXT_PX, f"{path}: text of {sizes} px at 390 px"
