"""docs/practice/exercises/memory-budget.md (Exercise 3.6), at the edges of its claims.

Adam's step counter is a float32 tensor of one number whatever the parameter's dtype; it
is float64 only when PyTorch's default dtype is float64 (a bfloat16 or float16 default
still gives float32). The solution's budget equals the bytes measured after a real step,
with a frozen layer or none, in float32 and float64.
"""

from __future__ import annotations

import pytest
import torch
from torch import nn

from . import run_region

PAGE = "docs/practice/exercises/memory-budget.md"
SNIPPET = "practice/memory_budget"
DTYPES = [torch.float32, torch.float64, torch.bfloat16, torch.float16]


@pytest.fixture
def default_dtype():
    before = torch.get_default_dtype()
    yield torch.set_default_dtype
    torch.set_default_dtype(before)


@pytest.mark.claim(PAGE, "a step counter: a float32 tensor that holds one number, whatever")
@pytest.mark.parametrize("default", DTYPES, ids=str)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16], ids=str)
def test_the_step_counter_is_float32_unless_the_default_is_float64(
    default_dtype, default: torch.dtype, dtype: torch.dtype
) -> None:
    page = run_region(SNIPPET, "solution")
    assert "Adam's step for model[4].bias: torch.float32, shape ()" in page.output
    default_dtype(default)
    parameter = nn.Parameter(torch.ones(3, dtype=dtype))
    adam = torch.optim.Adam([parameter], lr=0.1)
    parameter.grad = torch.ones(3, dtype=dtype)
    adam.step()
    step = adam.state[parameter]["step"]
    assert step.numel() == 1
    assert step.dtype == (torch.float64 if default == torch.float64 else torch.float32)


@pytest.mark.claim(PAGE, "The budget from the model alone and the bytes measured after a real")
@pytest.mark.parametrize("frozen", [True, False])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_the_solutions_budget_is_what_a_real_step_keeps(frozen: bool, dtype: torch.dtype) -> None:
    solution = run_region(SNIPPET, "solution")
    measured = run_region(SNIPPET, "check", inputs={"memory_budget": None, "budget": None})[
        "measured"
    ]

    def make() -> nn.Module:
        torch.manual_seed(3)
        model = nn.Sequential(nn.Linear(5, 7), nn.ReLU(), nn.Linear(7, 2)).to(dtype)
        model[0].requires_grad_(not frozen)
        return model

    assert solution["memory_budget"](make()) == measured(make)
