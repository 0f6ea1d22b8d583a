"""Chapter 6 (Part 3): the bytes a forward pass saves, and chapter 7's accuracy."""

import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn


def made_bytes(model: nn.Module, x: torch.Tensor) -> int:
    """Bytes of the saved tensors made in the forward pass, once per storage."""
    known = {p.untyped_storage().data_ptr() for p in model.parameters()}
    known.add(x.untyped_storage().data_ptr())
    made: dict[int, int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        storage = t.untyped_storage()
        if storage.data_ptr() not in known:
            made[storage.data_ptr()] = storage.nbytes()
        return t.detach()

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(x)
    return sum(made.values())


@settings(max_examples=30, deadline=None)
@given(
    st.integers(min_value=1, max_value=64),
    st.integers(min_value=1, max_value=30),
    st.integers(min_value=1, max_value=30),
)
def test_an_mlp_keeps_its_two_relu_outputs(batch: int, n_in: int, width: int) -> None:
    # Linear, ReLU, Linear, ReLU, Linear: only h1 and h2 are new memory, batch * width floats each.
    model = nn.Sequential(
        nn.Linear(n_in, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(), nn.Linear(width, 3)
    )
    x = torch.randn(batch, n_in)
    assert made_bytes(model, x) == 2 * batch * width * 4
    with torch.no_grad():
        assert made_bytes(model, x) == 0


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 64), st.floats(0, 1)), min_size=1, max_size=6))
def test_accuracy_is_correct_over_examples_not_the_mean_of_batches(
    batches: list[tuple[int, float]],
) -> None:
    sizes = [n for n, _ in batches]
    correct = [round(n * share) for n, share in batches]
    overall = sum(correct) / sum(sizes)
    mean_of_batches = sum(c / n for c, n in zip(correct, sizes, strict=True)) / len(sizes)
    if len(set(sizes)) == 1:  # equal batch sizes: both agree
        assert abs(overall - mean_of_batches) < 1e-12
    assert min(c / n for c, n in zip(correct, sizes, strict=True)) <= overall + 1e-12


def test_the_pages_batches_give_0_96_but_a_mean_of_0_9611() -> None:
    correct, sizes = [62, 59, 63, 61, 43], [64, 64, 64, 64, 44]
    assert sum(correct) / sum(sizes) == 0.96
    mean = sum(c / n for c, n in zip(correct, sizes, strict=True)) / len(sizes)
    assert round(mean, 4) == 0.9611
