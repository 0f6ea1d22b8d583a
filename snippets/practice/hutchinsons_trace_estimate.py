"""Exercise D.13: Hutchinson's estimate of a Hessian's trace.
Run it: python snippets/practice/hutchinsons_trace_estimate.py"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402, F811

# --8<-- [start:starter]
import warnings

import torch

# PyTorch warns from inside torch the first time forward mode runs (not your code).
warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")

torch.manual_seed(0)
X = torch.randn(8, 3, dtype=torch.float64)  # 8 examples, 3 features
Y = torch.randn(8, dtype=torch.float64)  # their targets


def loss(w: torch.Tensor) -> torch.Tensor:
    """A 3-3-1 tanh network whose 16 parameters are the entries of w: its mean squared
    error, plus the penalty 0.5 * |w|^2 (weight decay)."""
    W1, b1, w2, b2 = w[:9].reshape(3, 3), w[9:12], w[12:15], w[15]
    prediction = torch.tanh(X @ W1 + b1) @ w2 + b2
    return ((prediction - Y) ** 2).mean() + 0.5 * (w**2).sum()


w = torch.randn(16, dtype=torch.float64)  # the point


def hutchinson_trace(f, w: torch.Tensor, num_samples: int) -> torch.Tensor:
    """An estimate of the trace of the Hessian of f at w, from num_samples products of
    the Hessian with random vectors v of +1 and -1. It never builds the Hessian."""
    return ...  # replace ...: the mean, over num_samples vectors v, of v^T (H v)


# When it works: print(hutchinson_trace(loss, w, 64))
# --8<-- [end:starter]

# --8<-- [start:solution]
import warnings

import torch

# PyTorch warns from inside torch the first time forward mode runs (not your code).
warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")

torch.manual_seed(0)
X = torch.randn(8, 3, dtype=torch.float64)  # 8 examples, 3 features
Y = torch.randn(8, dtype=torch.float64)  # their targets


def loss(w: torch.Tensor) -> torch.Tensor:
    """A 3-3-1 tanh network whose 16 parameters are the entries of w: its mean squared
    error, plus the penalty 0.5 * |w|^2 (weight decay)."""
    W1, b1, w2, b2 = w[:9].reshape(3, 3), w[9:12], w[12:15], w[15]
    prediction = torch.tanh(X @ W1 + b1) @ w2 + b2
    return ((prediction - Y) ** 2).mean() + 0.5 * (w**2).sum()


w = torch.randn(16, dtype=torch.float64)  # the point


def hvp(f, w: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """H v: the JVP of the gradient function in the direction v (forward over reverse)."""
    return torch.func.jvp(torch.func.grad(f), (w,), (v,))[1]


def hutchinson_trace(f, w: torch.Tensor, num_samples: int) -> torch.Tensor:
    """An estimate of the trace of the Hessian of f at w, from num_samples products of
    the Hessian with random vectors v of +1 and -1. It never builds the Hessian."""
    total = torch.zeros((), dtype=w.dtype)
    for _ in range(num_samples):
        v = torch.randint(0, 2, w.shape).to(w.dtype) * 2 - 1  # +1 or -1, half and half
        total = total + v @ hvp(f, w, v)  # v^T H v: one number
    return total / num_samples


torch.manual_seed(1)
m = 64
estimate = hutchinson_trace(loss, w, m)

# Only to check the estimate: the whole 16 x 16 Hessian, and what the maths predicts.
H = torch.func.hessian(loss)(w)
v = torch.randint(0, 2, (16,)).double() * 2 - 1
print("H v from jvp over grad equals H @ v:", torch.allclose(hvp(loss, w, v), H @ v))
off_diagonal = H - torch.diag(H.diag())
sd_rademacher = (2 * off_diagonal.square().sum()).sqrt()  # of one sample v^T H v
sd_gaussian = (2 * H.square().sum()).sqrt()
print(f"exact trace, from torch.func.hessian: {H.trace():.4g}")
print(f"Hutchinson's estimate from {m} vectors: {estimate:.4g}")
print(f"its standard deviation, predicted: {sd_rademacher / m**0.5:.3g}")

# One sample's spread, predicted and measured over 10000 vectors of each kind:
torch.manual_seed(2)
rademacher = torch.randint(0, 2, (10000, 16)).double() * 2 - 1
gaussian = torch.randn(10000, 16, dtype=torch.float64)
for name, vs, predicted in [
    ("Rademacher", rademacher, sd_rademacher),
    ("Gaussian", gaussian, sd_gaussian),
]:
    samples = ((vs @ H) * vs).sum(dim=1)  # v^T H v for every row v
    print(
        f"{name:<10} one sample: mean {samples.mean():.4g}, standard deviation"
        f" {samples.std():.3g} (predicted {predicted:.3g})"
    )
# --8<-- [end:solution]

# --8<-- [start:check]
# Checks your hutchinson_trace on the exercise's loss, at a point of the check's own, and
# on a quadratic of the check's own, against the exact trace (torch.func.hessian; for the
# quadratic 0.5 w.A w + b.w, the trace of A). The tolerance is 4 standard deviations of an
# estimate from that many samples, computed from the Hessian (Gaussian vectors, which
# spread more, pass too). Then it runs your function under 8 seeds: the estimates must
# vary as a mean of that many random samples does, no more (one v reused), no less (no
# random v at all).
# While your function runs, the functions that build a whole Hessian or Jacobian raise.
import contextlib

import torch

_BUILDERS = {
    "torch.func.hessian": (torch.func, "hessian"),
    "torch.func.jacfwd": (torch.func, "jacfwd"),
    "torch.func.jacrev": (torch.func, "jacrev"),
    "torch.autograd.functional.hessian": (torch.autograd.functional, "hessian"),
    "torch.autograd.functional.jacobian": (torch.autograd.functional, "jacobian"),
}


class _BuiltH(Exception):
    """Raised in place of a function that builds a whole Hessian; its text is the name."""


@contextlib.contextmanager
def _hessians_refused(namespace: dict):
    """Replace the Hessian builders, in torch and in the notebook's names, while it runs."""
    originals = {name: getattr(module, attr) for name, (module, attr) in _BUILDERS.items()}

    def refuse(name):
        def stand_in(*args, **kwargs):
            raise _BuiltH(name)

        return stand_in

    imported = {
        key: name
        for key, value in list(namespace.items())
        for name, original in originals.items()
        if value is original
    }
    try:
        for name, (module, attr) in _BUILDERS.items():
            setattr(module, attr, refuse(name))
        for key, name in imported.items():
            namespace[key] = refuse(name)
        yield
    finally:
        for name, (module, attr) in _BUILDERS.items():
            setattr(module, attr, originals[name])
        for key, name in imported.items():
            namespace[key] = originals[name]


