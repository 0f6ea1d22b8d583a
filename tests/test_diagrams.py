"""Diagrams (coursekit/figures/d2.py, autograd_graph.py, content/d2_fence.py): valid,
accessible, deterministic SVG, and loud errors.

Figures always render their SVG (the record stores their text view). Outside a build
no renderer is in effect, so every figure here is drawn by d2 itself: only the cache
test puts a caching renderer in effect.
"""

from __future__ import annotations

import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import markdown
import pytest
import torch
import yaml
from support import ROOT

from coursekit import versions
from coursekit.content import d2_fence
from coursekit.content.errors import FenceFailure
from coursekit.execution.record import text_view
from coursekit.figures.autograd_graph import figure as autograd_figure
from coursekit.figures.autograd_graph import structure as autograd_structure
from coursekit.figures.d2 import D2Renderer, DiagramError, d2_figure, rendering
from coursekit.markdown import where
from coursekit.markdown.includes import Includes
from coursekit.markdown.page import read_page

SVG_NS = "{http://www.w3.org/2000/svg}"
SOURCE = "x -> u: multiply by 3\nu -> loss: square\nloss -> x: gradient {class: backward}\n"
BAD_SOURCE = "x -> u\nu: {\n"  # the map opened on line 2 is never closed
# Shapes that make D2 add more CSS: Markdown text, code, an animated edge (@keyframes).
RICH_SOURCE = (
    "note: |md\n  **Chain rule**: multiply the `local` derivatives\n|\n"
    "code: |python\n  loss.backward()\n|\n"
    "note -> code: {style.animated: true}\n"
)


def _svg_of(figure: str) -> ET.Element:
    match = re.search(r"<svg\b.*</svg>", figure, re.S)
    assert match, "the figure holds no <svg>"
    return ET.fromstring(match[0])


def _md() -> markdown.Markdown:
    fences = [
        {
            "name": "d2",
            "class": "d2",
            "format": d2_fence.formatter,
            "validator": d2_fence.validator,
        }
    ]
    return markdown.Markdown(
        extensions=["pymdownx.superfences"],
        extension_configs={"pymdownx.superfences": {"custom_fences": fences}},
    )


def _d2_own_message(source: str) -> str:
    """What d2 itself says about ``source``, without the "file:line:col:" prefix."""
    done = subprocess.run(
        [versions.d2_binary() or "d2", "-", "-"], input=source, capture_output=True, text=True
    )
    assert done.returncode != 0
    return done.stderr.strip().splitlines()[-1].rsplit(": ", 1)[-1]


# --- d2_figure and the fence ----------------------------------------------------------


def test_d2_figure_is_valid_accessible_svg() -> None:
    alt = "x becomes u, u becomes loss, and the gradient runs back to x."
    figure = d2_figure(SOURCE, alt=alt, caption="Forward and back")
    assert figure.startswith('<figure class="d2-figure">')
    assert "<figcaption>Forward and back</figcaption>" in figure
    root = _svg_of(figure)
    assert root.tag == f"{SVG_NS}svg"
    assert root.get("role") == "img"
    assert root.get("aria-label") == alt
    assert float(root.get("width", "0")) > 0 and float(root.get("height", "0")) > 0
    texts = {"".join(t.itertext()) for t in root.iter(f"{SVG_NS}text")}
    assert {"x", "u", "loss", "gradient"} <= texts


@pytest.mark.parametrize("source", [SOURCE, RICH_SOURCE], ids=["plain", "rich"])
def test_the_svg_requests_nothing_and_follows_the_material_scheme(source: str) -> None:
    figure = d2_figure(source, alt="a diagram")
    root = _svg_of(figure)
    for element in root.iter():
        for name, value in element.attrib.items():
            if name.endswith("href") or name == "src":
                assert value.startswith(("#", "data:")), (name, value)
    styles = "".join("".join(s.itertext()) for s in root.iter(f"{SVG_NS}style"))
    for url in re.findall(r"url\(\s*['\"]?([^'\")]*)", styles + figure):
        assert url.startswith(("#", "data:")), url
    assert "@import" not in styles
    # The reader's toggle decides, not the operating system's preference.
    assert "prefers-color-scheme" not in figure
    assert '[data-md-color-scheme="slate"]' in styles
    scope = next(c for c in root[0].get("class", "").split() if re.fullmatch(r"d2-\d+", c))
    keyframes = r"@keyframes[^{]*\{(?:[^{}]*\{[^{}]*\})*[^{}]*\}"
    for rule in re.findall(r"([^{}]+)\{[^{}]*\}", re.sub(keyframes, "", styles)):
        assert f".{scope}" in rule, f"unscoped CSS would leak into the page: {rule!r}"


