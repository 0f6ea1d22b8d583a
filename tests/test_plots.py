"""Plots of real runs (coursekit/figures/plots.py): deterministic, accessible SVG that
follows the colour scheme."""

from __future__ import annotations

import colorsys
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from importlib.resources import files
from pathlib import Path

import pytest
import yaml
from browser.contrast import contrast  # tests/browser/contrast.py: one WCAG formula

from coursekit.figures import plots, svg_cleanup
from coursekit.figures.plots import PlotError, Series

ROOT = Path(__file__).resolve().parent.parent
PLOTS_CSS = ROOT / "docs" / "assets" / "stylesheets" / "plots.css"
SVG = "{http://www.w3.org/2000/svg}"
GRAPHICS_CONTRAST = 3.0  # WCAG 1.4.11: lines and markers against the background

# A plot like the chapters' own: two series on shared x, and a curve, line and point.
STEPS = list(range(1, 11))
LOSSES = [64 * 0.81**k for k in range(10)]


def two_series(**overrides: object) -> str:
    arguments: dict[str, object] = {
        "x_label": "step",
        "y_label": "loss",
        "x_integer": True,
        "alt": "Two loss curves that coincide.",
        "caption": "By hand and with SGD.",
        **overrides,
    }
    return plots.line_plot(
        [Series("by hand", STEPS, LOSSES), Series("SGD", STEPS, LOSSES, style="markers")],
        **arguments,  # type: ignore[arg-type]
    )


def tangent() -> str:
    xs = [0.5 * i for i in range(9)]
    return plots.line_plot(
        [
            Series("curve", xs, [(3 * x + 4) ** 2 for x in xs]),
            Series("tangent", [1.0, 3.0], [40.0, 160.0], style="dashed"),
            Series("x = 2", [2.0], [100.0], style="point"),
        ],
        x_label="x",
        y_label="y",
        alt="A parabola and its tangent at x = 2.",
        caption="The tangent line.",
    )


def parse(figure: str) -> ET.Element:
    return ET.fromstring(figure)


# --- determinism --------------------------------------------------------------------------


def test_the_same_plot_gives_the_same_bytes() -> None:
    assert two_series() == two_series()


def test_another_process_gives_the_same_bytes() -> None:
    """No date, random id or hash-seeded order: a fresh interpreter draws the same bytes."""
    code = (
        "import sys; sys.path.insert(0, 'tests'); import test_plots; "
        "sys.stdout.write(test_plots.two_series())"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == two_series()


def test_no_metadata_date_or_prolog() -> None:
    svg = two_series()
    for junk in ("<?xml", "<!DOCTYPE", "<metadata", "<dc:", "Matplotlib", "<!--"):
        assert junk not in svg, junk


def test_references_use_xlink_href() -> None:
    """Material's instant navigation (off in mkdocs.yml, but one line away) assigns to
    the .href of every element matching [href]; on an SVG <use> that throws. xlink:href
    is not matched by [href]."""
    svg = two_series()
    assert "xlink:href=" in svg
    assert not re.search(r"<use [^>]*(?<!xlink:)href=", svg)


# --- what a reader gets ---------------------------------------------------------------------


def test_figure_has_alt_text_caption_and_collapsed_data() -> None:
    figure = parse(two_series())
    assert figure.tag == "figure" and figure.get("class") == "plot-figure"
    svg = figure.find(f"{SVG}svg")
    assert svg is not None
    assert svg.get("role") == "img"
    assert svg.get("aria-label") == "Two loss curves that coincide."
    assert figure.findtext("figcaption") == "By hand and with SGD."
    details = figure.find("details")
    assert details is not None and details.get("open") is None  # collapsed
    assert details.findtext("summary") == "Data"
    assert details.find("table") is not None


@pytest.mark.parametrize("alt", ["", "   ", None])
def test_a_plot_without_alt_text_is_refused(alt: str | None) -> None:
    with pytest.raises(PlotError, match="alt"):
        two_series(alt=alt)


def test_mismatched_data_is_refused() -> None:
    with pytest.raises(PlotError, match="3 x values and 2 y values"):
        plots.line_plot(
            [Series("bad", [1, 2, 3], [1, 2])], x_label="x", y_label="y", alt="a", caption="c"
        )


def _tables(figure: str) -> list[list[list[str]]]:
    return [
        [[cell.text or "" for cell in row] for row in table.iter("tr")]
        for table in parse(figure).iter("table")
    ]


def test_table_holds_the_plotted_numbers() -> None:
    (table,) = _tables(two_series())  # shared x: one table, one column per series
    assert table[0] == ["step", "by hand", "SGD"]
    shown = [float(v) for row in table[1:] for v in row]
    plotted = [v for s, loss in zip(STEPS, LOSSES, strict=True) for v in (s, loss, loss)]
    assert shown == pytest.approx(plotted, rel=5e-4)  # 4 significant digits


def test_series_with_their_own_x_get_their_own_table() -> None:
    curve, line, point = _tables(tangent())
    assert curve[0] == ["x", "curve"] and len(curve) == 1 + 9
    assert curve[5] == ["2", "100"]
    assert line == [["x", "tangent"], ["1", "40"], ["3", "160"]]
    assert point == [["x", "x = 2"], ["2", "100"]]


# --- colours and markup ---------------------------------------------------------------------


def test_every_colour_follows_the_scheme() -> None:
    """Ink is currentColor and series use --plot-N (fallback: the light colour); no fill
    paints a background; no other colour is left in the SVG."""
    svg = tangent()
    assert "currentColor" in svg
    for i in (1, 2, 3):
        assert f"var(--plot-{i}, {plots.LIGHT[i - 1]})" in svg
    without_fallbacks = re.sub(r"var\(--plot-\d, #[0-9a-f]{6}\)", "var()", svg)
    assert not re.search(r"#[0-9a-fA-F]{3,8}\b|rgba?\(|\bwhite\b|\bblack\b", without_fallbacks)
    assert 'width="100%"' not in svg and "<rect" not in svg.split("<clipPath")[0]


def test_colours_that_are_not_rewritten_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plots, "RC", {**plots.RC, "grid.color": "#777777"})
    with pytest.raises(PlotError, match="#777777"):
        two_series()


