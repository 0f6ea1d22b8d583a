"""Part 1, chapter 2: grad_fn, the node that made a tensor, and the graph behind it.

Each region is included by docs/graph/grad-fn.md. The file also runs top to bottom
on its own: `python snippets/graph/grad_fn.py`.
"""

# ruff: noqa: E402

# --8<-- [start:forward]
import torch

x = torch.tensor(2.0)  # an input: not tracked
w = torch.tensor(3.0, requires_grad=True)  # a weight
b = torch.tensor(1.0, requires_grad=True)  # a bias

u = w * x
y = u + b
loss = y**2

for name, t in [("x", x), ("w", w), ("b", b), ("u", u), ("y", y), ("loss", loss)]:
    made_by = t.grad_fn.name() if t.grad_fn is not None else None
    print(f"{name:4} = {t.item():4}  grad_fn: {made_by}")
# --8<-- [end:forward]

# --8<-- [start:numbered]
print("w ** 2:", (w**2).grad_fn.name())  # the exponent is a plain number
print("w ** b:", (w**b).grad_fn.name())  # the exponent is a tensor
# --8<-- [end:numbered]


# --8<-- [start:next-functions]
def inputs_of(node):
    """One (name, index) pair per input: the node that made the input, and which output."""
    return [(None if child is None else child.name(), i) for child, i in node.next_functions]


print("loss.grad_fn:", loss.grad_fn.name(), "->", inputs_of(loss.grad_fn))
print("y.grad_fn:   ", y.grad_fn.name(), "->", inputs_of(y.grad_fn))
print("u.grad_fn:   ", u.grad_fn.name(), "->", inputs_of(u.grad_fn))
# --8<-- [end:next-functions]

# --8<-- [start:number-inputs]
print("w * 2: ", (w * 2).grad_fn.name(), "->", inputs_of((w * 2).grad_fn))
print("w ** 2:", (w**2).grad_fn.name(), "->", inputs_of((w**2).grad_fn))
# --8<-- [end:number-inputs]


# --8<-- [start:walker]
def leaf_name(tensor, leaves):
    """The name under which a leaf tensor was given, matched by identity."""
    return next((name for name, t in leaves.items() if t is tensor), "unnamed")


def walk(node, leaves, depth=0, seen=None):
    """Print a node, then (indented) every node it sends gradients to, depth-first."""
    seen = [] if seen is None else seen
    indent = "    " * depth
    if node is None:
        print(f"{indent}None  (an input that needs no gradient)")
        return
    label = type(node).__name__  # the node's class, e.g. MulBackward0
    if hasattr(node, "variable"):  # the node at a leaf holds that leaf
        label += f"  (leaf {leaf_name(node.variable, leaves)})"
    if any(node is earlier for earlier in seen):
        print(f"{indent}{label}  (already listed above)")
        return
    seen.append(node)
    print(indent + label)
    for child, _ in node.next_functions:  # in the order of the operation's inputs
        walk(child, leaves, depth + 1, seen)


walk(loss.grad_fn, {"w": w, "b": b})
# --8<-- [end:walker]


# --8<-- [start:accumulate-grad]
node_w = u.grad_fn.next_functions[0][0]  # the first input of w * x
node_b = y.grad_fn.next_functions[1][0]  # the second input of u + b

print("name():", node_w.name(), "| class:", type(node_w).__name__)
print("node_w.variable is w:", node_w.variable is w)
print("node_b.variable is b:", node_b.variable is b)
print("w.grad before backward():", w.grad)

loss.backward()
print("w.grad after backward(): ", w.grad)
print("b.grad after backward(): ", b.grad)
# --8<-- [end:accumulate-grad]

# --8<-- [start:shared]
v = torch.tensor(3.0, requires_grad=True)
twice = v * x + v**2  # v is used by two operations

walk(twice.grad_fn, {"v": v})

from_mul = twice.grad_fn.next_functions[0][0].next_functions[0][0]
from_pow = twice.grad_fn.next_functions[1][0].next_functions[0][0]
print("the same AccumulateGrad node:", from_mul is from_pow)

twice.backward()
print("v.grad:", v.grad)
# --8<-- [end:shared]

# --8<-- [start:held-weakly]
p = torch.tensor(1.0, requires_grad=True)
first = p * 2  # a graph that holds p's AccumulateGrad node
node = first.grad_fn.next_functions[0][0]
node.metadata["note"] = "seen before"  # a note of our own, kept on the node
second = p * 3  # a second graph, made while the first one still exists
print("second graph, the same node:", second.grad_fn.next_functions[0][0] is node, node.metadata)

del first, second, node  # now no graph holds the node
third = p * 4
print("third graph, its node's notes:", third.grad_fn.next_functions[0][0].metadata)
# --8<-- [end:held-weakly]

