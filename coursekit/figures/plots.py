"""Plots of real runs, drawn at build time by matplotlib as inline SVG (no JavaScript).

A page runs its example (a snippet region, with its printed output), then an
``html="on"`` block prints the figure::

    from coursekit.figures import plots

    print(plots.line_plot(
        [plots.Series("cleared", steps, cleared), plots.Series("never cleared", steps, kept)],
        x_label="step", y_label="loss", alt="...", caption="...",
    ))

The figure is a ``<figure class="plot-figure">`` holding

* the SVG, with ``role="img"`` and ``aria-label`` set to ``alt`` (on the ``<svg>``, not
  on the ``<figure>``: ``role="img"`` hides its children from screen readers, and the
  data table must stay readable);
* the plotted numbers in a collapsed ``<details><summary>Data</summary><table>``;
* a ``<figcaption>``, last (HTML allows a figure's caption only first or last).

Colours: matplotlib draws with placeholder colours, which are then rewritten to
``currentColor`` (axes, ticks, labels: the page's text colour) and to CSS custom
properties ``--plot-1`` ... (the series), with a light-scheme fallback. plots.css gives
the slate scheme its own values, so a plot follows Material's colour toggle. Nothing
is filled behind the plot: the page's background shows through. Series differ in line
style and marker too, never in colour alone.

Deterministic: the same data gives the same bytes in every process (fixed
``svg.hashsalt``, no date or other metadata, ids derived from the SVG itself).
Text is drawn as paths (``svg.fonttype: path``) in matplotlib's own DejaVu Sans, so no
font is requested and no system font can change the drawing.
"""

from __future__ import annotations

import html
import io
import itertools
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from coursekit.errors import CourseError
from coursekit.figures import svg_cleanup

Style = Literal["line", "dashed", "markers", "line+markers", "point"]

# Placeholder colours, rewritten after rendering. Nothing else in a plot uses them.
_INK = "#010101"
_SERIES = ("#020202", "#030303", "#040404", "#050505")
# Light-scheme colours (plots.css repeats them as --plot-N and sets the slate ones).
# Each keeps 3:1 or more against white, WCAG's minimum for graphics.
LIGHT = ("#b93c0a", "#3949ab", "#00796b", "#6a1b9a")
MARKERS = ("o", "s", "^", "D")
# 360 × 230 SVG units, scaled to the column by CSS (at most 27rem): on a 390 px phone
# that is close to 1:1, so text keeps its 11.5 units (px) instead of shrinking.
WIDTH_IN, HEIGHT_IN = 5.0, 3.2
# Significant digits in the data table: 115.5625 becomes 115.6. The last digits of a
# float change with the CPU and the BLAS; four is what the drift check compares.
DIGITS = 4
DASH = (5.0, 3.0)  # on, off, in line widths; stretched so a dashed line ends on a dash
NICE_STEPS = (1, 2, 2.5, 5, 10)  # tick spacings: 0, 5, 10 or 0, 25, 50, never 0.6 or 3

# Keys typed Any: matplotlib types rc_context() with a Literal of every rcParam name.
RC: Mapping[Any, Any] = MappingProxyType(
    {
        "svg.hashsalt": "coursekit-plots",  # clip-path and marker ids from a fixed salt
        "svg.fonttype": "path",  # glyphs as paths: no font file, no web font request
        "font.family": "DejaVu Sans",  # matplotlib's bundled font, the same on every machine
        "font.size": 11.5,  # SVG units; tests/browser/test_plots.py checks the px on a phone
        "axes.linewidth": 0.8,
        "axes.edgecolor": _INK,
        "axes.labelcolor": _INK,
        "axes.facecolor": "none",
        "figure.facecolor": "none",
        "savefig.facecolor": "none",
        "savefig.edgecolor": "none",
        "text.color": _INK,
        "xtick.color": _INK,
        "ytick.color": _INK,
        "grid.color": _INK,
        "grid.alpha": 0.15,
        "grid.linewidth": 0.6,
        "legend.frameon": False,
    }
)


class PlotError(CourseError, ValueError):
    """A plot that cannot be drawn as asked (no alt text, mismatched data)."""


