"""Interview: Does no_grad() turn off forward-mode AD?

Included by docs/interview/does-no-grad-turn-off-forward-mode-ad.md.
"""
# ruff: noqa: E402

# --8<-- [start:quiet-start]
import warnings

import torch

# PyTorch warns about its own use of torch.jit.script on the first forward-mode call
# (a FutureWarning since 2.14, a DeprecationWarning before). Hide exactly that warning:
warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")
# --8<-- [end:quiet-start]

# --8<-- [start:dual]
import contextlib

import torch.autograd.forward_ad as fwAD

x = torch.tensor([1.0, 2.0, 3.0])
x_dot = torch.tensor([1.0, 1.0, 1.0])  # the tangent: how fast each entry moves
# --8<-- [start:dual-maths]
modes = {  # each entry makes a fresh context manager
    "grad mode (default)": contextlib.nullcontext,
    "torch.no_grad()": torch.no_grad,
    "set_grad_enabled(False)": lambda: torch.set_grad_enabled(False),
    "torch.inference_mode()": torch.inference_mode,
}
tangents = {}
with fwAD.dual_level():
    dual = fwAD.make_dual(x, x_dot)
    for name, mode in modes.items():
        with mode():
            y = dual**2  # the tangent of x² is 2x times the tangent of x
        tangents[name] = fwAD.unpack_dual(y).tangent
for name, tangent in tangents.items():
    print(f"{name:24} tangent of y: {tangent}")
# --8<-- [end:dual-maths]
# --8<-- [end:dual]

# --8<-- [start:docstrings]
import re


def sentence_about_forward_mode(mode) -> str:
    """The sentence of mode's docstring that mentions forward-mode AD."""
    text = " ".join(mode.__doc__.split())  # the docstring on one line
    sentences = re.split(r"(?<=[.:])\s+(?=[A-Z.])", text)
    sentence = next(s for s in sentences if "forward-mode" in s)
    return sentence.replace(":ref:`forward-mode AD <forward-mode-ad>`", "forward-mode AD")


for mode in (torch.no_grad, torch.inference_mode):
    print(f"{mode.__name__}: {sentence_about_forward_mode(mode)}")
# --8<-- [end:docstrings]

# --8<-- [start:jacfwd-vs-jacrev]
from torch.func import jacfwd, jacrev


def under_no_grad(t: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        scale = t**2  # meant as a constant
    return t * scale


def with_detach(t: torch.Tensor) -> torch.Tensor:
    return t * (t**2).detach()  # a constant for every mode


three = torch.tensor(3.0)
for f in (under_no_grad, with_detach):
    reverse, forward = jacrev(f)(three).item(), jacfwd(f)(three).item()
    print(f"{f.__name__:14} jacrev: {reverse:g}   jacfwd: {forward:g}")
_, tangent = torch.autograd.functional.jvp(under_no_grad, three, torch.tensor(1.0))
print("torch.autograd.functional.jvp (two reverse passes):", tangent.item())
# --8<-- [end:jacfwd-vs-jacrev]

# --8<-- [start:inference]
with fwAD.dual_level():
    with torch.inference_mode():
        made_inside = fwAD.make_dual(x, x_dot)  # no error, and no tangent
    print("make_dual inside inference_mode, tangent:", fwAD.unpack_dual(made_inside).tangent)

    dual = fwAD.make_dual(x, x_dot)
    primal = fwAD.unpack_dual(dual).primal  # the docstring's advice: unpack the dual tensor
    print("computed from the unpacked primal, tangent:", fwAD.unpack_dual(primal**2).tangent)

with torch.inference_mode():
    _, y_dot = torch.func.jvp(lambda t: t**2, (x,), (x_dot,))
print("torch.func.jvp called inside inference_mode:", y_dot)
# --8<-- [end:inference]
