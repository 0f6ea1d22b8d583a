"""Chapter 5: accumulation adds gradients, and 1/k-scaled micro-batches equal the batch."""

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

values = st.floats(min_value=-10.0, max_value=10.0, allow_nan=False, allow_infinity=False)
RTOL, ATOL = 1e-10, 1e-12


@settings(max_examples=100, deadline=None)
@given(values, st.integers(min_value=1, max_value=8))
def test_n_backward_passes_of_a_square_give_n_times_2x(x_value: float, n: int) -> None:
    x = torch.tensor(x_value, dtype=torch.float64, requires_grad=True)
    for _ in range(n):
        (x**2).backward()  # a new graph each time, the same leaf
    assert torch.allclose(x.grad, n * 2 * x.detach(), rtol=RTOL, atol=ATOL)


@settings(max_examples=50, deadline=None)
@given(values)
def test_zero_resets_so_the_next_pass_gives_2x_alone(x_value: float) -> None:
    x = torch.tensor(x_value, dtype=torch.float64, requires_grad=True)
    (x**2).backward()
    x.grad.zero_()
    assert x.grad.item() == 0.0
    (x**2).backward()
    assert torch.allclose(x.grad, 2 * x.detach(), rtol=RTOL, atol=ATOL)


def _model_and_data(seed: int, samples: int) -> tuple[torch.nn.Module, torch.Tensor, torch.Tensor]:
    # A private generator: the test does not depend on, or change, the global seed.
    generator = torch.Generator().manual_seed(seed)
    model = torch.nn.Sequential(
        torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1)
    ).double()
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.copy_(torch.randn(parameter.shape, generator=generator))
    inputs = torch.randn(samples, 3, generator=generator, dtype=torch.float64)
    targets = torch.randn(samples, 1, generator=generator, dtype=torch.float64)
    return model, inputs, targets


def _grads(model: torch.nn.Module) -> list[torch.Tensor]:
    return [p.grad.clone() for p in model.parameters()]


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**31 - 1),
    k=st.sampled_from([1, 2, 4, 8]),
    micro=st.integers(min_value=1, max_value=16),
)
def test_scaled_micro_batches_give_the_full_batch_mean_gradient(
    seed: int, k: int, micro: int
) -> None:
    model, inputs, targets = _model_and_data(seed, k * micro)
    loss_fn = torch.nn.MSELoss()

    loss_fn(model(inputs), targets).backward()
    full = _grads(model)

    model.zero_grad()
    for inputs_micro, targets_micro in zip(inputs.split(micro), targets.split(micro), strict=True):
        (loss_fn(model(inputs_micro), targets_micro) / k).backward()
    accumulated = _grads(model)

    model.zero_grad()
    for inputs_micro, targets_micro in zip(inputs.split(micro), targets.split(micro), strict=True):
        loss_fn(model(inputs_micro), targets_micro).backward()
    unscaled = _grads(model)

    for f, a, u in zip(full, accumulated, unscaled, strict=True):
        assert torch.allclose(a, f, rtol=1e-9, atol=1e-12)
        # Without the 1/k, the sum is k times the full-batch gradient.
        assert torch.allclose(u, k * f, rtol=1e-9, atol=1e-12)
