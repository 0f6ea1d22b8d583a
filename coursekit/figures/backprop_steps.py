"""Step-through figures of a backward pass, with every number taken from PyTorch.

``figure(root, names, caption=...)`` returns a ``<figure class="backprop-steps">``: the
real ``grad_fn`` graph of ``root`` drawn as inline SVG with the forward value on every
node, Previous / Next buttons, a "Step 3 of 7" counter, a live region for screen readers
and, always in the HTML, the whole backward pass as an ordered list of steps (what a
reader without JavaScript, a printout and the record of outputs all see).

``capture(root, names)`` runs the backward pass once with hooks and returns what the
figure shows:

* the graph: walked from ``root.grad_fn`` through ``next_functions``
  (coursekit/figures/grad_fn_graph.py); each leaf enters through its ``AccumulateGrad``
  node;
* the forward values: the named tensors (every node's output must have a name);
* the saved values: the node's own ``_saved_*`` attributes (an ``alpha`` of 1, the
  default of ``+`` and ``-``, is left out);
* the local derivatives: each node's backward formula called with a gradient of 1
  (``node(torch.ones_like(out))``, ``out`` the tensor the node made), exactly what the
  chain-rule chapter does by hand;
* the gradient arriving at each node and the ones it passes on: ``register_prehook`` and
  ``register_hook`` on every node, in the order the engine runs them;
* each leaf's ``.grad``: a post-accumulate-grad hook, and ``.grad`` after the pass.

The capture leaves the tensors as it found them: the graph is kept
(``retain_graph=True``), and every ``.grad`` is put back, so the page's own
``backward()`` afterwards behaves as if the figure were not there. Its own backward
pass would also run any hook the page put on a tensor, so a graph whose named tensors
carry hooks is refused (draw the figure before registering them).

The build adds the step-through script and stylesheet to a page that holds a figure
(coursekit/mkdocs_adapter/plugin.py).
"""

from __future__ import annotations

import hashlib
import html
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import torch
from torch.autograd.graph import Node as GradFn

from coursekit.figures import STEP_FIGURE_CLASS, grad_fn_graph

FIGURE_CLASS = STEP_FIGURE_CLASS

# Drawing sizes in px, in the SVG's own units (its text is 13 px). Small enough that the
# widest figure (two branches, three leaves) fits a phone's column (about 332 px at a
# width of 390 px) without scaling its text below 12 px.
NODE_W = 128
NODE_H = 62
GAP_X = 14
GAP_Y = 40
PAD = 6


@dataclass(eq=False)  # edges compare by identity: two may hold the same numbers
class Edge:
    """One input of a node: the node it leads to (None for a constant)."""

    child: int | None
    local: float | None = None  # the node's backward formula called with 1
    passed: float | None = None  # the gradient the engine passed along this edge


@dataclass
class Node:
    """One grad_fn node as the figure shows it: what it made, and what it did backwards."""

    index: int
    kind: str  # PyTorch's class name, e.g. MulBackward0
    label: str  # kind, numbered when it occurs more than once
    leaf: bool  # an AccumulateGrad node, which writes a leaf's .grad
    tensor: str  # the name of the tensor it makes (or, for a leaf, holds)
    value: float
    saved: list[tuple[str, str]] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    arriving: float | None = None  # gradient arriving from above (the prehook)
    stored: float | None = None  # a leaf's .grad right after AccumulateGrad wrote it
    step: int = 0  # 1-based position in the engine's order


@dataclass
class Capture:
    """A graph and the backward pass the engine ran on it."""

    nodes: list[Node]  # forward order: inputs first, the root's node last
    order: list[int]  # node indices in the order the engine executed them
    root: str  # the root tensor's name
    leaf_grads: dict[str, float]  # .grad of every leaf after the pass

    @property
    def steps(self) -> int:
        """One step per executed node, and a last one that shows every .grad."""
        return len(self.order) + 1

    def parents(self, index: int) -> list[tuple[Node, Edge]]:
        return [(n, e) for n in self.nodes for e in n.edges if e.child == index]


def number(value: float) -> str:
    """A float as a short decimal (60, 0.5, -1.25e-05)."""
    text = format(value, ".6g")
    return "0" if text == "-0" else text


# ---------------------------------------------------------------------------
# Capture


