"""Plausible wrong answers to Exercise 1.2 (walk a graph).

Each region replaces the starter cell of snippets/practice/walk_a_graph.py; the check
must answer "Not quite" and say what is wrong with the walk.
"""
# ruff: noqa: F811


# --8<-- [start:none-not-skipped]
# Mistake: follows every entry of next_functions, including None (x needs no gradient).
def node_names(root):
    names = []

    def visit(node):
        names.append(type(node).__name__)
        for child, _ in node.next_functions:
            visit(child)

    visit(root.grad_fn)
    return names


# --8<-- [end:none-not-skipped]


# --8<-- [start:breadth-first]
# Mistake: walks level by level with a queue instead of depth-first.
def node_names(root):
    names, seen, queue = [], [], [root.grad_fn]
    while queue:
        node = queue.pop(0)
        if node is None or any(node is s for s in seen):
            continue
        seen.append(node)
        names.append(type(node).__name__)
        queue.extend(child for child, _ in node.next_functions)
    return names


# --8<-- [end:breadth-first]


# --8<-- [start:no-seen-list]
# Mistake: depth-first, but a node reached by two paths is listed (and walked) twice.
def node_names(root):
    names = []

    def visit(node):
        if node is None:
            return
        names.append(type(node).__name__)
        for child, _ in node.next_functions:
            visit(child)

    visit(root.grad_fn)
    return names


# --8<-- [end:no-seen-list]


# --8<-- [start:inputs-first]
# Mistake: appends a node after walking its inputs, so the leaves come first.
def node_names(root):
    names, seen = [], []

    def visit(node):
        if node is None or any(node is s for s in seen):
            return
        seen.append(node)
        for child, _ in node.next_functions:
            visit(child)
        names.append(type(node).__name__)

    visit(root.grad_fn)
    return names


# --8<-- [end:inputs-first]


# --8<-- [start:first-input-only]
# Mistake: follows only the first input of each node, like a chain.
def node_names(root):
    names, node = [], root.grad_fn
    while node is not None:
        names.append(type(node).__name__)
        node = node.next_functions[0][0] if node.next_functions else None
    return names


# --8<-- [end:first-input-only]


# --8<-- [start:nodes-not-names]
# Mistake: collects the node objects themselves instead of their names.
def node_names(root):
    nodes = []

    def visit(node):
        if node is None or any(node is n for n in nodes):
            return
        nodes.append(node)
        for child, _ in node.next_functions:
            visit(child)

    visit(root.grad_fn)
    return nodes


# --8<-- [end:nodes-not-names]


# --8<-- [start:starts-at-the-tensor]
# Mistake: starts the walk at the tensor instead of its grad_fn.
def node_names(root):
    names, seen = [], []

    def visit(node):
        if node is None or any(node is s for s in seen):
            return
        seen.append(node)
        names.append(type(node).__name__)
        for child, _ in node.next_functions:
            visit(child)

    visit(root)
    return names


# --8<-- [end:starts-at-the-tensor]


# --8<-- [start:seen-by-name]
# Mistake: skips a node whose name is already listed, so w's and b's AccumulateGrad are one.
def node_names(root):
    names = []

    def visit(node):
        if node is None or type(node).__name__ in names:
            return
        names.append(type(node).__name__)
        for child, _ in node.next_functions:
            visit(child)

    visit(root.grad_fn)
    return names


# --8<-- [end:seen-by-name]


# --8<-- [start:leaves-left-out]
# Mistake: lists only the operations and leaves out the AccumulateGrad nodes of the leaves.
def node_names(root):
    names, seen = [], []

    def visit(node):
        if node is None or hasattr(node, "variable") or any(node is s for s in seen):
            return
        seen.append(node)
        names.append(type(node).__name__)
        for child, _ in node.next_functions:
            visit(child)

    visit(root.grad_fn)
    return names


# --8<-- [end:leaves-left-out]


# --8<-- [start:stack-last-input-first]
# Mistake: depth-first with a stack, which pops the last input of each node first.
def node_names(root):
    names, seen, stack = [], [], [root.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or any(node is s for s in seen):
            continue
        seen.append(node)
        names.append(type(node).__name__)
        stack.extend(child for child, _ in node.next_functions)
    return names


# --8<-- [end:stack-last-input-first]
