"""Chapter 6 (Part 3): what a forward pass saves and an Adam step keeps; chapter 7's accuracy.

Every test runs the page's own regions: snippets/control/memory_and_time.py, and for the
accuracy over a test set snippets/control/inference.py (chapter 7).
"""

from functools import cache

import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from . import Session, run_region

SNIPPET = "control/memory_and_time"  # the page's own code
INFERENCE = "control/inference"  # chapter 7, "Accuracy over a test set"


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
    # The page's region "no-grad" on this model and input: nothing saved, no graph.
    ran = run_region(SNIPPET, "no-grad", inputs={**_recorder(), "model": model, "x": x})
    assert ran["saved"] == []
    assert ran["out"].grad_fn is None


def test_the_pages_mlp_keeps_its_two_relu_outputs() -> None:
    ran = run_region(SNIPPET, "saved-one", "recorder", "mlp")
    model, x = ran["model"], ran["x"]
    # h1 and h2, batch x width float32 values of 4 bytes each: 2 * 64 * 200 * 4 = 102_400
    batch, width = x.shape[0], model[0].out_features
    assert ran["kept_bytes"](ran["saved"], model, x) == 2 * batch * width * 4 == 102_400


@cache
def _accuracy_page() -> Session:
    """Chapter 7's regions up to its accuracy over batches: the model, accuracy(), the
    test loader and the counts of correct predictions per batch ("per-batch")."""
    return run_region(INFERENCE, "data", "train", "predict", "evaluate", "per-batch")


def _correct_by_hand(page: Session, points: torch.Tensor, labels: torch.Tensor) -> int:
    """The number of points whose class, by the page's predict(), is their label."""
    classes, _ = page["predict"](page["model"], points)
    return sum(c == label for c, label in zip(classes, labels.tolist(), strict=True))


def test_the_pages_accuracy_counts_examples_and_differs_from_the_mean_of_batches() -> None:
    page = _accuracy_page()
    loader = page["test_loader"]
    sizes = [len(labels) for _, labels in loader]
    correct = page["correct"]  # correct predictions per batch, from the page's region
    assert sum(correct) == _correct_by_hand(page, page["test_points"], page["test_labels"])
    # accuracy = (sum of correct_i) / (sum of n_i): counted over examples
    overall = sum(correct) / sum(sizes)
    assert page["accuracy"](page["model"], loader) == overall
    assert f"test accuracy: {overall}\n" in page.output  # what the page printed
    # The mean of the batch accuracies, (1/k) sum of correct_i / n_i, weighs the short
    # last batch like a full one: with unequal sizes it is another number.
    assert len(set(sizes)) > 1
    shares = page["batch_accuracies"]
    assert shares == [c / n for c, n in zip(correct, sizes, strict=True)]
    assert sum(shares) / len(shares) != overall


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=1, max_size=300), st.integers(1, 64))
def test_accuracy_is_correct_over_examples_not_the_mean_of_batches(
    labels: list[int], batch_size: int
) -> None:
    # The page's accuracy() and its per-batch count, on the page's model and test points
    # with the test's labels and batch size.
    page = _accuracy_page()
    points, targets = page["test_points"][: len(labels)], torch.tensor(labels)
    loader = DataLoader(TensorDataset(points, targets), batch_size=batch_size)
    ran = run_region(INFERENCE, "per-batch", inputs={**page, "test_loader": loader})
    correct, shares = ran["correct"], ran["batch_accuracies"]
    sizes = [len(batch_labels) for _, batch_labels in loader]
    assert sum(correct) == _correct_by_hand(page, points, targets)
    # accuracy = (sum of correct_i) / (sum of n_i)
    overall = page["accuracy"](page["model"], loader)
    assert overall == sum(correct) / sum(sizes)
    mean_of_batches = sum(shares) / len(shares)
    if len(set(sizes)) == 1:  # equal batch sizes: both agree
        assert abs(overall - mean_of_batches) < 1e-12
    # overall = sum of (n_i / N) * share_i, a weighted mean: between the smallest and largest
    assert min(shares) <= overall + 1e-12
    assert overall <= max(shares) + 1e-12


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
    n_in, hidden, n_out, batch = ran["n_in"], ran["hidden"], ran["n_out"], ran["batch_size"]
    # P = 100 * 200 + 200 + 200 * 10 + 10 = 22_210 values of 4 bytes: 4P = 88_840
    p = n_in * hidden + hidden + hidden * n_out + n_out
    assert ran["memory"]["parameters"] == 4 * p == 4 * 22_210 == 88_840
    # the hidden output and the difference: 64 * 200 * 4 + 64 * 10 * 4 = 51_200 + 2_560
    activations = 4 * batch * (hidden + n_out)
    assert ran["memory"]["activations (saved for backward)"] == activations == 53_760