def _scalar(tensor: torch.Tensor, what: str) -> float:
    if tensor.numel() != 1:
        raise ValueError(
            f"backprop_steps: {what} has shape {tuple(tensor.shape)}; step-through figures "
            "show scalar graphs only"
        )
    return float(tensor.detach().item())


def _saved(fn: GradFn) -> list[tuple[str, str]]:
    """The values a node saved in the forward pass (tensors and numbers only; an alpha
    of 1, what ``a + b`` and ``a - b`` save, says nothing and is left out)."""
    found = []
    # PyTorch names a node's inputs self and other: those first, in that order.
    first = {"_saved_self": 0, "_saved_other": 1}
    attrs = sorted(
        (a for a in dir(fn) if a.startswith("_saved_")), key=lambda a: (first.get(a, 2), a)
    )
    for attr in attrs:
        try:
            value = getattr(fn, attr)
        except RuntimeError:  # freed by an earlier backward()
            raise ValueError(
                "backprop_steps: the graph was already freed by backward(); call figure() "
                "before backward(), or build the graph again"
            ) from None
        name = attr.removeprefix("_saved_")
        if isinstance(value, torch.Tensor) and value.numel() == 1:
            found.append((name, number(float(value.detach().item()))))
        elif isinstance(value, bool):
            found.append((name, str(value)))
        elif isinstance(value, int | float):
            if name == "alpha" and value == 1:
                continue
            found.append((name, number(float(value))))
    return found


def _leaf_tensor(fn: GradFn) -> torch.Tensor | None:
    """The leaf an AccumulateGrad node writes to (its `variable`), else None.

    `variable` exists only on AccumulateGrad; torch's type stubs don't declare it.
    """
    tensor = getattr(fn, "variable", None)
    return tensor if isinstance(tensor, torch.Tensor) else None


def _leaf_grad(fn: GradFn) -> torch.Tensor:
    tensor = _leaf_tensor(fn)
    if tensor is None or tensor.grad is None:
        raise ValueError("backprop_steps: a leaf has no .grad after the backward pass")
    return tensor.grad


