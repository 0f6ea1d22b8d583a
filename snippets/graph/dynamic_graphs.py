"""Part 1, chapter 4: a new graph on every run.

Each region is included by docs/graph/dynamic-graphs.md. The file also runs top to
bottom on its own: `python snippets/graph/dynamic_graphs.py`. The calls that fail on
purpose live in the page, in `raises=` blocks.
"""
# Each region imports what it first needs, where the page shows it.
# ruff: noqa: E402

# --8<-- [start:anew]
import torch

w = torch.tensor(2.0, requires_grad=True)


def model(x):
    return w * x + 1


first = model(torch.tensor(1.0))
second = model(torch.tensor(1.0))  # the same code, the same input


def below(node):
    """The node that made the first input of node."""
    return node.next_functions[0][0]


print("first: ", first.grad_fn.name(), "<-", below(first.grad_fn).name())
print("second:", second.grad_fn.name(), "<-", below(second.grad_fn).name())
print("the same AddBackward0:  ", first.grad_fn is second.grad_fn)
print("the same MulBackward0:  ", below(first.grad_fn) is below(second.grad_fn))
print("the same AccumulateGrad:", below(below(first.grad_fn)) is below(below(second.grad_fn)))
# --8<-- [end:anew]

# --8<-- [start:branch]
w_pos = torch.tensor(3.0, requires_grad=True)  # used when x > 0
w_neg = torch.tensor(0.5, requires_grad=True)  # used otherwise


def f(x):
    if x > 0:  # plain Python: it reads x's value and picks one branch
        return w_pos * x
    return (w_neg * x) ** 2


def path(y):
    """The operations recorded for y, from y down (following the first input)."""
    names, node = [], y.grad_fn
    while node is not None and not hasattr(node, "variable"):
        names.append(node.name())
        node = node.next_functions[0][0]
    return " <- ".join(names)


# --8<-- [end:branch]

# --8<-- [start:run-positive]
y_pos = f(torch.tensor(2.0))
y_pos.backward()

print("y =", y_pos.item(), "| recorded:", path(y_pos))
print("w_pos.grad:", w_pos.grad)
print("w_neg.grad:", w_neg.grad)
# --8<-- [end:run-positive]

# --8<-- [start:run-negative]
w_pos.grad = None  # forget the first run's gradient (chapter 5 of Part 2)

y_neg = f(torch.tensor(-4.0))
y_neg.backward()

print("y =", y_neg.item(), "| recorded:", path(y_neg))
print("w_pos.grad:", w_pos.grad)
print("w_neg.grad:", w_neg.grad)
# --8<-- [end:run-negative]

# --8<-- [start:loop]
w = torch.tensor(2.0, requires_grad=True)


def grow(x):
    """Multiply by w until the value reaches 10: how often depends on x."""
    y = x
    while y < 10:
        y = y * w
    return y


def multiplications(y):
    """How many multiplications the graph of y recorded, one after the other."""
    count, node = 0, y.grad_fn
    while node is not None:
        count += 1
        node = node.next_functions[0][0]  # the previous y (None for the input x)
    return count


for x_value in [3.0, 1.0]:
    w.grad = None  # start each run without a gradient
    y = grow(torch.tensor(x_value))
    n = multiplications(y)
    y.backward()
    by_hand = n * x_value * w.item() ** (n - 1)  # dy/dw = n x w^(n-1)
    print(
        f"x = {x_value}: {n} multiplications, y = {y.item()}, w.grad = {w.grad.item()}, "
        f"by hand {by_hand}"
    )
# --8<-- [end:loop]

# --8<-- [start:no-loop]
big = grow(torch.tensor(20.0))  # already 10 or more: the loop body never runs

print("requires_grad:", big.requires_grad, "| grad_fn:", big.grad_fn)
# --8<-- [end:no-loop]


# --8<-- [start:static-g]
def g(x):
    if x.sum() > 0:  # an if on the data, as in f above
        return x * 2
    return -x


for values in ([1.0, 2.0], [-1.0, -2.0]):
    x = torch.tensor(values, requires_grad=True)
    y = g(x)
    y.sum().backward()
    print(f"g({values}) = {y.tolist()} | recorded: {path(y)} | x.grad = {x.grad.tolist()}")
# --8<-- [end:static-g]

# --8<-- [start:jit-trace]
# Traced on an example whose sum is positive. (check_trace=False skips a second trace
# that torch.jit.trace makes to check the first one, which would repeat each warning.)
traced = torch.jit.trace(g, torch.tensor([1.0, 2.0]), check_trace=False)
print(traced.code.rstrip())  # the program the trace recorded

x = torch.tensor([-1.0, -2.0], requires_grad=True)  # a negative sum
y = traced(x)
y.sum().backward()
print("g(x)      =", g(x).tolist())
print("traced(x) =", y.tolist(), "| x.grad =", x.grad.tolist())
# --8<-- [end:jit-trace]


# --8<-- [start:jit-script]
import warnings

# Its deprecation warning comes once per process, and torch itself may have used
# scripting already: hidden by its message, so every run prints the same.
warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")


@torch.jit.script  # compiles the function's source code: the if is kept
def g_scripted(x):
    if x.sum() > 0:  # the same g as above
        return x * 2
    return -x


