"""Interview: What does torch.compile do to the backward pass?
(docs/interview/what-does-torch-compile-do-to-the-backward-pass.md)

AOTAutograd's joint graph, its partition into a forward and a backward graph, and what
autograd sees afterwards, on the CPU with compilers that only print (no C++ compiler).
"""
# Each region is read on its own on the page, so imports appear where they are used.
# ruff: noqa: E402

# --8<-- [start:eager]
import torch


def f(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return (x @ w).sin().sin().sum()


def nodes(root) -> list[str]:
    """The names of the autograd graph's nodes, from the output back."""
    names, todo = [], [root]
    while todo:
        node = todo.pop()
        names.append(node.name())
        todo.extend(next_node for next_node, _ in node.next_functions if next_node is not None)
    return names


def saved_by(fn, *args) -> tuple[torch.Tensor, list[str]]:
    """Run fn; list the tensors its graph saves for backward, and whether each is new."""
    inputs = {a.untyped_storage().data_ptr() for a in args}
    saved = []

    def pack(t: torch.Tensor) -> torch.Tensor:
        new = t.untyped_storage().data_ptr() not in inputs  # a view of an input is not
        saved.append(f"{tuple(t.shape)} {'new' if new else 'an input'}")
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = fn(*args)
    return out, saved


torch.manual_seed(0)
x = torch.randn(64, 32)
w = torch.randn(32, 16, requires_grad=True)
out, saved = saved_by(f, x, w)
print("eager graph:", nodes(out.grad_fn))
print("saved for backward:", saved)
# --8<-- [end:eager]


# --8<-- [start:dynamo]
def dynamo_backend(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]):
    """A torch.compile backend that shows the graph Dynamo captured and runs it as is."""
    calls = [n.target for n in gm.graph.nodes if n.op in ("call_function", "call_method")]
    print("Dynamo's graph:", [getattr(target, "__name__", target) for target in calls])
    return gm.forward


out = torch.compile(f, backend=dynamo_backend)(x, w)
print("graph after it:", nodes(out.grad_fn))
# --8<-- [end:dynamo]

# --8<-- [start:aot]
from functorch.compile import aot_function, make_boxed_func, min_cut_rematerialization_partition


def show(name: str):
    """A compiler that prints the graph it is given and runs it unchanged."""

    def compiler(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]):
        print(f"--- the {name} graph")
        print(gm.code.strip())
        return make_boxed_func(gm)  # run it as it is

    return compiler


def partition(joint: torch.fx.GraphModule, joint_inputs, **kwargs):
    """Print the joint graph, then split it as torch.compile does."""
    print("--- the joint graph")
    print(joint.code.strip())
    return min_cut_rematerialization_partition(joint, joint_inputs, **kwargs)


compiled_f = aot_function(
    f, fw_compiler=show("forward"), bw_compiler=show("backward"), partition_fn=partition
)
print("=== the first call")
out = compiled_f(x, w)
print("=== backward()")
out.backward()
# --8<-- [end:aot]

# --8<-- [start:partitioners]
from functorch.compile import default_partition


def kept(name: str, record: dict):
    """A forward compiler that records what the forward graph returns beyond its output."""

    def compiler(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]):
        (returned,) = [node.args[0] for node in gm.graph.nodes if node.op == "output"]
        record[name] = [f"{n.name} {tuple(n.meta['val'].shape)}" for n in returned[1:]]
        return make_boxed_func(gm)

    return compiler


def ops_of(name: str, record: dict):
    """A backward compiler that records the operations of the backward graph."""

    def compiler(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]):
        ops = [n.target.__name__.split(".")[0] for n in gm.graph.nodes if n.op == "call_function"]
        record[name] = ops
        return make_boxed_func(gm)

    return compiler


for partition_fn in (default_partition, min_cut_rematerialization_partition):
    record: dict[str, list[str]] = {}
    compiled_f = aot_function(
        f, kept("saved", record), ops_of("backward", record), partition_fn=partition_fn
    )
    compiled_f(x, w).backward()
    print(f"{partition_fn.__name__}:")
    print("  saved:        ", record["saved"])
    print("  backward runs:", record["backward"])
# --8<-- [end:partitioners]

# --8<-- [start:compiled]
torch.compiler.reset()  # forget the graphs compiled above
compiled = torch.compile(f, backend="aot_eager")  # AOTAutograd, then run the graphs as they are
out, saved = saved_by(compiled, x, w)
print("compiled graph:", nodes(out.grad_fn))
print("saved for backward:", saved)
w.grad = None
out.backward()
compiled_grad = w.grad
w.grad = None
f(x, w).backward()
print("gradient equal to eager:", torch.allclose(compiled_grad, w.grad))
# --8<-- [end:compiled]


# --8<-- [start:graph-break]
def f_with_break(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    h = (x @ w).sin()
    torch._dynamo.graph_break()  # Dynamo stops here and compiles two graphs
    return h.sin().sum()


out = torch.compile(f_with_break, backend="aot_eager")(x, w)
print("graph:", nodes(out.grad_fn))
# --8<-- [end:graph-break]