def capture(root: torch.Tensor, names: dict[str, torch.Tensor]) -> Capture:
    """Run ``root``'s backward pass with hooks and record what every node did.

    ``names`` maps a name to each tensor of the graph: every leaf, every intermediate
    result and the root (matched by identity). Only scalar graphs are supported.
    """
    fns = grad_fn_graph.forward_order(root, "backprop_steps")
    hooked = sorted(
        name
        for name, t in names.items()
        if t._backward_hooks or getattr(t, "_post_accumulate_grad_hooks", None)
    )
    if hooked:
        raise ValueError(
            f"backprop_steps: {', '.join(hooked)} has hooks, which the figure's own backward "
            "pass would run; draw the figure before registering them"
        )
    index_of = {id(fn): i for i, fn in enumerate(fns)}
    name_of = {id(t): name for name, t in names.items()}
    made_by = {id(t.grad_fn): (name, t) for name, t in names.items() if t.grad_fn is not None}

    nodes: list[Node] = []
    outputs: list[torch.Tensor] = []  # the tensor each node made (a leaf: holds)
    for i, (fn, label) in enumerate(zip(fns, grad_fn_graph.labels(fns), strict=True)):
        kind = type(fn).__name__
        tensor = _leaf_tensor(fn)
        leaf = tensor is not None
        if tensor is not None:
            if id(tensor) not in name_of:
                raise ValueError(f"backprop_steps: name every leaf (a leaf {kind} has no name)")
            name = name_of[id(tensor)]
        else:
            if id(fn) not in made_by:
                raise ValueError(
                    f"backprop_steps: name the tensor that {kind} makes (pass it in names): "
                    "the figure shows every node's forward value"
                )
            name, tensor = made_by[id(fn)]
        edges = [Edge(None if c is None else index_of[id(c)]) for c, _ in fn.next_functions]
        node = Node(i, kind, label, leaf, name, _scalar(tensor, name), edges=edges)
        if not leaf:
            node.saved = _saved(fn)
        nodes.append(node)
        outputs.append(tensor)

    # Local derivatives: PyTorch's backward formula of each node, given a gradient of 1.
    with torch.no_grad():
        for fn, node, made in zip(fns, nodes, outputs, strict=True):
            if node.leaf:
                continue
            try:
                # Shaped, typed and placed like the node's output, as the engine would pass it.
                out = cast(Callable[[torch.Tensor], Any], fn)(torch.ones_like(made))
            except RuntimeError:
                raise ValueError(
                    "backprop_steps: the graph was already freed by backward(); call "
                    "figure() before backward(), or build the graph again"
                ) from None
            outs = out if isinstance(out, tuple) else (out,)
            for edge, grad in zip(node.edges, outs, strict=True):
                if grad is not None and edge.child is not None:
                    edge.local = _scalar(grad, f"the local derivative of {node.label}")

    order: list[int] = []
    handles: list[Any] = []  # RemovableHandle, which torch does not export

    def prehook(node: Node) -> Callable[[tuple[torch.Tensor | None, ...]], None]:
        def hook(grad_outputs: tuple[torch.Tensor | None, ...]) -> None:
            order.append(node.index)
            if grad_outputs[0] is not None:
                node.arriving = _scalar(grad_outputs[0], f"the gradient of {node.label}")

        return hook

    def posthook(
        node: Node,
    ) -> Callable[[tuple[torch.Tensor | None, ...], tuple[torch.Tensor | None, ...]], None]:
        def hook(
            grad_inputs: tuple[torch.Tensor | None, ...], _: tuple[torch.Tensor | None, ...]
        ) -> None:
            for edge, grad in zip(node.edges, grad_inputs, strict=False):
                if grad is not None and edge.child is not None:
                    edge.passed = _scalar(grad, f"a gradient from {node.label}")

        return hook

    def stored_hook(node: Node) -> Callable[[torch.Tensor], None]:
        def hook(tensor: torch.Tensor) -> None:
            grad = tensor.grad
            assert grad is not None, "a post-accumulate hook always sees a .grad"
            node.stored = _scalar(grad, f"{node.tensor}.grad")

        return hook

    # The figure must not change what the page sees: keep every .grad to put it back.
    leaves = [t for t in map(_leaf_tensor, fns) if t is not None]
    kept = [t for t in names.values() if t.is_leaf or t.retains_grad]
    before = {id(t): t.grad for t in [*leaves, *kept]}
    try:
        for fn, node in zip(fns, nodes, strict=True):
            handles.append(fn.register_prehook(prehook(node)))
            if node.leaf:
                leaf_tensor = _leaf_tensor(fn)
                assert leaf_tensor is not None
                handles.append(leaf_tensor.register_post_accumulate_grad_hook(stored_hook(node)))
            else:
                handles.append(fn.register_hook(posthook(node)))
        for t in [*leaves, *kept]:
            t.grad = None
        root.backward(retain_graph=True)
        leaf_grads = {
            n.tensor: _scalar(_leaf_grad(fns[n.index]), f"{n.tensor}.grad") for n in nodes if n.leaf
        }
    finally:
        for handle in handles:
            handle.remove()
        for t in [*leaves, *kept]:
            t.grad = before[id(t)]
    for step, index in enumerate(order, start=1):
        nodes[index].step = step
    return Capture(nodes, order, name_of.get(id(root), "output"), leaf_grads)


# ---------------------------------------------------------------------------
# Text: one sentence group per step (the <ol>, the live region, the record)


def _node_name(node: Node) -> str:
    return f"{node.label} ({node.tensor})"


def step_texts(cap: Capture) -> list[str]:
    """Every step of the backward pass as plain text, in the engine's order."""
    return [" ".join(parts) for parts in step_parts(cap)]


