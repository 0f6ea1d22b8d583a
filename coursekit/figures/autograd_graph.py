"""The real autograd graph of a tensor, drawn by D2 or written as text.

* ``figure(root, names, caption=...)``: a ``<figure>`` of the real ``grad_fn``
  graph of a tensor, with PyTorch's node names, forward edges and the backward pass,
  and a text version of the graph under it;
* ``structure(root, names)``: the same graph as plain text, one edge per line.

Figures always print their full HTML. The text version (the graph's edges, one per
line) is what the record of outputs stores instead of SVG bytes
(:func:`coursekit.execution.record.text_view`).
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from coursekit.figures import grad_fn_graph
from coursekit.figures.d2 import accessible, diagram_salt, figure_html, render_svg

if TYPE_CHECKING:
    import torch


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
    """The grad_fn graph in forward order (inputs first, as grad_fn_graph walks it) and
    the root's name."""
    fns = grad_fn_graph.forward_order(root, "autograd_graph.figure")
    name_of = {id(t): name for name, t in names.items()}
    made_by = {
        id(t.grad_fn): name
        for name, t in names.items()
        if t is not root and getattr(t, "grad_fn", None) is not None
    }
    nodes: dict[int, _Node] = {}
    order: list[_Node] = []
    for fn, label in zip(fns, grad_fn_graph.labels(fns), strict=True):
        leaf = grad_fn_graph.is_leaf(fn)
        tensor = name_of.get(id(fn.variable), "unnamed leaf") if leaf else made_by.get(id(fn))
        node = _Node(type(fn).__name__, leaf, tensor)
        node.label = label
        node.ident = f"n{len(order)}"
        # Forward order: every node this one passes gradients to is already made.
        node.children = [nodes[id(c)] for c, _ in fn.next_functions if c is not None]
        nodes[id(fn)] = node
        order.append(node)
    return order, name_of.get(id(root), "output")


def _text_name(node: _Node) -> str:
    return f"{node.label}[{node.tensor}]" if node.tensor else node.label


def structure(root: torch.Tensor, names: dict[str, torch.Tensor]) -> str:
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


def figure(
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
    svg = accessible(render_svg(source, salt=diagram_salt(source, alt, caption)), alt)
    text = (
        '<details class="d2-text-version"><summary>Text version of this diagram</summary>'
        f"{structure}</details>"
    )
    return figure_html(svg, caption, alt=alt, extra=text)
