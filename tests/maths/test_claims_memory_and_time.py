"""docs/control/memory-and-time.md, at the edges of its claims.

* tracked, the outputs of the linear layers before each ReLU are not saved, so they are
  freed during the forward pass; the ReLU outputs stay, held by the graph;
* under no_grad() every intermediate result is freed once the next layer has used it.
Each is checked by watching every layer's output with a weak reference, on the page's
network and on networks of other sizes.
"""

from __future__ import annotations

import gc
import weakref

import pytest
import torch
from torch import nn

from . import run_region

PAGE = "docs/control/memory-and-time.md"
SNIPPET = "control/memory_and_time"


def _outputs_alive(model: nn.Sequential, x: torch.Tensor, grad: bool) -> list[bool]:
    """Run model(x); for each layer, whether its output still exists afterwards."""
    watched = []

    def watch(module, args, output) -> None:
        watched.append(weakref.ref(output))

    handles = [layer.register_forward_hook(watch) for layer in model]
    with torch.set_grad_enabled(grad):
        out = model(x)
    for handle in handles:
        handle.remove()
    gc.collect()
    alive = [w() is not None for w in watched]
    assert alive[-1] and out is not None  # the result itself
    return alive[:-1]


SIZES = [(100, 200, 64), (3, 5, 1), (7, 16, 9)]


@pytest.mark.claim(PAGE, "so they are freed as soon as the ReLU has used them")
@pytest.mark.parametrize(("n_in", "width", "batch"), SIZES)
def test_tracked_the_pre_activations_go_and_the_relu_outputs_stay(n_in, width, batch) -> None:
    page = run_region(SNIPPET, "saved-one", "recorder", "mlp")
    model = (
        page["model"]
        if n_in == 100
        else nn.Sequential(
            nn.Linear(n_in, width),
            nn.ReLU(),
            nn.Linear(width, width),
            nn.ReLU(),
            nn.Linear(width, 2),
        )
    )
    alive = _outputs_alive(model, torch.randn(batch, n_in), grad=True)
    # layer 1, ReLU 1, layer 2, ReLU 2: the linear outputs go, the ReLU outputs stay
    assert alive == [False, True, False, True]


@pytest.mark.claim(PAGE, "every intermediate result is freed as soon as the next operation has")
@pytest.mark.parametrize(("n_in", "width", "batch"), SIZES)
def test_under_no_grad_every_intermediate_result_goes(n_in, width, batch) -> None:
    page = run_region(SNIPPET, "saved-one", "recorder", "mlp", "no-grad")
    assert page["saved"] == []
    model = (
        page["model"]
        if n_in == 100
        else nn.Sequential(
            nn.Linear(n_in, width),
            nn.ReLU(),
            nn.Linear(width, width),
            nn.ReLU(),
            nn.Linear(width, 2),
        )
    )
    assert _outputs_alive(model, torch.randn(batch, n_in), grad=False) == [False] * 4


# --- mixed precision, checkpointing and save_on_cpu ---

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def _base_page():
    return run_region(SNIPPET, "saved-one", "recorder", "adam-bytes")


@pytest.mark.claim(PAGE, "bfloat16 keeps 8 significant bits, so the next number above 1 is")
@settings(max_examples=50, deadline=None)
@given(st.floats(0, 2.0**-8, exclude_max=True))
def test_bfloat16_loses_a_step_smaller_than_half_its_spacing(step: float) -> None:
    page = run_region(SNIPPET, "bf16-step", inputs={"torch": torch})
    assert "1 + 0.001  in bfloat16: 1.0000\n" in page.output
    one = torch.tensor(1.0, dtype=torch.bfloat16)
    assert torch.finfo(torch.bfloat16).eps == 2.0**-7  # 8 significant bits: 1 + 7 stored
    assert torch.nextafter(one, torch.tensor(2.0, dtype=torch.bfloat16)).item() == 1 + 2.0**-7
    assert (one + step).item() == 1.0  # below half the gap: rounds back to 1
    if step >= 2.0**-20:
        assert (torch.tensor(1.0) + step).item() > 1.0  # float32 keeps it


