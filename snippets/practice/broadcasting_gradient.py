"""Exercise D.3: the broadcasting gradient.

Run it: python snippets/practice/broadcasting_gradient.py
"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402, F811

# --8<-- [start:starter]
import torch


def unbroadcast(grad: torch.Tensor, shape: tuple[int, ...]) -> torch.Tensor:
    """Sum grad (shaped like a broadcast result) down to shape, the shape of the input."""
    shape = tuple(shape)
    ...  # replace ...: sum away the dimensions broadcasting added in front,
    ...  # replace ...: then sum the dimensions where the input had size 1
    return ...  # replace ... with the summed gradient


# When it works, try it: a (4, 1) input broadcast to (4, 3) needs a (4, 1) gradient.
# grad = torch.arange(12.0).reshape(4, 3)
# print(unbroadcast(grad, (4, 1)))
# --8<-- [end:starter]

# --8<-- [start:solution]
import torch


def unbroadcast(grad: torch.Tensor, shape: tuple[int, ...]) -> torch.Tensor:
    """Sum grad (shaped like a broadcast result) down to shape, the shape of the input."""
    shape = tuple(shape)
    extra = grad.dim() - len(shape)
    if extra > 0:  # the guard matters: grad.sum(dim=()) would sum over everything
        grad = grad.sum(dim=tuple(range(extra)))
    copied = tuple(i for i, size in enumerate(shape) if size == 1 and grad.shape[i] != 1)
    if copied:
        grad = grad.sum(dim=copied, keepdim=True)
    return grad


grad = torch.arange(12.0).reshape(4, 3)
print("for a (4, 1) input:", unbroadcast(grad, (4, 1)).tolist())
print("for a (3,) input:  ", unbroadcast(grad, (3,)).tolist())
print("for a () input:    ", unbroadcast(grad, ()).tolist())

# The same as autograd, for an input of shape (2, 1, 3) broadcast to (2, 4, 3):
a = torch.zeros(2, 1, 3, requires_grad=True)
upstream = torch.randn(2, 4, 3)
(a + torch.zeros(2, 4, 3)).backward(upstream)
print("equal to a.grad:", torch.equal(unbroadcast(upstream, a.shape), a.grad))
# --8<-- [end:solution]

# --8<-- [start:check]
# Checks unbroadcast on eight pairs of shapes against autograd: an input of each shape
# is broadcast to the result's shape, and a.grad is what unbroadcast must return.
import torch

CASES = [  # (the input's shape, the shape it is broadcast to)
    ((4, 1), (4, 3)),
    ((3,), (4, 3)),
    ((1, 3), (2, 4, 3)),
    ((2, 1, 3), (2, 4, 3)),
    ((), (2, 3)),
    ((5, 1, 1), (5, 4, 3)),
    ((1, 1), (3, 4)),
    ((2, 3), (2, 3)),  # no broadcast at all: the gradient is unchanged
]


def expected_gradient(shape: tuple[int, ...], grad: torch.Tensor) -> torch.Tensor:
    a = torch.zeros(shape, dtype=grad.dtype, requires_grad=True)
    (a + torch.zeros(grad.shape, dtype=grad.dtype)).backward(grad)  # a is broadcast
    return a.grad


def first(t: torch.Tensor) -> list[float]:
    """The first four entries, rounded, for a message."""
    return [round(v, 4) for v in t.flatten().tolist()[:4]]


def diagnose(shape: tuple, out_shape: tuple, grad: torch.Tensor, got: object) -> str | None:
    expected = expected_gradient(shape, grad)
    where = f"for an input of shape {shape} broadcast to {out_shape}"
    if got is Ellipsis or got is None:
        return "Not done yet: unbroadcast returns nothing yet; replace the ... in it."
    if not isinstance(got, torch.Tensor):
        return f"Not quite: {where}, expected a tensor, got {type(got).__name__}."
    got = got.detach().to(expected.dtype)
    if got.shape != expected.shape:
        head = (
            f"Not quite: {where}, expected a gradient of shape {tuple(expected.shape)},"
            f" got shape {tuple(got.shape)}."
        )
        if got.dim() == expected.dim():
            unsummed = [i for i in range(got.dim()) if got.shape[i] != expected.shape[i]]
            if all(expected.shape[i] == 1 and got.shape[i] == grad.shape[i] for i in unsummed):
                return head + (
                    f" Dimension {', '.join(map(str, unsummed))} has size 1 in the"
                    " input but was not summed: sum it with keepdim=True."
                )
        if got.dim() == 0:
            return head + (
                " It is a single number: a sum over every dimension. Note that"
                " grad.sum(dim=()) with an empty tuple sums over all of them."
            )
        if got.numel() == expected.numel() and torch.allclose(
            got.reshape(expected.shape), expected
        ):
            return head + (
                " The numbers are right, but a dimension of size 1 was dropped:"
                " sum the expanded dimensions with keepdim=True."
            )
        if got.dim() > len(shape):
            return head + (
                " Some dimensions are still there: sum away the leading ones that"
                " broadcasting added, and the expanded ones of size 1."
            )
        return head + (
            " Broadcasting lines shapes up from the right: sum the leading"
            " dimensions, then the ones where the input has size 1."
        )
    if torch.allclose(got, expected, atol=1e-5):
        return None
    copies = grad.numel() // max(expected.numel(), 1)
    if copies > 1 and torch.allclose(got * copies, expected, atol=1e-5):
        return (
            f"Not quite: {where}, expected {first(expected)} (first entries),"
            f" got {first(got)}: the mean instead of the sum. Every copy adds its"
            " whole gradient."
        )
    return (
        f"Not quite: {where}, expected {first(expected)} (first entries),"
        f" got {first(got)}: the shape is right but the sums are over the wrong"
        " dimensions."
    )


def check() -> str:
    function = globals().get("unbroadcast")
    if not callable(function):
        return "Not done yet: run the cell above first; it defines unbroadcast."
    generator = torch.Generator().manual_seed(0)
    for shape, out_shape in CASES:
        grad = torch.randn(out_shape, generator=generator, dtype=torch.float64)
        try:
            got = function(grad.clone(), shape)
        except Exception as error:  # the learner's function may raise anything
            return (
                f"Not quite: for an input of shape {shape} broadcast to {out_shape},"
                f" expected a gradient of shape {shape}, got an error:"
                f" {type(error).__name__}: {error}. Check the shape after each sum; note"
                " that grad.sum(dim=()), with an empty tuple, sums over every dimension."
            )
        verdict = diagnose(shape, out_shape, grad, got)
        if verdict is not None:
            return verdict
    return "Correct: unbroadcast matches autograd on all eight pairs of shapes."


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]
