"""Chapter 5 (Part 3): dropout's scaling and batch norm's running statistics."""

import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

probabilities = st.floats(min_value=0.05, max_value=0.9)
values = st.floats(min_value=-50.0, max_value=50.0, allow_nan=False, allow_infinity=False)


@settings(max_examples=30, deadline=None)
@given(probabilities)
def test_dropout_scales_kept_values_by_one_over_one_minus_p(p: float) -> None:
    torch.manual_seed(0)
    out = nn.Dropout(p)(torch.ones(20_000, dtype=torch.float64))
    kept = out[out != 0]
    assert torch.allclose(kept, torch.full_like(kept, 1 / (1 - p)))
    # E[output] = (1 - p) * 1/(1 - p) = 1: the sample mean is close to it.
    assert abs(out.mean().item() - 1.0) < 0.1


@settings(max_examples=50, deadline=None)
@given(st.lists(values, min_size=2, max_size=8), st.floats(min_value=0.01, max_value=1.0))
def test_batch_norm_running_statistics_use_the_unbiased_variance(
    column: list[float], momentum: float
) -> None:
    x = torch.tensor(column, dtype=torch.float64).unsqueeze(1)
    norm = nn.BatchNorm1d(1, momentum=momentum).double()
    out = norm(x)
    m = len(column)
    mean, biased = x.mean(), x.var(unbiased=False)
    assert torch.allclose(norm.running_mean, momentum * mean.reshape(1))
    expected_var = (1 - momentum) * 1 + momentum * biased * m / (m - 1)
    assert torch.allclose(norm.running_var, expected_var.reshape(1))
    assert torch.allclose(out, (x - mean) / torch.sqrt(biased + norm.eps))

    norm.eval()
    running_mean, running_var = norm.running_mean.clone(), norm.running_var.clone()
    out = norm(x)
    assert torch.allclose(out, (x - running_mean) / torch.sqrt(running_var + norm.eps))
    assert torch.equal(norm.running_mean, running_mean)  # eval mode does not update


@settings(max_examples=20, deadline=None)
@given(st.lists(values, min_size=2, max_size=8))
def test_no_grad_does_not_stop_the_running_statistics(column: list[float]) -> None:
    x = torch.tensor(column, dtype=torch.float64).unsqueeze(1)
    norm = nn.BatchNorm1d(1).double()
    with torch.no_grad():
        norm(x)
    assert torch.allclose(norm.running_mean, 0.1 * x.mean().reshape(1))
