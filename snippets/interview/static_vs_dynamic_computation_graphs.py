"""Interview: static vs dynamic computation graphs.

docs/interview/static-vs-dynamic-computation-graphs.md
"""

# --8<-- [start:dynamic]
import torch


def f(x):
    if x.sum() > 0:  # a Python if on the data
        return x * 2
    return -x


for values in ([1.0, 2.0], [-1.0, -2.0]):
    x = torch.tensor(values, requires_grad=True)
    y = f(x)
    y.sum().backward()
    print(f"x = {values}: recorded {y.grad_fn.name()}, x.grad = {x.grad.tolist()}")
# --8<-- [end:dynamic]

# --8<-- [start:trace]
# Traced with a positive sum. (check_trace=False skips a second trace made to check the
# first, which would repeat each warning.)
traced = torch.jit.trace(f, torch.tensor([1.0, 2.0]), check_trace=False)

x = torch.tensor([-1.0, -2.0])  # a negative sum: f takes the other branch
print("f(x)      =", f(x).tolist())
print("traced(x) =", traced(x).tolist())
# --8<-- [end:trace]

# --8<-- [start:compile]
graphs = []


def counting_backend(graph_module, example_inputs):
    """A torch.compile backend that keeps each graph it is given, then runs it as is."""
    graphs.append(graph_module)
    return graph_module.forward


compiled_f = torch.compile(f, backend=counting_backend)
for values in ([1.0, 2.0], [-1.0, -2.0], [3.0, 4.0]):
    x = torch.tensor(values, requires_grad=True)
    y = compiled_f(x)
    y.sum().backward()
    print(f"x = {values}: x.grad = {x.grad.tolist()}, graphs compiled so far: {len(graphs)}")

for graph in graphs:  # the operations of each graph, by name
    names = [
        node.target if node.op == "call_method" else node.target.__name__
        for node in graph.graph.nodes
        if node.op in ("call_function", "call_method")
    ]
    print("graph:", names)
# --8<-- [end:compile]

# --8<-- [start:guard]
compiled_graphs = []


def keep(graph_module, example_inputs):
    compiled_graphs.append(graph_module)
    return graph_module.forward


@torch.compile(backend=keep)
def scale(x, double: bool):
    if double:  # a Python bool: torch.compile specialises on it and guards it
        return x * 2
    return x + 1


x = torch.tensor([1.0, 2.0])
for double in (True, False, True, False):
    scale(x, double)
    print(f"double={double}: graphs compiled so far: {len(compiled_graphs)}")
# --8<-- [end:guard]


# --8<-- [start:cond]
def f_cond(x):
    """f again, with its branch written as torch.cond: both branches are functions."""
    return torch.cond(x.sum() > 0, lambda x: x * 2, lambda x: -x, (x,))


cond_graphs = []


def keep_cond(graph_module, example_inputs):
    cond_graphs.append(graph_module)
    return graph_module.forward


# fullgraph=True: one graph for the whole function, or an error (no graph breaks).
compiled_cond = torch.compile(f_cond, fullgraph=True, backend=keep_cond)
for values in ([1.0, 2.0], [-1.0, -2.0], [3.0, 4.0]):
    x = torch.tensor(values, requires_grad=True)
    y = compiled_cond(x)
    y.sum().backward()
    print(f"x = {values}: x.grad = {x.grad.tolist()}, graphs compiled so far: {len(cond_graphs)}")


def operations(graph_module):
    return [
        node.target if node.op == "call_method" else node.target.__name__
        for node in graph_module.graph.nodes
        if node.op in ("call_function", "call_method")
    ]


print("the graph:", operations(cond_graphs[0]))
for name, branch in cond_graphs[0].named_children():  # the branches, kept in the graph
    print(f"  {name}:", operations(branch))
# --8<-- [end:cond]
