"""SVG made fit to inline in a page: matplotlib's output made small, and the checks
every figure's SVG passes before it is published.

* :func:`clean_matplotlib`: matplotlib's SVG without its prolog, metadata, comments and
  page-wide ``<style>``; coordinates with two decimals, glyph outlines as compact
  relative paths, ids unique to the figure, no empty groups. The drawing is the same.
* :func:`natural_size`, :func:`external_reference`, :func:`well_formed`: the checks that
  plots.py (matplotlib) and d2.py (D2) share.
"""

from __future__ import annotations

import hashlib
import re
import xml.etree.ElementTree as ET

_SVG_NS = "http://www.w3.org/2000/svg"
# Once, at import: ElementTree writes these prefixes back when it serialises a plot.
ET.register_namespace("", _SVG_NS)
ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")

# ---------------------------------------------------------------------------
# The checks every figure passes


# A reference the browser would fetch (anything but "#id" or a data: URI), or a script.
_EXTERNAL = re.compile(
    r"""(?:href|src)=["'](?!#|data:)|url\((?!["']?(?:#|data:))|@import|<script"""
)


def external_reference(svg: str) -> str | None:
    """The start of the first reference to a resource outside ``svg`` (or of a script),
    None if there is none: an inline figure must not make the page request anything."""
    found = _EXTERNAL.search(svg)
    return found[0] if found else None


def natural_size(svg: str) -> str | None:
    """``svg`` with its root ``<svg>`` as wide and high as its viewBox ("0 0 W H"), in
    place of any width and height it had; None when the root has no such viewBox.

    CSS scales the figure down to the column; the size says how large it is at most.
    """
    root = re.search(r"<svg\b[^>]*>", svg)
    box = root and re.search(r' viewBox="0 0 ([\d.]+) ([\d.]+)"', root[0])
    if not root or not box:
        return None
    tag = re.sub(r' (?:width|height)="[^"]*"', "", root[0])
    size = f' width="{box[1]}" height="{box[2]}"'
    tag = re.sub(r"(?= (?:preserveAspectRatio|viewBox)=)", size, tag, count=1)
    return svg[: root.start()] + tag + svg[root.end() :]


def well_formed(svg: str) -> str:
    """``svg`` once ElementTree has parsed it: malformed markup raises ET.ParseError
    instead of being published."""
    ET.fromstring(svg)
    return svg


# ---------------------------------------------------------------------------
# matplotlib's SVG

_NUMBER = re.compile(r"-?\d+\.\d{3,}")


def clean_matplotlib(svg: str, id_salt: str = "") -> str:
    """Ids unique to this plot, coordinates shortened, junk removed: the same drawing.

    ``id_salt`` goes into the hash the ids are made from (see :func:`_own_ids`).
    Raises ValueError when the SVG is not what matplotlib writes (no ``<style>``).
    """
    svg = svg[svg.index("<svg ") :]  # drop the XML prolog and DOCTYPE
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.S)
    # matplotlib's <style> says "*{stroke-linejoin: round}": inline, it would style the
    # whole page. The same default, inherited, from the root element instead.
    svg, found = re.subn(r"<defs>\s*<style[^>]*>[^<]*</style>\s*</defs>", "", svg, count=1)
    if not found:
        raise ValueError("unexpected SVG from matplotlib (no <style>)")
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
    # A glyph's offset in its word: x="..." says the same as a translate() in fewer bytes.
    svg = re.sub(r'(<use [^>]*?) transform="translate\(([-\d.]+) 0\)"', r'\1 x="\2"', svg)
    svg = re.sub(r"<g>((?:<use [^>]*/>)+)</g>", _hoist_style, svg)
    svg = _own_ids(svg, id_salt)
    # xlink:href stays: Material's instant navigation (off in mkdocs.yml) rewrites every
    # element with a plain href attribute, and a <use> element's href cannot be set.
    return _unwrap_groups(svg)


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
