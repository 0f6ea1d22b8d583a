"""Every memory profile on the site counts only the code it measures.

The profiler records a free even when the memory was allocated before the profile began,
as long as an earlier profile saw the allocation. Garbage (a reference cycle holding a
tensor) is freed whenever Python's collector happens to run, so a collection inside a
profile would lower the numbers a page prints, now and then: on PyTorch 2.13 it once
turned CI red. Each page's profiling code collects garbage first. These tests set up the
page, leave such garbage behind, run a collection inside the page's own profile, and
check that the page's numbers are the same as without it.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

import pytest
import torch
from torch.profiler import ProfilerActivity, profile

from . import Session, run_region
from .test_gradients_of_gradients import curvature_page

PAGE = "docs/control/memory-and-time.md"
SNIPPET = "control/memory_and_time"
GARBAGE_BYTES = 4000  # one float32 tensor of 1000 values


class _Cycle:
    """An object that refers to itself: only the garbage collector frees it."""


@contextlib.contextmanager
def earlier_garbage() -> Iterator[None]:
    """A 1000-value tensor, allocated under a profile, in garbage the collector has not freed."""
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()  # so that it is freed only by the collection a test asks for
    try:
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True):
            garbage = _Cycle()
            garbage.itself = garbage  # type: ignore[attr-defined]
            garbage.tensor = torch.ones(GARBAGE_BYTES // 4)  # type: ignore[attr-defined]
        del garbage
        yield
    finally:
        if enabled:
            gc.enable()


def _profiling_page() -> Session:
    base = run_region(SNIPPET, "saved-one", "recorder", "adam-bytes")
    return run_region(SNIPPET, "mlp", "profile-step", inputs=base)


@pytest.mark.claim(PAGE, "would count that free too, against the code being measured")
def test_the_profiler_counts_a_free_of_memory_an_earlier_profile_allocated() -> None:
    page = _profiling_page()
    with earlier_garbage(), profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        gc.collect()  # a bare profiler: the garbage is freed inside it
    assert page["end_and_peak"](prof) == (-GARBAGE_BYTES, 0)


@pytest.mark.claim(PAGE, "So `memory_profile()` runs `gc.collect()` first, and then starts")
def test_memory_profile_frees_the_garbage_before_it_starts() -> None:
    page = _profiling_page()
    with earlier_garbage(), page["memory_profile"]() as prof:
        gc.collect()  # nothing left to free
        kept = torch.ones(10)
    assert page["end_and_peak"](prof) == (kept.nbytes, kept.nbytes)


def _peak_with_a_collection_inside(peak_bytes) -> int:
    with earlier_garbage():
        return peak_bytes(lambda: (gc.collect(), torch.ones(10)))


def test_peak_bytes_of_the_jacobian_page() -> None:
    page = run_region(
        "interview/how_do_you_compute_a_full_jacobian_or_hessian",
        "demonstration",
        "memory",
        quiet=True,  # the forward-mode warning the page hides itself
    )
    assert _peak_with_a_collection_inside(page["peak_bytes"]) == 40  # the ten values only


def test_peak_bytes_of_the_curvature_page() -> None:
    assert _peak_with_a_collection_inside(curvature_page()["peak_bytes"]) == 40


def test_the_training_step_profile() -> None:
    page = run_region("interview/how_much_memory_does_training_take", "model", "fp32", "peak")
    loss_of = page["loss_of"]

    def collecting_loss_of(*args: object) -> torch.Tensor:
        gc.collect()  # inside the profile, before the forward pass
        return loss_of(*args)

    page["loss_of"] = collecting_loss_of
    with earlier_garbage():
        after_forward, _, _ = page["profile_step"](1024)
    assert after_forward == 2304 * 1024 + 4  # the activations and the loss, as on the page


def test_the_selective_checkpoint_table() -> None:
    snippet = "interview/what_does_use_reentrant_change_in_checkpoint"
    session = run_region(snippet, "setup", "no-input-grad", "selective", quiet=True)

    def collect(module: object, args: object) -> None:  # None: the inputs are left as they are
        gc.collect()  # inside the profile, before the block runs

    session["block"].register_forward_pre_hook(collect)
    with earlier_garbage():
        table = run_region(snippet, "selective-maths", inputs=session)["table"]
    hidden = session["inputs"].shape[0] * 256 * 4  # one batch x 256 float32 tensor
    kept = {name: row[0] for name, row in table.items()}
    assert kept == {"no checkpoint": 2 * hidden, "checkpoint": 0, "selective": hidden}
