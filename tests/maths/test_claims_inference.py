"""docs/control/inference.md, at the edges of its claims.

* in training mode the page's model refuses one point (batch norm); eval mode takes it;
* predict_in_batches gives the classes of the whole set for every batch size, 1 to 300,
  and probabilities equal up to rounding;
* neither inference_mode() nor no_grad() switches the mode: without eval() dropout stays
  random and batch norm updates its running statistics under both.
"""

from __future__ import annotations

import copy
from functools import cache

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from . import Session, run_region

PAGE = "docs/control/inference.md"
SNIPPET = "control/inference"


@cache
def _page() -> Session:
    return run_region(SNIPPET, "data", "train", "predict", "batches")


@pytest.mark.claim(PAGE, "A single point works only because of `eval()`")
def test_one_point_is_refused_in_training_mode() -> None:
    page = _page()
    model = copy.deepcopy(page["model"]).train()
    point = torch.tensor([[0.9, 0.1]])
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        model(point)
    assert page["predict"](model, point)[0] == [1]  # predict() switches to eval mode
    assert model.training  # and back


@pytest.mark.claim(PAGE, "any batch size gives the same classes")
@settings(max_examples=20, deadline=None)
@given(st.integers(1, 300))
def test_every_batch_size_gives_the_same_classes(batch_size: int) -> None:
    page = _page()
    assert "same classes True, same probabilities True" in page.output
    whole = page["whole"]
    classes, confidence = page["predict_in_batches"](page["model"], page["test_points"], batch_size)
    assert classes == whole[0]
    assert torch.allclose(torch.tensor(confidence), torch.tensor(whole[1]))


@pytest.mark.claim(PAGE, "The same happens under `no_grad()`: neither of them changes the mode.")
@pytest.mark.parametrize("switch", [torch.inference_mode, torch.no_grad], ids=str)
def test_neither_inference_mode_nor_no_grad_switches_the_mode(switch) -> None:
    page = run_region(SNIPPET, "data", "train", "predict", "forgot-eval")
    assert "the same predictions twice: False" in page.output
    assert "running_mean changed: True" in page.output
    careless = copy.deepcopy(page["model"]).train()
    mean_before = careless[1].running_mean.clone()
    torch.manual_seed(0)
    with switch():
        first, second = careless(page["test_points"]), careless(page["test_points"])
    assert careless.training and all(m.training for m in careless.modules())
    assert not torch.equal(first, second)  # dropout still random
    assert not torch.equal(careless[1].running_mean, mean_before)  # batch norm still updates