@pytest.mark.parametrize("source", [SOURCE, RICH_SOURCE], ids=["plain", "rich"])
def test_labels_use_the_pages_fonts_and_no_font_is_embedded(source: str) -> None:
    figure = d2_figure(source, alt="a diagram")
    assert "@font-face" not in figure
    assert not re.search(r"d2-\d+-font", figure), "a rule still names D2's embedded font"
    families = set(re.findall(r"font-family:\s*([^;}]+)", figure))
    assert families, "no label font at all"
    page_fonts = {"var(--md-text-font-family,sans-serif)", "var(--md-code-font-family,monospace)"}
    assert families <= page_fonts, families - page_fonts


def test_rendering_is_deterministic() -> None:
    with rendering(D2Renderer()) as first_renderer:
        first = d2_figure(SOURCE, alt="a diagram", caption="c")
    with rendering(D2Renderer()) as second_renderer:
        second = d2_figure(SOURCE, alt="a diagram", caption="c")
    assert first_renderer.renders == second_renderer.renders == 1, "d2 ran both times"
    assert first == second


def test_renders_are_cached_on_disk_by_the_renderer_in_effect(tmp_path: Path) -> None:
    with rendering(D2Renderer(tmp_path / "d2")) as renderer:
        first = d2_figure(SOURCE, alt="a diagram")
        assert (renderer.renders, renderer.cache_hits) == (1, 0)
    with rendering(D2Renderer(tmp_path / "d2")) as later:  # a later build
        assert d2_figure(SOURCE, alt="a diagram") == first
        assert (later.renders, later.cache_hits) == (0, 1)
    assert len(list((tmp_path / "d2").glob("*.svg"))) == 1


@pytest.mark.parametrize("alt", ["", "   "])
def test_a_figure_without_alt_text_is_refused(alt: str) -> None:
    with pytest.raises(DiagramError, match="alt="):
        d2_figure(SOURCE, alt=alt)


def test_a_d2_syntax_error_carries_d2s_message_and_the_page_line() -> None:
    with pytest.raises(DiagramError) as error:
        d2_figure(BAD_SOURCE, alt="broken", where="docs/page.md:10")
    message = str(error.value)
    assert _d2_own_message(BAD_SOURCE) in message
    # The fence opens on line 10, so the diagram's line 2 is the page's line 12.
    assert "docs/page.md:12:" in message
    assert "'x -> u'" in message  # the diagram's first line, to find it without a page
    # D2's own words come straight after "D2 says:", without its progress notes.
    assert re.search(r"D2 says: docs/page\.md:12:\d+: ", message), message


def test_the_fence_renders_a_figure() -> None:
    page = f'# Page\n\n```d2 alt="x to loss and back" caption="The picture"\n{SOURCE}```\n'
    out = _md().convert(page)
    assert '<figure class="d2-figure">' in out
    assert "<figcaption>The picture</figcaption>" in out
    assert _svg_of(out).get("aria-label") == "x to loss and back"


@pytest.mark.parametrize(
    ("options", "expected"),
    [("", 'needs alt="..."'), ('alt=""', 'needs alt="..."'), ('alt="a" colour="red"', "colour")],
)
def test_the_fence_refuses_missing_alt_and_unknown_options(options: str, expected: str) -> None:
    with pytest.raises(FenceFailure, match=re.escape(expected)):
        _md().convert(f"```d2 {options}\n{SOURCE}```\n")


def _tagged(page: str, offset: int) -> list[str]:
    source = read_page(page, "docs/page.md", Includes({}, ROOT), line_offset=offset)
    return where.tag(source, {"d2"}).split("\n")


def test_a_fence_error_names_the_markdown_file_and_line() -> None:
    page = f'Intro\n\n```d2 alt="broken"\n{BAD_SOURCE}```\n'
    lines = _tagged(page, offset=3)
    fence_line = 3 + 3  # the fence is on line 3, after 3 lines of front matter
    assert lines[2].endswith(f'at="docs/page.md:{fence_line}"')
    with pytest.raises(FenceFailure) as error:
        _md().convert("\n".join(lines))
    assert f"docs/page.md:{fence_line + 2}:" in str(error.value)
    assert _d2_own_message(BAD_SOURCE) in str(error.value)


def test_only_real_d2_fences_are_tagged() -> None:
    page = '````markdown\n```d2 alt="shown as an example"\na -> b\n```\n````\n```d2 alt="x"\n'
    lines = _tagged(page, offset=0)
    assert "at=" not in lines[1]
    assert lines[5].endswith('at="docs/page.md:6"')


def test_mkdocs_registers_the_fence_and_the_stylesheet() -> None:
    # Read the YAML only (loading the whole MkDocs config takes seconds): keep the
    # !!python/name: tags as the dotted names they are and ignore the other tags.
    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor(
        "tag:yaml.org,2002:python/name:", lambda loader, suffix, node: suffix
    )
    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)  # !ENV and the like
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)
    superfences = next(
        ext["pymdownx.superfences"]
        for ext in config["markdown_extensions"]
        if isinstance(ext, dict) and "pymdownx.superfences" in ext
    )
    d2 = next(fence for fence in superfences["custom_fences"] if fence["name"] == "d2")
    assert d2["format"] == "coursekit.content.d2_fence.formatter"
    assert d2["validator"] == "coursekit.content.d2_fence.validator"
    assert "assets/stylesheets/diagrams.css" in config["extra_css"]
    assert (ROOT / "docs" / "assets" / "stylesheets" / "diagrams.css").is_file()