@dataclass(frozen=True)
class Series:
    """One curve: ``label`` (shown in the legend and as the table's column), x and y.

    ``style``: "line", "dashed", "markers", "line+markers" or "point" (one marked point,
    no legend line, labelled below it on ``label_side``). Two series of one plot should
    differ in style when they may overlap, so a reader sees both (for example "line" under
    "markers").
    """

    label: str
    x: Sequence[float]
    y: Sequence[float]
    style: Style = "line"
    # "point" only: which side, below the point, its label goes. Pick the side away
    # from a line through the point (below left of a line that falls to the right).
    label_side: Literal["right", "left"] = "right"


def line_plot(
    series: Sequence[Series],
    *,
    alt: str,
    caption: str,
    x_label: str,
    y_label: str,
    x_integer: bool = False,
    y_log: bool = False,
    number_format: Callable[[float], str] | None = None,
) -> str:
    """An HTML ``<figure>``: the SVG plot, its caption and its data table.

    ``alt`` says what the plot shows (required); ``x_integer`` puts ticks on whole
    numbers only (steps, epochs); ``y_log`` uses a logarithmic y axis.
    ``number_format`` writes the table's numbers (default: 4 significant digits).
    """
    alt = " ".join(str(alt or "").split())
    if not alt:
        raise PlotError('a plot needs alt="..." text that describes what it shows')
    if not series:
        raise PlotError("a plot needs at least one series")
    for one in series:
        if len(one.x) != len(one.y) or not one.x:
            raise PlotError(
                f"series {one.label!r}: {len(one.x)} x values and {len(one.y)} y values"
            )
    if len(series) > len(_SERIES):
        raise PlotError(f"at most {len(_SERIES)} series in one plot")
    svg = render_svg(
        series,
        x_label=x_label,
        y_label=y_label,
        x_integer=x_integer,
        y_log=y_log,
        id_salt=f"{alt}\0{caption}",
    )
    svg = svg.replace("<svg ", f'<svg role="img" aria-label="{html.escape(alt)}" ', 1)
    table = data_table(series, x_label=x_label, number_format=number_format or _number)
    # The caption is the figure's last child: HTML allows it only first or last.
    return (
        f'<figure class="plot-figure">{svg}'
        f'<details class="plot-data"><summary>Data</summary>{table}</details>'
        f"<figcaption>{html.escape(caption)}</figcaption></figure>"
    )


# ---------------------------------------------------------------------------
# Drawing


def render_svg(
    series: Sequence[Series],
    *,
    x_label: str,
    y_label: str,
    x_integer: bool = False,
    y_log: bool = False,
    id_salt: str = "",
) -> str:
    """The plot as scheme-following SVG markup (no XML prolog, metadata or fixed size).

    ``id_salt`` goes into the hash its ids are made from (line_plot passes the alt text
    and caption), so two plots that draw the same data still get ids of their own.
    """
    with matplotlib.rc_context(dict(RC)):
        # A bare Figure: no pyplot, so no global figure list and no GUI backend.
        figure = Figure(figsize=(WIDTH_IN, HEIGHT_IN), layout="constrained")
        axes = figure.add_subplot()
        # Nothing is filled behind the plot: the page's background shows through.
        figure.patch.set_visible(False)
        axes.patch.set_visible(False)
        for i, one in enumerate(series):
            _draw(axes, one, _SERIES[i], MARKERS[i])
        axes.set_xlabel(x_label)
        axes.set_ylabel(y_label)
        if y_log:
            axes.set_yscale("log")
        else:
            axes.yaxis.set_major_locator(MaxNLocator(nbins=5, steps=NICE_STEPS))
        axes.xaxis.set_major_locator(MaxNLocator(nbins=6, steps=NICE_STEPS, integer=x_integer))
        axes.grid(True, axis="y")
        axes.spines[["top", "right"]].set_visible(False)
        named = [one for one in series if one.style != "point"]
        if len(named) > 1:
            # Above the axes, never over the data.
            figure.legend(loc="outside upper center", ncols=len(named), handlelength=2.6)
        figure.draw_without_rendering()  # the final layout, to fit the dashes to it
        for line in axes.get_lines():
            if line.get_gid() == "dashed":
                _fit_dashes(line)
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    svg = _scheme_colours(buffer.getvalue())
    try:
        svg = svg_cleanup.clean_matplotlib(svg, id_salt)
    except ValueError as error:  # not the SVG this matplotlib writes
        raise PlotError(str(error)) from None
    # Natural size from the viewBox; plots.css scales it to the column width.
    sized = svg_cleanup.natural_size(svg)
    if sized is None:
        raise PlotError("unexpected SVG from matplotlib (no viewBox)")
    if svg_cleanup.external_reference(sized):
        raise PlotError("the SVG refers to an external resource")
    return svg_cleanup.well_formed(sized)  # refuse to publish malformed markup


