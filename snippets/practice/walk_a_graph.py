"""Exercise 1.2: walk a graph from the loss to the leaves.

Run it: python snippets/practice/walk_a_graph.py
"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402

# --8<-- [start:starter]
import torch

x = torch.tensor(2.0)  # data: does not require grad
w = torch.tensor(3.0, requires_grad=True)
b = torch.tensor(1.0, requires_grad=True)
loss = (w * x + b) ** 2


def node_names(root):
    """The class names of the nodes of root's graph, depth-first from root.grad_fn.

    A node comes before the nodes it sends gradients to (its next_functions, in
    order), every node is listed once even if two paths lead to it, and the None
    entries of next_functions are skipped.
    """
    names = []
    # Your code: walk the graph from root.grad_fn and append type(node).__name__
    # for every node you reach.
    return names


print(node_names(loss))
# --8<-- [end:starter]

# --8<-- [start:solution]
import torch

x = torch.tensor(2.0)
w = torch.tensor(3.0, requires_grad=True)
b = torch.tensor(1.0, requires_grad=True)
loss = (w * x + b) ** 2


def node_names(root):
    """The class names of the nodes of root's graph, depth-first from root.grad_fn."""
    names, seen = [], []

    def visit(node):
        if node is None:  # an input that needs no gradient
            return
        if any(node is earlier for earlier in seen):  # reached by a second path
            return
        seen.append(node)
        names.append(type(node).__name__)
        for child, _ in node.next_functions:  # the node's inputs, in order
            visit(child)

    visit(root.grad_fn)
    return names


print(node_names(loss))
# --8<-- [end:solution]

# --8<-- [start:check]
# Runs your node_names on three graphs and compares with walks computed here from
# next_functions: your depth-first order, and the usual wrong ones to name the mistake.
import torch


def _children(node):
    return [child for child, _ in node.next_functions if child is not None]


def _name(node):
    return type(node).__name__


def _depth_first(
    root, once=True, before=True, first_only=False, by_name=False, leaves=True, reverse=False
):
    names, seen = [], []

    def visit(node):
        if not leaves and hasattr(node, "variable"):  # an AccumulateGrad node
            return
        if once and any((_name(node) == _name(s)) if by_name else (node is s) for s in seen):
            return
        seen.append(node)
        if before:
            names.append(_name(node))
        children = _children(node)
        children = children[:1] if first_only else children
        for child in reversed(children) if reverse else children:
            visit(child)
        if not before:
            names.append(_name(node))

    visit(root.grad_fn)
    return names


def _breadth_first(root):
    names, seen, queue = [], [], [root.grad_fn]
    while queue:
        node = queue.pop(0)
        if any(node is earlier for earlier in seen):
            continue
        seen.append(node)
        names.append(_name(node))
        queue.extend(_children(node))
    return names


def _graphs():
    x = torch.tensor(2.0)
    w = torch.tensor(3.0, requires_grad=True)
    b = torch.tensor(1.0, requires_grad=True)
    v = torch.tensor(3.0, requires_grad=True)
    return [
        ("(w * x + b) ** 2", (w * x + b) ** 2),
        ("(w.exp() * b.sin()).sum()", (w.exp() * b.sin()).sum()),
        ("v * x + v ** 2, where v is used twice", v * x + v**2),
    ]


MISTAKES = [
    (
        lambda root: _depth_first(root, before=False),
        "each node comes after its inputs. List a node first, then walk its inputs",
    ),
    (
        _breadth_first,
        "that is breadth-first order (level by level). Walk all the way down the first "
        "input before you move on to the second",
    ),
    (
        lambda root: _depth_first(root, reverse=True),
        "the inputs of each node were walked last to first (a stack pops the last one "
        "pushed). Walk next_functions in the order they appear",
    ),
    (
        lambda root: _depth_first(root, once=False),
        "a node reached by two paths is listed twice. Keep a list of the nodes you have "
        "visited, and skip a node you have seen",
    ),
    (
        lambda root: _depth_first(root, by_name=True),
        "two different nodes with the same name were taken for one (w and b each have "
        "their own AccumulateGrad node). Compare the nodes themselves with is, not "
        "their names",
    ),
    (
        lambda root: _depth_first(root, leaves=False),
        "the AccumulateGrad nodes of the leaves are missing. They are nodes of the graph "
        "too: list them",
    ),
    (
        lambda root: _depth_first(root, first_only=True),
        "only the first input of each node was followed. Walk every entry of next_functions",
    ),
]


def _plain(name):
    # grad_fn.name() calls the leaf node "torch::autograd::AccumulateGrad": accept it too.
    return name.removeprefix("torch::autograd::") if isinstance(name, str) else name


def check() -> str:
    learner = globals().get("node_names")
    if not callable(learner):
        return "Not done yet: define the function node_names(root) in the cell above."
    results = []  # (description, root, expected, what the learner's function returned)
    for description, root in _graphs():
        expected = _depth_first(root)
        try:
            got = learner(root)
        except AttributeError as error:
            if "NoneType" in str(error):
                return (
                    f"Not quite: on the graph of {description}, expected {expected}, got "
                    f"AttributeError: {error}. next_functions holds None for an input that "
                    "needs no gradient: skip those entries."
                )
            if "'Tensor' object" in str(error):
                return (
                    f"Not quite: on the graph of {description}, expected {expected}, got "
                    f"AttributeError: {error}. A tensor is not a node: start the walk at "
                    "root.grad_fn."
                )
            return (
                f"Not quite: on the graph of {description}, expected {expected}, got "
                f"AttributeError: {error}."
            )
        except Exception as error:
            return (
                f"Not quite: on the graph of {description}, expected {expected}, got "
                f"{type(error).__name__}: {error}."
            )
        if not isinstance(got, list | tuple):
            return f"Not quite: expected a list of names, got {type(got).__name__}: {got!r}."
        if got and not all(isinstance(name, str) for name in got):
            kinds = sorted({type(name).__name__ for name in got})
            return (
                f"Not quite: on the graph of {description}, expected a list of names "
                f"(strings) such as {expected}, got items of type {', '.join(kinds)}. "
                "Append type(node).__name__, not the node."
            )
        results.append((description, root, expected, [_plain(name) for name in got]))
    wrong = [result for result in results if result[3] != result[2]]
    if not wrong:
        return (
            "Correct: node_names walks all three graphs depth-first, each node once, "
            "as next_functions orders them."
        )
    description, root, expected, got = wrong[0]
    if not any(result[3] for result in results):
        return (
            "Not done yet: node_names returned an empty list. Walk the graph from "
            "root.grad_fn and append the name of each node."
        )
    if "None" in got or "NoneType" in got:
        return (
            f"Not quite: on the graph of {description}, expected {expected}, got {got}. "
            "The None entries of next_functions are not nodes: skip them."
        )
    # A mistake is named only if it explains the learner's lists on all three graphs.
    for walk, why in MISTAKES:
        if all(walk(r) == g for _, r, _, g in results):
            return (
                f"Not quite: on the graph of {description}, expected {expected}, got {got}: {why}."
            )
    return f"Not quite: on the graph of {description}, expected {expected}, got {got}."


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]
