"""Exercise 2.4: accumulation and reset. Run it: python snippets/practice/accumulation.py"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402

# --8<-- [start:starter]
import torch

x = torch.tensor(3.0, requires_grad=True)

# First pass: build y = x ** 2 and call y.backward().
...
after_first = None  # replace None with x.grad.item()

# Second pass: build y = x ** 2 again and call y.backward(), without clearing x.grad.
...
after_second = None  # replace None with x.grad.item()

# Reset the gradient in place.
...
after_reset = None  # replace None with x.grad.item()

print(after_first, after_second, after_reset)
# --8<-- [end:starter]

# --8<-- [start:solution]
import torch

x = torch.tensor(3.0, requires_grad=True)

y = x**2
y.backward()
after_first = x.grad.item()

y = x**2  # a new graph: backward() freed the first one
y.backward()
after_second = x.grad.item()

x.grad.zero_()
after_reset = x.grad.item()

print(after_first, after_second, after_reset)
# --8<-- [end:solution]

# --8<-- [start:check]
# Checks your three readings of x.grad for y = x^2, from your own x:
# one pass gives 2x, a second pass adds another 2x, and zero_() sets it to 0.
# t.detach() below means t's values without its graph, so the check records nothing.
import torch


def check() -> str:
    x = globals().get("x")
    readings = {
        name: globals().get(name) for name in ("after_first", "after_second", "after_reset")
    }
    if not isinstance(x, torch.Tensor):
        return "Not done yet: x is not defined; run the cell above."
    missing = [name for name, value in readings.items() if value is None]
    if missing:
        verb = "is" if len(missing) == 1 else "are"
        return f"Not done yet: {', '.join(missing)} {verb} still None. Use x.grad.item()."
    one_pass = 2 * x.detach().item()  # d(x^2)/dx = 2x
    expected = {"after_first": one_pass, "after_second": 2 * one_pass, "after_reset": 0.0}
    wrong = [
        f"{name}: expected {expected[name]:g}, got {float(readings[name]):g}"
        for name in expected
        if abs(float(readings[name]) - expected[name]) > 1e-6
    ]
    if not wrong:
        return (
            f"Correct: {one_pass:g} after one pass, {2 * one_pass:g} after two "
            "(the gradients added up), and 0 after zero_()."
        )
    return "Not quite: " + "; ".join(wrong) + "."


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]