def _draw(axes: Axes, one: Series, colour: str, marker: str) -> None:
    x, y = [float(v) for v in one.x], [float(v) for v in one.y]
    common: dict[str, Any] = {"color": colour, "label": one.label, "clip_on": False}
    if one.style == "line":
        axes.plot(x, y, linewidth=2, **common)
    elif one.style == "dashed":
        axes.plot(x, y, linewidth=2, linestyle=(0, DASH), gid="dashed", **common)
    elif one.style == "markers":
        # Open circles: the line of another series stays visible through them.
        common.update(marker="o", markersize=8, fillstyle="none", markeredgewidth=1.6)
        axes.plot(x, y, linestyle="none", **common)
    elif one.style == "line+markers":
        axes.plot(x, y, linewidth=1.6, marker=marker, markersize=4.5, **common)
    elif one.style == "point":
        # Labelled beside the point itself, not in the legend.
        common["label"] = "_nolegend_"
        axes.plot(x, y, linestyle="none", marker="o", markersize=7, zorder=5, **common)
        right = one.label_side == "right"
        for px, py in zip(x, y, strict=True):
            axes.annotate(
                one.label,
                (px, py),
                xytext=(9, -16) if right else (-9, -16),
                textcoords="offset points",
                ha="left" if right else "right",
            )
    else:
        raise PlotError(f"series {one.label!r}: unknown style {one.style!r}")


def _fit_dashes(line: Line2D) -> None:
    """Stretch the dash pattern so the line ends on a whole dash, never on a stray dot."""
    points = line.get_transform().transform(line.get_xydata())
    length = sum(math.dist(a, b) for a, b in itertools.pairwise(points)) * 72 / line.figure.dpi
    on, off = (d * line.get_linewidth() for d in DASH)  # points, like the length
    periods = max(round((length - on) / (on + off)), 1)
    stretch = length / (periods * (on + off) + on)
    line.set_linestyle((0, (DASH[0] * stretch, DASH[1] * stretch)))


def _scheme_colours(svg: str) -> str:
    """The placeholder colours as the page's: currentColor and --plot-N (with a fallback)."""
    # Every colour must be a placeholder: any other would ignore the colour scheme.
    leftover = set(re.findall(r"#[0-9a-fA-F]{3,8}\b|\brgba?\(", svg)) - {_INK, *_SERIES}
    if leftover:
        raise PlotError(f"colours not rewritten for the colour schemes: {sorted(leftover)}")
    svg = svg.replace(_INK, "currentColor")
    for i, (placeholder, light) in enumerate(zip(_SERIES, LIGHT, strict=True), start=1):
        svg = svg.replace(placeholder, f"var(--plot-{i}, {light})")
    return svg


# ---------------------------------------------------------------------------
# The data table


def _number(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    text = f"{value:.{DIGITS}g}"
    return "0" if text == "-0" else text


def data_table(
    series: Sequence[Series], *, x_label: str, number_format: Callable[[float], str] = _number
) -> str:
    """The plotted numbers: one table per group of series that share their x values."""
    groups: list[list[Series]] = []
    for one in series:
        for group in groups:
            if list(map(float, group[0].x)) == list(map(float, one.x)):
                group.append(one)
                break
        else:
            groups.append([one])
    tables = []
    for group in groups:
        head = "".join(
            f'<th scope="col">{html.escape(name)}</th>'
            for name in [x_label, *(one.label for one in group)]
        )
        rows = "".join(
            "<tr>"
            + "".join(
                f"<td>{number_format(float(v))}</td>"
                for v in [group[0].x[i], *(one.y[i] for one in group)]
            )
            + "</tr>"
            for i in range(len(group[0].x))
        )
        tables.append(f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
    return "".join(tables)