def _rgb(colour: str) -> str:
    """#rrggbb as the rgb() text the contrast helper reads."""
    return "rgb({}, {}, {})".format(*(int(colour[i : i + 2], 16) for i in (1, 3, 5)))


def _material_backgrounds() -> dict[str, str]:
    """The light and slate page backgrounds, read from the installed Material theme."""
    assets = files("material") / "templates" / "assets" / "stylesheets"
    main = next(f for f in assets.iterdir() if re.fullmatch(r"main\.\w+\.min\.css", f.name))
    palette = next(f for f in assets.iterdir() if re.fullmatch(r"palette\.\w+\.min\.css", f.name))
    light = re.search(r"--md-default-bg-color:(#[0-9a-f]+)", main.read_text())
    hue = re.search(r"--md-hue:(\d+)deg", main.read_text())
    slate = re.search(
        r"scheme=slate\]\{[^}]*--md-default-bg-color:hsla\(var\(--md-hue\), ?(\d+)%, ?(\d+)%",
        palette.read_text(),
    )
    assert light and hue and slate, "Material's background colours were not found"
    white = "#ffffff" if light[1] == "#fff" else light[1]
    dark = colorsys.hls_to_rgb(int(hue[1]) / 360, int(slate[2]) / 100, int(slate[1]) / 100)
    return {"light": _rgb(white), "slate": "rgb({}, {}, {})".format(*(255 * c for c in dark))}


def _css_variables(css: str, selector: str) -> dict[str, str]:
    block = re.search(re.escape(selector) + r"\s*\{([^}]*)\}", css)
    assert block, f"plots.css has no rule for {selector}"
    return dict(re.findall(r"(--plot-\d+):\s*(#[0-9a-fA-F]{6})", block[1]))


def test_series_colours_keep_contrast_in_both_schemes() -> None:
    css = PLOTS_CSS.read_text(encoding="utf-8")
    light = _css_variables(css, ".md-typeset .plot-figure")
    slate = _css_variables(css, '[data-md-color-scheme="slate"] .md-typeset .plot-figure')
    # The SVG's fallbacks are the light scheme's colours, one per possible series.
    assert tuple(light.values()) == plots.LIGHT
    assert light.keys() == slate.keys() and len(light) == len(plots.LIGHT)
    backgrounds = _material_backgrounds()
    poor = [
        f"{name} {colour} on {scheme}: {ratio:.2f}"
        for scheme, colours in (("light", light), ("slate", slate))
        for name, colour in colours.items()
        if (ratio := contrast(_rgb(colour), backgrounds[scheme])) < GRAPHICS_CONTRAST
    ]
    assert not poor, f"series colours below {GRAPHICS_CONTRAST}:1: {poor}"


def test_the_site_loads_plots_css() -> None:
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    assert "assets/stylesheets/plots.css" in config["extra_css"]


