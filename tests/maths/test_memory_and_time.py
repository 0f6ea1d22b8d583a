"""Chapter 6 (Part 3): what a forward pass saves and an Adam step keeps; chapter 7's accuracy."""

from functools import cache

import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from . import Session, run_region

SNIPPET = "control/memory_and_time"  # the page's own code


@cache
def _recorder() -> Session:
    """The page's region "recorder": saved_while, kind_of, kept_bytes, describe."""
    return run_region(SNIPPET, "saved-one", "recorder")


def made_bytes(model: nn.Module, x: torch.Tensor) -> int:
    """The page's count: bytes of the saved tensors made in the forward pass, once each."""
    page = _recorder()
    _, saved = page["saved_while"](model, x)
    return page["kept_bytes"](saved, model, x)


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


@cache
def _page_step() -> Session:
    """The page's recorder and its Adam step, run once as the page runs them."""
    return run_region(SNIPPET, "saved-one", "recorder", "adam-bytes")


def _sizes(n_in: int, hidden: int, n_out: int, batch: int) -> dict:
    return {"n_in": n_in, "hidden": hidden, "n_out": n_out, "batch_size": batch}


SIZES = st.tuples(st.integers(1, 120), st.integers(1, 120), st.integers(1, 20), st.integers(1, 64))


@settings(max_examples=25, deadline=None)
@given(SIZES)
def test_one_adam_step_keeps_16_bytes_per_parameter_and_the_activations(
    sizes: tuple[int, int, int, int],
) -> None:
    n_in, hidden, n_out, batch = sizes
    ran = run_region(
        SNIPPET, "adam-bytes-maths", inputs={**_page_step(), **_sizes(n_in, hidden, n_out, batch)}
    )
    # P = n_in*hidden + hidden + hidden*n_out + n_out float32 values of 4 bytes each.
    p = n_in * hidden + hidden + hidden * n_out + n_out
    assert ran["memory"] == {
        "parameters": 4 * p,
        "gradients": 4 * p,
        "Adam's exp_avg": 4 * p,
        "Adam's exp_avg_sq": 4 * p,
        "Adam's step counts": 4 * 4,  # one float32 count per parameter tensor
        # the hidden output and the difference from the targets
        "activations (saved for backward)": 4 * batch * (hidden + n_out),
    }


@settings(max_examples=15, deadline=None)
@given(st.tuples(st.integers(20, 120), st.integers(20, 120), st.integers(1, 20), st.integers(1, 8)))
def test_the_profiler_sees_each_part_and_the_peak_inside_adams_step(
    sizes: tuple[int, int, int, int],
) -> None:
    n_in, hidden, n_out, batch = sizes
    ran = run_region(
        SNIPPET,
        "adam-bytes-maths",
        "profile-step",
        inputs={**_page_step(), **_sizes(n_in, hidden, n_out, batch)},
    )
    p = n_in * hidden + hidden + hidden * n_out + n_out
    activations = 4 * batch * (hidden + n_out)
    assert ran["net_bytes"]["forward"] == activations + 4  # and the loss, one float32
    assert ran["net_bytes"]["backward"] == 4 * p - activations  # gradients in, activations out
    assert ran["net_bytes"]["step"] == 8 * p + 16  # Adam's two averages and 4 step counts
    end = 4 * p + 8 * p + 16 + 4
    assert ran["in_use"] == end
    # The peak comes while Adam updates one parameter: two temporaries of its size (sqrt,
    # then a division) and 12 bytes of wrapped Python numbers. The previous parameter's
    # result of the division (its `denom`) is still alive until the loop replaces it.
    numels = [n_in * hidden, hidden, hidden * n_out, n_out]  # in the order Adam updates them
    before = [0, *numels[:-1]]
    during = max(2 * 4 * n + 4 * b for n, b in zip(numels, before, strict=True))
    assert ran["peak"] == end + during + 12


def test_the_pages_numbers() -> None:
    ran = _page_step()
    assert ran["memory"]["parameters"] == 4 * 22_210 == 88_840
    assert ran["memory"]["activations (saved for backward)"] == 53_760
