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
    one_pass = 2 * x.detach().item()  # d(x^2)/dx = 2x
    expected = {"after_first": one_pass, "after_second": 2 * one_pass, "after_reset": 0.0}
    # A reading that is x.grad itself (the tensor, not a number) changes with it: the
    # second backward() adds into it in place, and zero_() zeroes it in place.
    grad = x.grad
    shared = [
        name
        for name, value in readings.items()
        if isinstance(value, torch.Tensor)
        and isinstance(grad, torch.Tensor)
        and value.data_ptr() == grad.data_ptr()
        and abs(float(value) - expected[name]) > 1e-6
    ]
    if shared:
        return (
            f"Not quite: expected {', '.join(f'{expected[n]:g}' for n in shared)} for "
            f"{', '.join(shared)}, got {', '.join(f'{float(readings[n]):g}' for n in shared)}. "
            f"{', '.join(shared)} {'is' if len(shared) == 1 else 'are'} the tensor x.grad "
            "itself, not a copy of its value: the second backward() and zero_() changed it "
            "in place afterwards. Store x.grad.item(), a Python number."
        )
    readings_so_far = readings["after_first"] is not None and readings["after_second"] is not None
    if readings_so_far and readings["after_reset"] is None and grad is None:
        return (
            "Not quite: expected after_reset = 0, got None. x.grad is None, so the gradient "
            "was removed (x.grad = None) instead of reset in place: use x.grad.zero_(), "
            "then x.grad.item()."
        )
    missing = [name for name, value in readings.items() if value is None]
    if missing:
        verb = "is" if len(missing) == 1 else "are"
        return f"Not done yet: {', '.join(missing)} {verb} still None. Use x.grad.item()."
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