# --- autograd graphs ----------------------------------------------------------------------


def _walk(root: torch.Tensor) -> tuple[set[str], int]:
    """An independent walk of the grad_fn graph: node type names and the number of edges."""
    kinds, edges, seen, todo = set(), 0, set(), [root.grad_fn]
    while todo:
        fn = todo.pop()
        if fn in seen:
            continue
        seen.add(fn)
        kinds.add(type(fn).__name__)
        children = [child for child, _ in fn.next_functions if child is not None]
        edges += len(children)
        todo.extend(children)
    return kinds, edges


def _composite() -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    x = torch.tensor(2.0, requires_grad=True)
    loss = (x * 3 + 4) ** 2
    return loss, {"x": x, "loss": loss}


def _linear() -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    torch.manual_seed(0)
    x, w, b = (torch.randn(3, requires_grad=True) for _ in range(3))
    loss = ((x * w + b) ** 2).sum()
    return loss, {"x": x, "w": w, "b": b, "loss": loss}


def test_structure_of_the_composite_function() -> None:
    loss, names = _composite()
    text = autograd_structure(loss, names)
    for kind in ("PowBackward0", "AddBackward0", "MulBackward0"):
        assert kind in text
    assert "AccumulateGrad[x] -> MulBackward0" in text.splitlines()
    kinds, edges = _walk(loss)
    assert all(kind in text for kind in kinds - {"AccumulateGrad"})
    assert len(text.splitlines()) == edges + 1  # every edge, then the root's name
    assert text.splitlines()[-1] == f"{type(loss.grad_fn).__name__} -> loss"


def test_structure_names_every_leaf() -> None:
    loss, names = _linear()
    text = autograd_structure(loss, names)
    for leaf in ("x", "w", "b"):
        assert f"AccumulateGrad[{leaf}]" in text
    kinds, edges = _walk(loss)
    assert {line.split(" -> ")[0].split("[")[0] for line in text.splitlines()} == kinds
    assert len(text.splitlines()) == edges + 1


def test_structure_numbers_repeated_operations_and_names_intermediates() -> None:
    x = torch.tensor(1.5, requires_grad=True)
    u = x * 3 + 4
    y = u**2 + u  # two additions; u is used twice
    text = autograd_structure(y, {"x": x, "u": u})
    assert "AddBackward0 #1[u] -> PowBackward0" in text
    assert "AddBackward0 #1[u] -> AddBackward0 #2" in text


def test_structure_is_the_same_for_the_same_code() -> None:
    assert autograd_structure(*_linear()) == autograd_structure(*_linear())


def test_a_tensor_without_grad_fn_is_refused() -> None:
    x = torch.tensor(1.0, requires_grad=True)
    with pytest.raises(ValueError, match="no grad_fn"):
        autograd_structure(x, {"x": x})


def test_autograd_figure_draws_pytorchs_nodes_forward_and_backward() -> None:
    loss, names = _linear()
    figure = autograd_figure(loss, names, caption="The graph of the loss")
    root = _svg_of(figure)
    texts = " ".join("".join(t.itertext()) for t in root.iter(f"{SVG_NS}text"))
    kinds, _ = _walk(loss)
    for kind in kinds:
        assert kind in texts
    for leaf in ("x", "w", "b"):
        assert f"{leaf} (leaf)" in texts
        assert f"{leaf}.grad" in texts
        assert f"∂loss/∂{leaf}" in texts
    # Backward edges are their own (dashed) class, one per forward edge plus the .grad ones.
    groups = [g.get("class", "").split() for g in root.iter(f"{SVG_NS}g")]
    forward = sum("forward" in g for g in groups)
    backward = sum("backward" in g for g in groups)
    assert backward == forward + 3
    # Alt text is generated from the graph; the text version sits under the figure.
    alt = root.get("aria-label", "")
    assert alt.startswith("Autograd graph of loss:")
    assert all(f"{leaf}.grad" in alt for leaf in ("x", "w", "b"))
    assert "Text version of this diagram" in figure
    assert autograd_structure(loss, names).replace(">", "&gt;") in figure


def test_autograd_figure_is_deterministic() -> None:
    first = autograd_figure(*_linear(), caption="c")
    assert autograd_figure(*_linear(), caption="c") == first


def test_the_record_stores_the_figures_text_version() -> None:
    loss, names = _composite()
    figure = autograd_figure(loss, names, caption="c", alt="The chain x to loss")
    assert "<svg" in figure
    text = text_view(figure)
    assert autograd_structure(loss, names) in text
    assert "<" not in text
    assert "d2-" not in text
