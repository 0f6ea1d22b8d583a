"""Interview: automatic vs symbolic vs numerical differentiation.

docs/interview/automatic-vs-symbolic-vs-numerical-differentiation.md
"""

# ruff: noqa: E402

# --8<-- [start:numerical]
import torch


def f(x):
    return 1 / (1 + x * x)  # by hand: f'(x) = -2x / (1 + x^2)^2, so f'(0.5) = -0.64


x0 = torch.tensor(0.5, dtype=torch.float64)
exact = -0.64

for h in [1e-1, 1e-2, 1e-3, 1e-5, 1e-7, 1e-9, 1e-11]:
    estimate = (f(x0 + h) - f(x0 - h)) / (2 * h)  # central difference
    print(f"h = {h:.0e}: error = {abs(estimate.item() - exact):.0e}")
# --8<-- [end:numerical]

# --8<-- [start:automatic]
x = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
(grad,) = torch.autograd.grad(f(x), x)
print(f"autograd: {grad.item():.4g} | error: {abs(grad.item() - exact):.0e}")
# --8<-- [end:automatic]

# --8<-- [start:symbolic]
import sympy

s = sympy.Symbol("x")
leaf = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
expression, program = s, leaf
for depth in range(1, 6):
    expression = expression * sympy.sin(expression)  # g(g(...)) with g(u) = u sin(u)
    program = program * torch.sin(program)  # the same, run by PyTorch at x = 2
    derivative = sympy.diff(expression, s)
    nodes, stack = set(), [program.grad_fn]  # count the nodes of the recorded graph
    while stack:
        node = stack.pop()
        if node is not None and node not in nodes:
            nodes.add(node)
            stack.extend(next_node for next_node, _ in node.next_functions)
    print(
        f"depth {depth}: expression {sympy.count_ops(expression):3} operations, "
        f"its derivative {sympy.count_ops(derivative):3}; autograd graph {len(nodes):2} nodes"
    )
# --8<-- [end:symbolic]

# --8<-- [start:agree]
import math

symbolic = float(derivative.subs(s, 2.0))  # the formula, evaluated at x = 2
(automatic,) = torch.autograd.grad(program, leaf)
print(f"symbolic {symbolic:.4g}, autograd {automatic.item():.4g}")
print("equal to 12 significant digits:", math.isclose(symbolic, automatic.item(), rel_tol=1e-12))
# --8<-- [end:agree]