# --8<-- [start:is-leaf]
for name, t in [("x", x), ("w", w), ("b", b), ("u", u), ("y", y), ("loss", loss)]:
    print(f"{name:4} is_leaf={t.is_leaf!s:5}  requires_grad={t.requires_grad}")
# --8<-- [end:is-leaf]

# --8<-- [start:node-hooks]
w = torch.tensor(3.0, requires_grad=True)  # the chapter's graph again, at the same values
b = torch.tensor(1.0, requires_grad=True)
loss = (w * x + b) ** 2  # x = 2: loss = (wx + b)²


def all_nodes(root):
    """Every node of the graph below root, once each, in the order of walk() above."""
    order, stack = [], [root]
    while stack:
        node = stack.pop()
        if node is not None and not any(node is earlier for earlier in order):
            order.append(node)
            stack.extend(reversed([child for child, _ in node.next_functions]))
    return order


def label(node, leaves):
    """The node's class name, and the leaf's name for an AccumulateGrad node."""
    name = type(node).__name__
    return f"{name} ({leaf_name(node.variable, leaves)})" if hasattr(node, "variable") else name


def values(gradients):
    return [None if g is None else g.item() for g in gradients]


log = []
for node in all_nodes(loss.grad_fn):
    name = label(node, {"w": w, "b": b})
    node.register_prehook(  # before the node runs: the gradient it receives
        lambda grad_outputs, name=name: log.append(f"{name:20} receives  {values(grad_outputs)}")
    )
    node.register_hook(  # after it ran: the gradients it passes on, one per input
        lambda grad_inputs, grad_outputs, name=name: log.append(
            f"{name:20} passes on {values(grad_inputs)}"
        )
    )
loss.backward()
print(*log, sep="\n")
# --8<-- [end:node-hooks]

# --8<-- [start:node-hook-replaces]
w.grad = b.grad = None
loss = (w * x + b) ** 2
add_node = loss.grad_fn.next_functions[0][0]  # the node of y = u + b
add_node.register_prehook(lambda grad_outputs: (grad_outputs[0] * 10,))  # a replacement
loss.backward()
print(
    "with the gradient at y multiplied by 10: w.grad =", w.grad.item(), " b.grad =", b.grad.item()
)
# --8<-- [end:node-hook-replaces]

# --8<-- [start:engine-order]
p = torch.tensor(0.5, requires_grad=True)
a = p * 2  # MulBackward0
e = a.exp()  # ExpBackward0, made before...
s = a.sin()  # ...SinBackward0
top = e + s  # AddBackward0: a reaches top along two paths

nodes = all_nodes(top.grad_fn)
first = a.grad_fn._sequence_nr()  # an internal method: fine for a look
ran = []
for node in nodes:
    node.register_prehook(lambda grad_outputs, node=node: ran.append(node))


def dependencies(root):
    """For every node, how many edges of the graph lead into it: the gradients it waits for."""
    count = {}
    for node in all_nodes(root):
        for child, _ in node.next_functions:
            if child is not None:
                count[child] = count.get(child, 0) + 1
    return count


print(f"{'node':20} {'sequence_nr':>12} {'waits for':>10}")
waits = dependencies(top.grad_fn)
for node in nodes:
    number = node._sequence_nr()
    shown = "2**64 - 1" if number == 2**64 - 1 else f"first + {number - first}"
    print(f"{label(node, {'p': p}):20} {shown:>12} {waits.get(node, 0):>10}")

top.backward()
print("walk() visits:  ", [label(node, {"p": p}) for node in nodes])
print("the engine ran: ", [label(node, {"p": p}) for node in ran])
# --8<-- [end:engine-order]

# --8<-- [start:engine-model]
import heapq
import itertools


def engine_order(root):
    """The order PyTorch's engine runs the nodes in, predicted from its two rules."""
    waiting = dependencies(root)
    tie = itertools.count()  # only to break ties in the heap
    ready = [(-root._sequence_nr(), next(tie), root)]  # heapq pops the largest number
    order = []
    while ready:
        _, _, node = heapq.heappop(ready)
        order.append(node)
        for child, _ in node.next_functions:
            if child is not None:
                waiting[child] -= 1  # one more of its gradients has arrived
                if waiting[child] == 0:  # all of them: ready to run
                    heapq.heappush(ready, (-child._sequence_nr(), next(tie), child))
    return order


print("predicted for top: ", [label(node, {"p": p}) for node in engine_order(top.grad_fn)])
print("predicted for loss:", [label(node, {"w": w, "b": b}) for node in engine_order(loss.grad_fn)])
# --8<-- [end:engine-model]
