"""Every memory profile on the site counts only the code it measures.

The profiler records a free even when the memory was allocated before the profile began,
as long as an earlier profile saw the allocation. Garbage (a reference cycle holding a
tensor) is freed whenever Python's collector happens to run, so a collection inside a
profile would lower the numbers a page prints, now and then: on PyTorch 2.13 it once
turned CI red. Each page's profiling code collects garbage first, until a collection finds
none: one collection can leave garbage for the next (the page's own sessions, let go as
every test here lets them go, are such garbage). These tests set up the page, leave both
kinds of garbage behind, run a collection inside the page's own profile, and check that
the page's numbers are the same as without it.
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
def collector_off() -> Iterator[None]:
    """No garbage is left, and none is freed but by the collections the test asks for."""
    enabled = gc.isenabled()
    while gc.collect():  # one collection can leave garbage for the next
        pass
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextlib.contextmanager
def earlier_garbage(*, a_page_too: bool = True) -> Iterator[None]:
    """A 1000-value tensor, allocated under a profile, in garbage the collector has not freed;
    and, unless ``a_page_too`` is false, the page's sessions, let go: garbage that needs
    more than one collection, with tensors profile-step's profile saw allocated."""
    with collector_off():
        if a_page_too:
            _profiling_page()
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True):
            garbage = _Cycle()
            garbage.itself = garbage  # type: ignore[attr-defined]
            garbage.tensor = torch.ones(GARBAGE_BYTES // 4)  # type: ignore[attr-defined]
        del garbage
        yield


def _profiling_page() -> Session:
    base = run_region(SNIPPET, "saved-one", "recorder", "adam-bytes")
    return run_region(SNIPPET, "mlp", "profile-step", inputs=base)


@pytest.mark.claim(PAGE, "would count that free too, against the code being measured")
def test_the_profiler_counts_a_free_of_memory_an_earlier_profile_allocated() -> None:
    page = _profiling_page()
    with (
        earlier_garbage(a_page_too=False),
        profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof,
    ):
        gc.collect()  # a bare profiler: the garbage is freed inside it
    assert page["end_and_peak"](prof) == (-GARBAGE_BYTES, 0)


@pytest.mark.claim(PAGE, "So `memory_profile()` runs `gc.collect()` first, and then starts")
@pytest.mark.claim(PAGE, "It runs it until a collection finds nothing")
def test_memory_profile_frees_the_garbage_before_it_starts() -> None:
    page = _profiling_page()
    with earlier_garbage(), page["memory_profile"]() as prof:
        gc.collect()  # nothing left to free
        kept = torch.ones(10)
    assert page["end_and_peak"](prof) == (kept.nbytes, kept.nbytes)


@pytest.mark.claim(PAGE, "Python frees an object as soon as nothing refers to it")
@pytest.mark.claim(PAGE, "such garbage waits for Python's garbage collector")
def test_only_objects_in_a_reference_cycle_wait_for_the_collector() -> None:
    page = _profiling_page()
    with collector_off():
        with page["memory_profile"]() as prof:
            plain, cycle = _Cycle(), _Cycle()
            cycle.itself = cycle  # type: ignore[attr-defined]
            plain.tensor = torch.ones(10)  # type: ignore[attr-defined]
            cycle.tensor = torch.ones(10)  # type: ignore[attr-defined]
            del plain, cycle  # nothing refers to either any more
        assert page["end_and_peak"](prof) == (40, 80)  # the cycle's 40 bytes are still there
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            gc.collect()
        assert page["end_and_peak"](prof) == (-40, 0)  # the collector frees them


@pytest.mark.claim(PAGE, "one collection can leave garbage for the next")
def test_one_collection_can_leave_garbage_for_the_next() -> None:
    page = _profiling_page()
    with collector_off():
        _profiling_page()  # the page once more, let go at once: garbage
        assert gc.collect() > 0  # the first collection frees some of it
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            assert gc.collect() > 0  # the next one frees more
        in_use, _ = page["end_and_peak"](prof)
        assert in_use < 0  # among it, tensors the page's profile saw allocated


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


class _CollectingProfile(profile):
    """torch.profiler.profile, collecting garbage as soon as it has started."""

    def __enter__(self) -> _CollectingProfile:
        started = super().__enter__()
        gc.collect()  # inside the profile: frees the garbage nobody collected before it
        return started


@pytest.mark.parametrize("region", ["profile-step", "inplace-relu", "save-on-cpu"])
def test_every_profile_of_the_memory_page(region: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Every profiler the regions make (they import `profile` from torch.profiler) collects
    # garbage once it has started: with earlier garbage left, each region must still
    # print what it prints without it, which holds only if it collected before.
    monkeypatch.setattr(torch.profiler, "profile", _CollectingProfile)
    before = {
        "profile-step": ("mlp",),
        "inplace-relu": ("mlp", "live-tracker", "profile-step"),
        "save-on-cpu": ("mlp", "profile-step", "checkpoint"),
    }[region]
    base = run_region(SNIPPET, "saved-one", "recorder", "adam-bytes")
    page = run_region(SNIPPET, *before, inputs=base)
    clean = run_region(SNIPPET, region, inputs=page).output
    with earlier_garbage():
        assert run_region(SNIPPET, region, inputs=page).output == clean
