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

import hashlib
import html
import io
import itertools
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

_SVG_NS = "http://www.w3.org/2000/svg"
# Once, at import: ElementTree writes these prefixes back when it serialises a plot.
ET.register_namespace("", _SVG_NS)
ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")

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


class PlotError(ValueError):
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
    return _postprocess(buffer.getvalue(), id_salt)


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


_NUMBER = re.compile(r"-?\d+\.\d{3,}")


def _postprocess(svg: str, id_salt: str = "") -> str:
    """Colours to CSS, ids unique to this plot, coordinates shortened, junk removed."""
    svg = svg[svg.index("<svg ") :]  # drop the XML prolog and DOCTYPE
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.S)
    # matplotlib's <style> says "*{stroke-linejoin: round}": inline, it would style the
    # whole page. The same default, inherited, from the root element instead.
    svg, found = re.subn(r"<defs>\s*<style[^>]*>[^<]*</style>\s*</defs>", "", svg, count=1)
    if not found:
        raise PlotError("unexpected SVG from matplotlib (no <style>)")
    svg = svg.replace("<svg ", '<svg stroke-linejoin="round" ', 1)
    svg = re.sub(r"<!--.*?-->\s*", "", svg, flags=re.S)
    svg = re.sub(r">\s+<", "><", svg).strip()
    # A glyph without an outline (the space) draws nothing: drop it and its <use>s.
    for empty in re.findall(r'<path id="([^"]+)"(?: transform="[^"]*")?/>', svg):
        name = re.escape(empty)
        svg = re.sub(rf'<path id="{name}"[^>]*/>|<use xlink:href="#{name}"[^>]*/>', "", svg)
    svg = svg.replace("<defs></defs>", "")
    # A markers-only line's stroke has no path data: it draws nothing, and SVG requires d.
    svg = re.sub(r"<path(?![^>]*\s(?:d|id)=)[^>]*/>", "", svg)
    # Two decimals of an SVG unit is far below a pixel; the bytes drop by about a third.
    svg = re.sub(
        r'(<path id="[^"]+" d=")([^"]*)" transform="scale\(([\d.]+)\)"',
        lambda m: m[1] + _glyph_path(m[2], float(m[3])) + '"',
        svg,
    )
    svg = re.sub(r'(?<=\bd=")[^"]*', lambda m: _short_path(m[0]), svg)
    svg = re.sub(r'(?:(?<=\b[xy]=")|(?<=\bwidth=")|(?<=\bheight="))-?\d+\.\d{3,}', _round, svg)
    svg = re.sub(
        r"(?<=translate\()[^)]*|(?<=scale\()[^)]*|(?<=stroke-dasharray: )[\d.,]*",
        lambda m: _NUMBER.sub(_round, m[0]),
        svg,
    )
    # Every colour must be a placeholder: any other would ignore the colour scheme.
    leftover = set(re.findall(r"#[0-9a-fA-F]{3,8}\b|\brgba?\(", svg)) - {_INK, *_SERIES}
    if leftover:
        raise PlotError(f"colours not rewritten for the colour schemes: {sorted(leftover)}")
    # A glyph's offset in its word: x="..." says the same as a translate() in fewer bytes.
    svg = re.sub(r'(<use [^>]*?) transform="translate\(([-\d.]+) 0\)"', r'\1 x="\2"', svg)
    svg = re.sub(r"<g>((?:<use [^>]*/>)+)</g>", _hoist_style, svg)
    svg = svg.replace(_INK, "currentColor")
    for i, (placeholder, light) in enumerate(zip(_SERIES, LIGHT, strict=True), start=1):
        svg = svg.replace(placeholder, f"var(--plot-{i}, {light})")
    svg = _own_ids(svg, id_salt)
    svg = _unwrap_groups(svg)
    # xlink:href stays: Material's instant navigation (off in mkdocs.yml) rewrites every
    # element with a plain href attribute, and a <use> element's href cannot be set.
    # Natural size from the viewBox; plots.css scales it to the column width.
    box = re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg)
    if not box:
        raise PlotError("unexpected SVG from matplotlib (no viewBox)")
    svg = re.sub(
        r' width="[^"]*" height="[^"]*"', f' width="{box[1]}" height="{box[2]}"', svg, count=1
    )
    if re.search(r"""(?:href|src)=["'](?!#)|url\((?!#)|@import|<script""", svg):
        raise PlotError("the SVG refers to an external resource")
    ET.fromstring(svg)  # refuse to publish malformed markup
    return svg