@pytest.mark.claim(PAGE, "float16 keeps 11 significant bits, so the next number above 1 is")
@settings(max_examples=50, deadline=None)
@given(
    st.floats(0, 2.0**-11, exclude_max=True),
    # above half the gap by more than float32's rounding: the sum is computed in float32,
    # then rounded to float16, and a tie at exactly half the gap rounds to even, to 1
    st.floats(2.0**-11 + 2.0**-21, 2.0**-8),
)
def test_float16_keeps_a_step_above_half_its_spacing_and_loses_one_below(lost, kept) -> None:
    page = run_region(SNIPPET, "bf16-step", inputs={"torch": torch})
    assert "1 + 0.001  in float16 : 1.0010\n" in page.output  # kept
    assert "1 + 0.0001 in float16 : 1.0000\n" in page.output  # lost
    one = torch.tensor(1.0, dtype=torch.float16)
    assert torch.finfo(torch.float16).eps == 2.0**-10  # 11 significant bits: 1 + 10 stored
    assert torch.nextafter(one, torch.tensor(2.0, dtype=torch.float16)).item() == 1 + 2.0**-10
    assert (one + lost).item() == 1.0  # below half the gap, 2^-11: rounds back to 1
    assert (one + kept).item() > 1.0  # above it: rounds up to the next number at least
    # bfloat16 loses every step below 2^-8, the float16 ones it keeps included
    assert (torch.tensor(1.0, dtype=torch.bfloat16) + min(kept, 2.0**-8 * 0.99)).item() == 1.0


@pytest.mark.claim(PAGE, "16 bytes per parameter, as in float32")
@settings(max_examples=8, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.integers(1, 12), st.integers(1, 20))
def test_mixed_precision_keeps_16_bytes_per_parameter(n_in, hidden, n_out, batch) -> None:
    page = _base_page()
    sizes = {"n_in": n_in, "hidden": hidden, "n_out": n_out}
    inputs = {
        **page,
        **sizes,
        "inputs": torch.randn(batch, n_in),
        "wanted": torch.randn(batch, n_out),
    }
    run = run_region(SNIPPET, "mixed-precision", inputs=inputs)
    parameters = n_in * hidden + hidden + hidden * n_out + n_out
    assert list(run["mixed"].values()) == [2 * parameters] * 2 + [4 * parameters] * 3
    assert "bytes per parameter: 16.0\n" in run.output
    # the 16-bit activations: the hidden output and the difference, 2 bytes each
    assert f"activations (saved for backward): {2 * batch * (hidden + n_out)} bytes" in run.output
    assert all(p.grad is None for p in run["masters"])  # the float32 gradients: dropped
    assert all(q.dtype == torch.bfloat16 for q in run["lows"])
    assert all(
        torch.equal(p.bfloat16(), q) for p, q in zip(run["masters"], run["lows"], strict=True)
    )