print(g_scripted.code.rstrip())
for values in ([1.0, 2.0], [-1.0, -2.0]):
    x = torch.tensor(values, requires_grad=True)
    y = g_scripted(x)
    y.sum().backward()
    print(f"g_scripted({values}) = {y.tolist()} | recorded: {path(y)} | x.grad = {x.grad.tolist()}")
# --8<-- [end:jit-script]

# --8<-- [start:compile]
graphs = []  # every graph torch.compile hands to the backend below


def keep_graph(graph_module, example_inputs):
    """A torch.compile backend: keep the captured graph, then run it as it is."""
    graphs.append(graph_module)
    return graph_module.forward


def ops(graph_module):
    """The names of the operations in a captured graph, in order."""
    return [
        node.target if node.op == "call_method" else node.target.__name__
        for node in graph_module.graph.nodes
        if node.op in ("call_function", "call_method")
    ]


compiled_g = torch.compile(g, backend=keep_graph)
for values in ([1.0, 2.0], [-1.0, -2.0], [3.0, 4.0]):
    x = torch.tensor(values, requires_grad=True)
    y = compiled_g(x)
    y.sum().backward()
    print(f"x = {values}: y = {y.tolist()}, x.grad = {x.grad.tolist()}, graphs: {len(graphs)}")

for graph_module in graphs:
    print("graph:", ops(graph_module))
# --8<-- [end:compile]

# --8<-- [start:explain]
import torch._dynamo

report = torch._dynamo.explain(g)(torch.tensor([1.0, 2.0]))
print("graphs:", report.graph_count, "| graph breaks:", report.graph_break_count)
print("reason:", report.break_reasons[0].reason)
# --8<-- [end:explain]

# --8<-- [start:guard]
graphs.clear()


def scale(x, double):
    if double:  # a Python bool, not a tensor: compiled for one value, and guarded
        return x * 2
    return -x


compiled_scale = torch.compile(scale, backend=keep_graph)
x = torch.tensor([1.0, 2.0])
for double in (True, False, True, False):
    print(f"double={double}: {compiled_scale(x, double).tolist()}, graphs: {len(graphs)}")

report = torch._dynamo.explain(scale)(x, True)
checks = [code for guard in report.out_guards for code in guard.code_list or []]
print("the guard on double:", [code for code in checks if "double" in code])
# --8<-- [end:guard]

# --8<-- [start:int-argument]
graphs.clear()


def times(x, n):
    return x * n  # n only enters the arithmetic


def power(x, n):
    y = x
    for _ in range(n - 1):  # n decides how often the loop runs
        y = y * x
    return y


x = torch.tensor([1.0, 2.0])
for function in (times, power):
    graphs.clear()
    compiled = torch.compile(function, backend=keep_graph)
    counts = []
    for n in (5, 6, 7, 2):
        compiled(x, n)
        counts.append(len(graphs))
    print(f"{function.__name__}: graphs after n = 5, 6, 7, 2: {counts}")
    if function is times:
        for graph_module in graphs:
            inputs = [node.name for node in graph_module.graph.nodes if node.op == "placeholder"]
            multiply = next(node for node in graph_module.graph.nodes if node.op == "call_function")
            print(f"  graph inputs {inputs}, computes mul{tuple(str(a) for a in multiply.args)}")
# --8<-- [end:int-argument]

# --8<-- [start:cond]
graphs.clear()


def g_cond(x):
    """g again, with its if written as torch.cond: both branches are functions."""
    return torch.cond(x.sum() > 0, lambda x: x * 2, lambda x: -x, (x,))


compiled_cond = torch.compile(g_cond, backend=keep_graph, fullgraph=True)  # no graph breaks
for values in ([1.0, 2.0], [-1.0, -2.0], [3.0, 4.0]):
    x = torch.tensor(values, requires_grad=True)
    y = compiled_cond(x)
    y.sum().backward()
    print(
        f"x = {values}: y = {y.tolist()}, x.grad = {x.grad.tolist()}, "
        f"graphs: {len(graphs)}, recorded: {path(y)}"
    )

print("graph:", ops(graphs[0]))
for name, branch in graphs[0].named_children():  # the two branches, inside the graph
    print(f"  {name}:", ops(branch))
# --8<-- [end:cond]

# --8<-- [start:export]
import contextlib
import io

import torch._dynamo.exc


class G(torch.nn.Module):  # torch.export takes a module
    def forward(self, x):
        return g(x)


try:
    with contextlib.redirect_stderr(io.StringIO()):  # export also prints a partial graph there
        torch.export.export(G(), (torch.tensor([1.0, 2.0]),), strict=True)
except torch._dynamo.exc.Unsupported as error:
    lines = [line.strip() for line in str(error).splitlines()]
    print(f"{type(error).__name__}: {lines[0]}")  # the message's first line, and its hint:
    print(*[line for line in lines if "torch.cond" in line], sep="\n")
# --8<-- [end:export]


# --8<-- [start:export-cond]
class GCond(torch.nn.Module):
    def forward(self, x):
        return g_cond(x)


exported = torch.export.export(GCond(), (torch.tensor([1.0, 2.0]),), strict=True)
print("the exported graph:", ops(exported.graph_module))
print("run on [-1.0, -2.0]:", exported.module()(torch.tensor([-1.0, -2.0])).tolist())
# --8<-- [end:export-cond]