def _hoist_style(match: re.Match[str]) -> str:
    """Markers: the style every <use> of a group repeats, said once on the group."""
    styles = set(re.findall(r' style="([^"]*)"', match[1]))
    if len(styles) != 1 or match[1].count("<use ") != match[1].count(" style="):
        return match[0]
    uses = re.sub(r' style="[^"]*"', "", match[1])
    return f'<g style="{styles.pop()}">{uses}</g>'


def _short_path(data: str) -> str:
    """Path data with two decimals and no optional spaces: "M 1.0000 2 L 3 4" -> "M1 2L3 4"."""
    data = _NUMBER.sub(_round, " ".join(data.split()))
    data = re.sub(r" ?([MLQCZmlqcz]) ?", r"\1", data)
    return re.sub(r" (?=-)", "", data)  # "1 -2" is "1-2" in path data


_COMMAND = re.compile(r"[MLQCZz]|-?\d+(?:\.\d+)?")


def _glyph_path(data: str, scale: float) -> str:
    """A glyph outline (font units, drawn at ``scale``) as compact relative path data.

    The scale is applied to the numbers, which are rounded to 0.1 (0.01 px on the page,
    the glyph group being drawn at scale 0.1), and each point is written relative to the
    previous one: "M 2597 2516 Q 3050 2419 ..." becomes "M40.6 39.3q7.1-1.5 ...". The
    rounding is done on absolute positions, so errors never add up along the outline.
    """
    out: list[str] = []
    here = start = (0, 0)  # in tenths of a unit, as integers: exact arithmetic
    previous = ""
    tokens = _COMMAND.findall(data)
    i = 0
    while i < len(tokens):
        command = tokens[i]
        i += 1
        if command in "Zz":
            out.append("z")
            here, previous = start, "z"
            continue
        size = {"M": 1, "L": 1, "Q": 2, "C": 3}[command]
        points = []
        for _ in range(size):
            x, y = (round(float(v) * scale * 10) for v in tokens[i : i + 2])  # tenths
            i += 2
            points.append((x, y))
        if command == "M":
            out.append("M" + _pair(points[0]))
            start = points[0]
            previous = "M"
        else:
            letter = command.lower()
            # A command letter may be left out when the previous command repeats.
            out.append(
                ("" if letter == previous else letter)
                + "".join(_pair((x - here[0], y - here[1])) for x, y in points)
            )
            previous = letter
        here = points[-1]
    return "".join(out)


def _pair(point: tuple[int, int]) -> str:
    return f"{_tenths(point[0])} {_tenths(point[1])} "


def _tenths(value: int) -> str:
    sign = "-" if value < 0 else ""
    whole, tenth = divmod(abs(value), 10)
    if not tenth:
        return f"{sign}{whole}"
    return f"{sign}{whole or ''}.{tenth}"  # ".5" is a number in path data


def _round(match: re.Match[str]) -> str:
    text = f"{float(match[0]):.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _own_ids(svg: str, salt: str = "") -> str:
    """Drop ids nothing refers to; rename the others to short ids unique to this SVG.

    Glyph and marker definitions repeat in every plot (``DejaVuSans-30``); without a
    prefix of its own, two plots on one page would share ids, which HTML forbids. The
    prefix is a hash of the SVG and ``salt`` (the alt text and caption), so it is the same
    in every build and differs between plots that draw the same data differently labelled.
    """
    referenced = set(re.findall(r'(?:href="#|url\(#)([^")]+)', svg))
    svg = re.sub(r' id="([^"]+)"', lambda m: m[0] if m[1] in referenced else "", svg)
    prefix = "p" + hashlib.sha256(f"{svg}\0{salt}".encode()).hexdigest()[:8]
    names: dict[str, str] = {}
    for old in re.findall(r' id="([^"]+)"', svg):
        names[old] = f"{prefix}{_base36(len(names))}"
    svg = re.sub(r' id="([^"]+)"', lambda m: f' id="{names[m[1]]}"', svg)
    svg = re.sub(r'href="#([^"]+)"', lambda m: f'href="#{names[m[1]]}"', svg)
    return re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{names[m[1]]})", svg)


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    text = digits[number % 36]
    while number >= 36:
        number //= 36
        text = digits[number % 36] + text
    return text


def _unwrap_groups(svg: str) -> str:
    """Remove <g> elements without attributes (matplotlib nests many): same drawing."""
    root = ET.fromstring(svg)
    group = f"{{{_SVG_NS}}}g"

    def flatten(parent: ET.Element) -> None:
        children: list[ET.Element] = []
        for child in parent:
            flatten(child)
            if child.tag == group and not child.attrib:
                children.extend(child)
            else:
                children.append(child)
        parent[:] = children

    flatten(root)
    return ET.tostring(root, encoding="unicode", short_empty_elements=True).replace(" />", "/>")


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