def test_ids_are_unique_to_each_plot_and_every_reference_resolves() -> None:
    found = []
    for figure in (two_series(), tangent()):
        ids = re.findall(r' id="([^"]+)"', figure)
        refs = set(re.findall(r'(?:href="#|url\(#)([^")]+)', figure))
        assert len(ids) == len(set(ids))
        assert refs <= set(ids), f"dangling references: {refs - set(ids)}"
        found.append(set(ids))
    assert not found[0] & found[1], "two plots on one page would share ids"


def test_no_external_resource_script_or_page_wide_style() -> None:
    svg = tangent()
    assert "<script" not in svg and "@import" not in svg
    assert "<style" not in svg  # an inline SVG's <style> would apply to the whole page
    assert set(re.findall(r"https?://[^\"' ]+", svg)) == {
        "http://www.w3.org/2000/svg",
        "http://www.w3.org/1999/xlink",
    }


def test_svg_stays_small() -> None:
    """Text as paths costs bytes; the thinning (2 decimals, compact glyphs) keeps it so."""
    svg = tangent()
    svg = svg[svg.index("<svg") : svg.index("</svg>")]
    assert len(svg) < 12_000, len(svg)


def test_glyph_paths_are_compacted_without_drift() -> None:
    """Relative glyph coordinates are rounded on absolute positions: no error adds up."""
    data = " ".join(f"L {1000 + 7 * i} {2000 - 3 * i}" for i in range(200))
    compact = svg_cleanup._glyph_path("M 1000 2000 " + data + " z", 1 / 64)
    numbers = [float(n) for n in re.findall(r"-?(?:\d+\.?\d*|\.\d+)", compact)]
    x, y = sum(numbers[0::2]), sum(numbers[1::2])  # the start, then relative steps
    assert (x, y) == pytest.approx(((1000 + 7 * 199) / 64, (2000 - 3 * 199) / 64), abs=0.051)


def test_a_logarithmic_axis_for_values_over_many_orders() -> None:
    """For e.g. per-layer gradient norms (sigmoid vs ReLU): y_log=True, integer layers."""
    layers = list(range(1, 9))
    figure = plots.line_plot(
        [
            Series("sigmoid", layers, [0.25**k for k in range(8, 0, -1)], style="line+markers"),
            Series("ReLU", layers, [0.5] * 8, style="dashed"),
        ],
        x_label="layer",
        y_label="gradient norm",
        x_integer=True,
        y_log=True,
        alt="Gradient norms per layer.",
        caption="Log scale.",
    )
    assert parse(figure).find(f"{SVG}svg") is not None
    (table,) = _tables(figure)
    assert table[1] == ["1", "1.526e-05", "0.5"]


def test_the_table_keeps_four_significant_digits() -> None:
    """The digits the drift check compares: further ones change with the CPU and the BLAS."""
    figure = plots.line_plot(
        [Series("loss", [1, 2, 3], [115.5625, 0.1234567, 2.0])],
        x_label="step",
        y_label="loss",
        alt="Three losses.",
        caption="c",
    )
    (table,) = _tables(figure)
    assert table[1:] == [["1", "115.6"], ["2", "0.1235"], ["3", "2"]]


def test_the_same_data_with_other_words_gets_other_ids() -> None:
    """The id prefix hashes the alt text and caption too, not only the drawing."""
    first, second = two_series(), two_series(alt="The same two curves, described otherwise.")
    assert set(re.findall(r' id="([^"]+)"', first)).isdisjoint(re.findall(r' id="([^"]+)"', second))


def test_no_empty_glyph_and_no_long_numbers() -> None:
    """The space glyph draws nothing; clip rectangles and dashes use two decimals."""
    svg = tangent()
    assert not re.search(r"<path (?![^>]*\bd=)[^>]*>", svg), "a path without outline"
    assert not re.search(r'(?:width|height|x|y)="-?\d+\.\d{3,}"', svg)
    assert not re.search(r"stroke-dasharray: [^;\"]*\d\.\d{3,}", svg)


def test_a_dashed_line_ends_on_a_whole_dash() -> None:
    """The pattern is stretched to the line's length: no stray dot at its end."""
    svg = tangent()
    dashed = re.search(r'<path d="M([-\d.]+) ([-\d.]+)L([-\d.]+) ([-\d.]+)"[^>]*?'
                       r"stroke-dasharray: ([\d.]+),([\d.]+)", svg)  # fmt: skip
    assert dashed, "no dashed two-point line in the tangent plot"
    x1, y1, x2, y2, on, off = map(float, dashed.groups())
    periods = (((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5 - on) / (on + off)
    assert periods == pytest.approx(round(periods), abs=0.01) and round(periods) >= 1
