"""The one walk of a tensor's autograd graph, shared by the figures that draw it
(coursekit/figures/autograd_graph.py and backprop_steps.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch


def forward_order(root: torch.Tensor, figure: str) -> list[Any]:
    """The ``grad_fn`` nodes of ``root``'s graph in forward order (inputs first).

    Depth-first post-order from ``root.grad_fn``, following ``next_functions`` in order,
    so the order depends on the graph only, never on memory addresses, and every node
    comes after the nodes it passes gradients to. Iterative, so a long chain of
    operations cannot hit Python's recursion limit. ``figure`` names the caller in the
    error for a tensor with no graph.
    """
    start = getattr(root, "grad_fn", None)
    if start is None:
        raise ValueError(
            f"{figure}: this tensor has no grad_fn (it is a leaf, or nothing it was "
            "computed from requires grad)"
        )
    seen: set[int] = set()  # ids stay unique: every node seen is kept alive in `order`
    order: list[Any] = []
    stack: list[tuple[Any, bool]] = [(start, False)]
    while stack:
        fn, expanded = stack.pop()
        if expanded:
            order.append(fn)
            continue
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        stack.append((fn, True))
        children = [c for c, _ in fn.next_functions if c is not None]
        stack.extend((c, False) for c in reversed(children))
    return order


def is_leaf(fn: Any) -> bool:
    """An ``AccumulateGrad`` node: it writes a leaf's ``.grad`` (and holds the leaf)."""
    return hasattr(fn, "variable")


def labels(order: list[Any]) -> list[str]:
    """Each node's label: PyTorch's class name, numbered (``MulBackward0 #2``) in forward
    order when an operation occurs more than once. Leaves keep the plain name."""
    totals: dict[str, int] = {}
    for fn in order:
        totals[type(fn).__name__] = totals.get(type(fn).__name__, 0) + 1
    counted: dict[str, int] = {}
    result = []
    for fn in order:
        kind = type(fn).__name__
        if not is_leaf(fn) and totals[kind] > 1:
            counted[kind] = counted.get(kind, 0) + 1
            kind = f"{kind} #{counted[kind]}"
        result.append(kind)
    return result