def step_parts(cap: Capture) -> list[list[str]]:
    """Every step as its sentences: what the node is, what arrives, what it does."""
    root = cap.root
    texts = []
    for index in cap.order:
        node = cap.nodes[index]
        if node.leaf:
            parts = [
                f"{node.label} for the leaf {node.tensor} = {number(node.value)}.",
                f"Gradient arriving: {_arriving(cap, node)}.",
                f"It stores it: {node.tensor}.grad = {_maybe(node.stored)}.",
            ]
        else:
            made = f"{node.label}, which made {node.tensor} = {number(node.value)}."
            arriving = f"∂{root}/∂{node.tensor} = {_arriving(cap, node)}"
            if node.index == cap.nodes[-1].index:
                arriving += " (backward() starts with 1)"
            parts = [made, f"Gradient arriving from above: {arriving}."]
            if node.saved:
                saved = ", ".join(f"{k} = {v}" for k, v in node.saved)
                parts.append(f"Saved in the forward pass (PyTorch's names): {saved}.")
            locals_, passed = [], []
            for position, edge in enumerate(node.edges, start=1):
                if edge.child is None:
                    locals_.append(f"input {position} is a constant, so no gradient")
                    continue
                child = cap.nodes[edge.child]
                locals_.append(f"∂{node.tensor}/∂{child.tensor} = {_maybe(edge.local)}")
                passed.append(f"{_maybe(edge.passed)} to {_node_name(child)}")
            parts.append(
                "Local derivative (its backward formula called with 1): " + "; ".join(locals_) + "."
            )
            if passed:
                parts.append("Gradient passed on: " + "; ".join(passed) + ".")
        texts.append(parts)
    grads = ", ".join(f"{name}.grad = {number(v)}" for name, v in cap.leaf_grads.items())
    texts.append([f"Done: backward() has filled the .grad of every leaf: {grads}."])
    return texts


def _maybe(value: float | None) -> str:
    return "None" if value is None else number(value)


def _arriving(cap: Capture, node: Node) -> str:
    text = _maybe(node.arriving)
    parents = [(p, e.passed) for p, e in cap.parents(node.index) if e.passed is not None]
    if len(parents) > 1:
        parts = " and ".join(f"{number(passed)} from {p.label}" for p, passed in parents)
        text += f", the sum of {parts}, which the engine adds"
    return text


# ---------------------------------------------------------------------------
# Drawing


def _layout(cap: Capture) -> dict[int, tuple[float, float]]:
    """Top-left corner of every node: the root on top, each node one row below the
    lowest node that uses it, so every edge points down."""
    layer = {cap.nodes[-1].index: 0}
    for node in reversed(cap.nodes):  # reversed forward order: parents before children
        for edge in node.edges:
            if edge.child is not None:
                layer[edge.child] = max(layer.get(edge.child, 0), layer[node.index] + 1)
    rows: dict[int, list[int]] = {}
    # Within a row, the order the edges are met walking down from the root.
    met: list[int] = []
    for node in reversed(cap.nodes):
        for i in [node.index, *(e.child for e in node.edges if e.child is not None)]:
            if i not in met:
                met.append(i)
    for i in met:
        rows.setdefault(layer[i], []).append(i)
    where: dict[int, tuple[float, float]] = {}
    for row, members in sorted(rows.items()):
        # Each node as close as it fits below its parents' average, to keep edges short.
        members.sort(key=lambda i: _parents_x(cap, i, where))
        wanted = [_parents_x(cap, i, where) for i in members]
        xs: list[float] = []
        for x in wanted:
            xs.append(x if not xs else max(x, xs[-1] + NODE_W + GAP_X))
        shift = (sum(wanted) - sum(xs)) / len(xs)  # the row centred where it wanted to be
        for i, x in zip(members, xs, strict=True):
            where[i] = (x + shift, PAD + row * (NODE_H + GAP_Y))
    left = min(x for x, _ in where.values())
    return {i: (x - left + PAD, y) for i, (x, y) in where.items()}


def _parents_x(cap: Capture, index: int, where: dict[int, tuple[float, float]]) -> float:
    xs = [where[p.index][0] for p, _ in cap.parents(index) if p.index in where]
    return sum(xs) / len(xs) if xs else 0.0