_generator = torch.Generator().manual_seed(0)
_S = 0.2 * torch.randn(16, 16, generator=_generator, dtype=torch.float64)
_A = torch.diag(torch.linspace(-6.0, 2.0, 16, dtype=torch.float64)) + _S + _S.T  # symmetric
_B = torch.randn(16, generator=_generator, dtype=torch.float64)
_OFF = _S + _S.T - torch.diag((_S + _S.T).diag())  # symmetric, zero diagonal


def _point(w):
    """A point of the check's own for the exercise's loss, where it curves more than at w."""
    point = 0.1 * w.detach().clone()
    point[12:15] = 2.0  # the output weights w2: large, so the hidden layer's curvature shows
    return point


def _coupled(w):
    """0.5 w.C w, C with a zero diagonal: its trace is 0, and every v^T C v varies."""
    return 0.5 * w @ (_OFF @ w)


def _quadratic(w):
    """0.5 w.A w + b.w: its Hessian is A everywhere (A is symmetric)."""
    return 0.5 * w @ (_A @ w) + _B @ w


def _spreads(H: torch.Tensor) -> tuple[float, float]:
    """The standard deviation of one sample v^T H v: Rademacher, then Gaussian."""
    off_diagonal = H - torch.diag(H.diag())
    return (2 * off_diagonal.square().sum()).sqrt().item(), (2 * H.square().sum()).sqrt().item()


def _number(value) -> float | None:
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        return value.item()
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def _diagnose(f, w, H, got: float, m: int, tolerance: float) -> str:
    """Which plausible wrong estimator gives got, with the spread of a mean of m samples."""
    torch.manual_seed(3)
    n = H.shape[0]
    rademacher = torch.randint(0, 2, (4000, n)).to(H.dtype) * 2 - 1
    draws = torch.cat([rademacher, torch.randn(4000, n, dtype=H.dtype)])
    norms = (draws @ H).norm(dim=1)
    g = torch.func.grad(f)(w)
    trace = H.trace().item()
    candidates = [
        (
            0.0,
            g.norm().item(),
            "that is the mean of v^T g, with g the gradient: its expectation is 0; take the"
            " product with H v, the derivative of g along v",
        ),
        (
            norms.mean().item(),
            norms.std().item(),
            "that is the mean of |H v|, a length, not v^T H v: take the dot product of v with H v",
        ),
        (
            H.square().sum().item(),
            norms.square().std().item(),
            "that is the mean of |H v|^2, whose expectation is the sum of the squares of H's"
            " entries: take the dot product of v with H v",
        ),
    ]
    for mean, spread, why in candidates:
        if abs(got - mean) <= 4 * spread / m**0.5 + 1e-9:
            return why
    if abs(got - m * trace) <= m * tolerance:
        return f"that is about {m} times the trace: divide the sum by num_samples"
    return "average v^T (H v) over num_samples random vectors v of +1 and -1"