@pytest.mark.claim(PAGE, "It keeps the segment's input, and in")
@settings(max_examples=8, deadline=None)
@given(st.integers(1, 30), st.integers(1, 30), st.integers(1, 10))
def test_checkpointing_keeps_the_input_and_recomputes_with_the_same_gradients(n_in, width, batch):
    page = run_region(SNIPPET, "saved-one", "recorder", "mlp", "checkpoint")
    assert "the same gradients: True" in page.output
    model = nn.Sequential(
        nn.Linear(n_in, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(), nn.Linear(width, 3)
    )
    x = torch.randn(batch, n_in)
    run = run_region(SNIPPET, "checkpoint", inputs={**page, "model": model, "x": x})
    lines = run.output.splitlines()
    # plain: h1 and h2 are kept; checkpointed: only h2 (the last layer's input)
    assert f"bytes kept for backward: {2 * batch * width * 4}" in lines[1]
    assert f"bytes kept for backward: {batch * width * 4}" in lines[4]
    assert "the first layer ran 2 times" in lines[5]  # once more, during backward()
    assert lines[-1] == "the same gradients: True"


TENSORS = {
    "matrix": lambda: torch.randn(4, 3),
    "scalar": lambda: torch.tensor(2.5),
    "empty": lambda: torch.empty(0, 3),
    "a view": lambda: torch.randn(4, 6)[:, ::2],
    "int64": lambda: torch.arange(5),
    "float64": lambda: torch.randn(3, dtype=torch.float64),
}


@pytest.mark.claim(
    PAGE, "Without pinning, `pack` keeps `tensor.cpu()`, which for a tensor on the CPU"
)
@pytest.mark.parametrize("make", TENSORS.values(), ids=list(TENSORS))
def test_save_on_cpu_copies_a_cpu_tensor_only_when_pinning(make) -> None:
    page = _base_page()
    run = run_region(SNIPPET, "mlp", "profile-step", "checkpoint", "save-on-cpu", inputs=page)
    assert "pin_memory=False: pack returns the device (cpu) and the same memory" in run.output
    assert "pin_memory=True : pack returns the device (cpu) and a copy" in run.output
    tensor = make()
    for pin in (False, True):
        hooks = torch.autograd.graph.save_on_cpu(pin_memory=pin)
        device, packed = hooks.pack_hook(tensor)
        assert device == tensor.device and torch.equal(packed, tensor)
        assert (packed is tensor) != pin  # without pinning, the tensor itself
        if pin:  # a copy, in ordinary memory: there is no GPU to pin it for
            assert not packed.is_pinned()
            assert tensor.numel() == 0 or packed.data_ptr() != tensor.data_ptr()
        unpacked = hooks.unpack_hook((device, packed))  # back to the device it came from
        assert unpacked.device == tensor.device and torch.equal(unpacked, tensor)


@pytest.mark.claim(PAGE, "`save_on_cpu` copies every tensor a node saves")
@pytest.mark.parametrize(
    ("n_in", "width", "n_out", "batch"), [(100, 200, 10, 64), (7, 5, 3, 2), (3, 16, 1, 9)]
)
def test_save_on_cpu_with_pinning_copies_every_saved_tensor(n_in, width, n_out, batch) -> None:
    page = _base_page()
    page = run_region(SNIPPET, "mlp", "profile-step", inputs=page)
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(n_in, width),
        nn.ReLU(),
        nn.Linear(width, width),
        nn.ReLU(),
        nn.Linear(width, n_out),
    )
    x = torch.randn(batch, n_in)
    run = run_region(SNIPPET, "checkpoint", "save-on-cpu", inputs={**page, "model": model, "x": x})
    # every saved tensor, once per node that saves it: the input, h1 twice, W2^T, h2 twice, W3^T
    copies = 4 * (batch * n_in + 4 * batch * width + width * width + n_out * width)
    output = 4 * batch * n_out
    assert f"bytes of all the tensors the forward pass saves: {copies}\n" in run.output
    assert (
        f"save_on_cpu(pin_memory=True)  in use after the forward pass: {copies + output:6} bytes"
        in run.output
    )
    plain = f"in use after the forward pass: {2 * 4 * batch * width + output:6} bytes"
    assert run.output.count(plain) == 2  # no hooks, and save_on_cpu() without pinning
    assert run.output.count("the same gradients: True") == 1  # checkpointing: bit for bit
    assert run.output.count("the same gradients, up to rounding: True") == 3  # hooks or not


@pytest.mark.claim(
    PAGE, "the copy that `pin_memory=True` makes is contiguous, so a saved transposed"
)
def test_a_pinned_copy_is_contiguous_and_may_round_the_gradients_differently() -> None:
    page = _base_page()
    page = run_region(SNIPPET, "mlp", "profile-step", inputs=page)
    torch.manual_seed(0)  # a network where the last product rounds differently
    model = nn.Sequential(
        nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 1)
    )
    x = torch.randn(9, 3)
    run = run_region(SNIPPET, "checkpoint", "save-on-cpu", inputs={**page, "model": model, "x": x})
    assert run.output.count("the same gradients, up to rounding: True") == 3
    plain = run["gradients"][0]
    weight_t = model[4].weight.t()  # W3^T, as the last layer saves it
    for pin in (False, True):
        hooks = torch.autograd.graph.save_on_cpu(pin_memory=pin)
        _, packed = hooks.pack_hook(weight_t)
        assert (packed.stride() == weight_t.stride()) != pin  # pinned: a contiguous copy
        assert packed.is_contiguous() or not pin
        model.zero_grad()
        with hooks:
            out = model(x)
        out.sum().backward()
        pairs = list(zip(model.parameters(), plain, strict=True))
        assert all(torch.allclose(p.grad, g) for p, g in pairs)
        assert all(torch.equal(p.grad, g) for p, g in pairs) != pin  # pinned: not bit for bit