def _svg(cap: Capture, alt: str) -> str:
    where = _layout(cap)
    width = max(x for x, _ in where.values()) + NODE_W + PAD
    height = max(y for _, y in where.values()) + NODE_H + PAD
    edges, boxes = [], []
    for node in cap.nodes:
        x, y = where[node.index]
        # Edges leave and enter a box side by side, in the order of the other ends.
        live = sorted(
            ((e, e.child) for e in node.edges if e.child is not None),
            key=lambda pair: where[pair[1]][0],
        )
        for k, (edge, child_index) in enumerate(live):
            child = cap.nodes[child_index]
            cx, cy = where[child.index]
            x1 = x + NODE_W * (k + 1) / (len(live) + 1)
            ins = [
                e for _, e in sorted(cap.parents(child.index), key=lambda pe: where[pe[0].index])
            ]
            x2 = cx + NODE_W * (ins.index(edge) + 1) / (len(ins) + 1)
            y1, y2 = y + NODE_H, cy
            mx, my = (x1 + x2) / 2, (y1 + y2) / 2
            head = f"{x2:.1f},{y2:.1f} {x2 - 5:.1f},{y2 - 9:.1f} {x2 + 5:.1f},{y2 - 9:.1f}"
            edges.append(
                f'<g class="bps-edge" data-step="{node.step}">'
                f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2 - 8:.1f}"/>'
                f'<polygon points="{head}"/>'
                f'<text class="bps-grad" x="{mx + 4:.1f}" y="{my + 4:.1f}">'
                f"{html.escape(_maybe(edge.passed))}</text></g>"
            )
        if node.leaf:
            grad = f"{node.tensor}.grad = {_maybe(node.stored)}"
            value = f"leaf {node.tensor} = {number(node.value)}"
        else:
            # Not "grad": a non-leaf keeps no .grad. The same words as the step's text.
            grad = f"∂{cap.root}/∂{node.tensor} = {_maybe(node.arriving)}"
            value = f"{node.tensor} = {number(node.value)}"
        cls = "bps-node bps-leaf" if node.leaf else "bps-node"
        mid = x + NODE_W / 2
        boxes.append(
            f'<g class="{cls}" data-step="{node.step}">'
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{NODE_W}" height="{NODE_H}" rx="6"/>'
            f'<text class="bps-kind" x="{mid:.1f}" y="{y + 18:.1f}">'
            f"{html.escape(node.label)}</text>"
            f'<text x="{mid:.1f}" y="{y + 37:.1f}">{html.escape(value)}</text>'
            f'<text class="bps-grad" x="{mid:.1f}" y="{y + 55:.1f}">{html.escape(grad)}</text>'
            "</g>"
        )
    return (
        f'<svg class="bps-graph" role="img" aria-label="{html.escape(alt, quote=True)}" '
        f'width="{width:.0f}" height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}">'
        + "".join(edges)
        + "".join(boxes)
        + "</svg>"
    )


def _describe(cap: Capture) -> str:
    parts = []
    for node in cap.nodes:
        if node.leaf:
            continue
        inputs = [cap.nodes[e.child].tensor for e in node.edges if e.child is not None]
        parts.append(f"{node.label} makes {node.tensor} from {' and '.join(inputs)}")
    return (
        f"The autograd graph of {cap.root}, {cap.root} on top and the leaves below: "
        + "; ".join(parts)
        + ". Each node shows its forward value and, once the backward pass reaches it, "
        "its gradient. The steps are described one at a time below the drawing."
    )


def figure(
    root: torch.Tensor,
    names: dict[str, torch.Tensor],
    *,
    caption: str,
    alt: str | None = None,
) -> str:
    """A step-through figure of ``root``'s backward pass (see the module docstring)."""
    cap = capture(root, names)
    steps = step_parts(cap)
    alt = " ".join((alt or _describe(cap)).split())
    # One span per sentence, a space between: the text alone still reads as sentences.
    items = "".join(
        f'<li data-step="{k}">'
        + " ".join(f'<span class="bps-part">{html.escape(part)}</span>' for part in parts)
        + "</li>"
        for k, parts in enumerate(steps, start=1)
    )
    texts = [" ".join(parts) for parts in steps]
    ident = "bps-" + hashlib.sha256("\0".join([caption, *texts]).encode()).hexdigest()[:8]
    return (
        f'<figure class="{FIGURE_CLASS}" id="{ident}" data-steps="{cap.steps}">'
        f'<div class="bps-drawing">{_svg(cap, alt)}</div>'
        '<div class="bps-controls" hidden>'
        '<button type="button" class="bps-prev">Previous</button>'
        f'<span class="bps-counter">Step 1 of {cap.steps}</span>'
        '<button type="button" class="bps-next">Next</button></div>'
        '<p class="bps-live" aria-live="polite" hidden></p>'
        f'<p class="bps-lead">The backward pass of {html.escape(cap.root)}, in the order '
        f"PyTorch ran it ({cap.steps} steps):</p>"
        f'<ol class="bps-steps">{items}</ol>'
        f"<figcaption>{html.escape(caption)}</figcaption></figure>"
    )