def check() -> str:
    function = globals().get("hutchinson_trace")
    page_loss, page_w = globals().get("loss"), globals().get("w")
    if not callable(function) or not callable(page_loss):
        return "Not done yet: run the starter cell; it defines loss and hutchinson_trace."
    m = 64
    cases = [
        ("the exercise's loss, at a point of the check's own", page_loss, _point(page_w), None),
        (
            "a quadratic of the check's own, 0.5 w.A w + b.w",
            _quadratic,
            torch.ones(16).double(),
            _A,
        ),
    ]
    for name, f, at, known_hessian in cases:
        H = torch.func.hessian(f)(at) if known_hessian is None else known_hessian
        trace = H.trace().item()
        tolerance = 4 * max(_spreads(H)) / m**0.5
        torch.manual_seed(0)
        try:
            with _hessians_refused(globals()):
                value = function(f, at.clone(), m)
        except _BuiltH as built:
            return (
                f"Not quite: on {name}, expected an estimate of the trace {trace:.4g} from"
                f" Hessian-vector products only, got a call to {built}, which builds the whole"
                " matrix: compute H v with torch.func.jvp(torch.func.grad(f), (w,), (v,))."
            )
        except Exception as error:  # the learner's function may raise anything
            text = str(error).splitlines()[0][:160].rstrip(".") if str(error) else ""
            return (
                f"Not quite: on {name}, expected an estimate of the trace {trace:.4g}, got"
                f" {type(error).__name__}: {text}."
            )
        if value is Ellipsis or value is None:
            return "Not done yet: hutchinson_trace returns ...; return the estimate."
        got = _number(value)
        diagonal = isinstance(value, torch.Tensor) and value.shape == at.shape
        if diagonal and abs(value.sum().item() - trace) <= tolerance:
            return (
                f"Not quite: on {name}, expected one number, an estimate of the trace"
                f" {trace:.4g}, got a vector of {value.numel()} whose sum is"
                f" {value.sum().item():.4g}: the mean of v * (H v), entry by entry, estimates"
                " the diagonal of H; the trace is its sum, v @ (H v)."
            )
        if got is None:
            shape = tuple(value.shape) if isinstance(value, torch.Tensor) else type(value).__name__
            return (
                f"Not quite: on {name}, expected one number, an estimate of the trace"
                f" {trace:.4g}, got {shape}: v^T (H v) is one number per vector v."
            )
        if abs(got - trace) > tolerance:
            why = _diagnose(f, at, H, got, m, tolerance)
            if known_hessian is not None:  # the trace of the exercise's loss, at this point?
                page_H = torch.func.hessian(page_loss)(at)
                if abs(got - page_H.trace().item()) <= 4 * max(_spreads(page_H)) / m**0.5:
                    why = "that is the trace for the exercise's loss: use the f you are given"
            else:  # the trace at the page's own w?
                page_H = torch.func.hessian(page_loss)(page_w)
                if abs(got - page_H.trace().item()) <= 4 * max(_spreads(page_H)) / m**0.5:
                    why = (
                        "that is the trace at the page's w: differentiate f at the w you are given"
                    )
            return (
                f"Not quite: on {name}, from {m} samples, expected the trace {trace:.4g}"
                f" give or take {tolerance:.3g} (4 standard deviations), got {got:.4g}: {why}."
            )

    # Under 8 seeds, on 0.5 w.C w: a mean of m random samples varies by sd / sqrt(m).
    expected_spread = max(_spreads(_OFF)) / m**0.5  # both kinds agree: C has no diagonal
    estimates = []
    for seed in range(10, 18):
        torch.manual_seed(seed)
        try:
            with _hessians_refused(globals()):
                estimates.append(_number(function(_coupled, torch.ones(16).double(), m)))
        except Exception as error:  # the learner's function may raise anything
            return (
                f"Not quite: on 0.5 w.C w, with torch.manual_seed({seed}), expected an estimate"
                f" of the trace 0, got {type(error).__name__}: {str(error)[:160]}."
            )
    spread = torch.tensor(estimates, dtype=torch.float64).std().item()
    if not expected_spread / 4 <= spread <= 3 * expected_spread:
        why = (
            "they vary as much as one sample does: draw a new v for each of the num_samples samples"
        )
        if spread < expected_spread / 4:
            why = (
                "your function gives the same number whatever the seed, so it uses no random"
                " vectors from torch's generator (the n basis vectors give the exact trace,"
                " with n products): average v^T (H v) over num_samples random vectors"
            )
        return (
            f"Not quite: on 0.5 w.C w (trace 0), under 8 seeds, expected {m}-sample estimates"
            f" that vary by about {expected_spread:.3g} (one sample's spread / sqrt({m})),"
            f" got estimates that vary by {spread:.3g}: {why}."
        )
    return (
        f"Correct: from {m} Hessian-vector products, your estimates are within 4 standard"
        " deviations of the exact traces, on the exercise's loss and on a quadratic, they"
        " vary from seed to seed as a mean of random samples does, and no whole Hessian"
        " was built."
    )


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]
