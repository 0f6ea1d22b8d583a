"""Interview pages on training at scale, against the accounting they do by hand.

* docs/interview/how-many-flops-is-a-training-step.md: 2N FLOPs per token forward and 4N
  backward (minus the first layer's input gradient when the input is data); 4Td more per
  token for attention; nothing for elementwise operations; 8N with a checkpoint, minus
  the last layer's product, which early stop does not run again.
* docs/interview/how-much-memory-does-training-take.md: 4 bytes per parameter for each
  of weights, gradients, exp_avg and exp_avg_sq, 4 per parameter tensor of step counters;
  autocast's saved 16-bit weight copies; activations in proportion to the batch; where
  the peak of a step is, and its size by hand.
* docs/interview/what-does-use-reentrant-change-in-checkpoint.md: what the reentrant
  variant refuses or silently drops, early stop, nesting, and the selective policy's
  bytes and FLOPs by hand.
* docs/interview/dataparallel-vs-ddp-vs-fsdp.md: the ring all-reduce's 2(N-1)/N, the
  ZeRO stages' bytes per rank, DistributedSampler's padding and what it does to the
  averaged gradient.
* docs/interview/what-does-torch-compile-do-to-the-backward-pass.md: the compiled
  gradient equals eager autograd's.

Each test runs the page's own regions (snippets/interview/...) on inputs of its own,
at the edges: one token, one parameter, one rank, a batch of one.
"""

from __future__ import annotations

import itertools
import math
import warnings

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn
from torch.utils.checkpoint import checkpoint
from torch.utils.data import DistributedSampler
from torch.utils.flop_counter import FlopCounterMode

from tests.maths import run_region

FLOPS_PAGE = "docs/interview/how-many-flops-is-a-training-step.md"
FLOPS = "interview/how_many_flops_is_a_training_step"
MEMORY_PAGE = "docs/interview/how-much-memory-does-training-take.md"
MEMORY = "interview/how_much_memory_does_training_take"
REENTRANT_PAGE = "docs/interview/what-does-use-reentrant-change-in-checkpoint.md"
REENTRANT = "interview/what_does_use_reentrant_change_in_checkpoint"
PARALLEL_PAGE = "docs/interview/dataparallel-vs-ddp-vs-fsdp.md"
PARALLEL = "interview/dataparallel_vs_ddp_vs_fsdp"
COMPILE_PAGE = "docs/interview/what-does-torch-compile-do-to-the-backward-pass.md"
COMPILE = "interview/what_does_torch_compile_do_to_the_backward_pass"


# --- How many FLOPs is a training step? ----------------------------------------------------


def _mlp(widths: list[int]) -> nn.Sequential:
    """Linear layers between the widths, a ReLU between each two, as the page builds."""
    layers: list[nn.Module] = []
    for n_in, n_out in itertools.pairwise(widths):
        layers += [nn.Linear(n_in, n_out), nn.ReLU()]
    return nn.Sequential(*layers[:-1])


def _weights(widths: list[int]) -> int:
    return sum(a * b for a, b in itertools.pairwise(widths))


widths = st.lists(st.integers(1, 12), min_size=2, max_size=5)


@pytest.mark.claim(FLOPS_PAGE, "so the backward pass costs $4N$ per token, twice the forward pass")
@settings(max_examples=20, deadline=None)
@given(widths, st.integers(1, 9))
def test_forward_2n_and_backward_4n_per_token(ws: list[int], tokens: int) -> None:
    torch.manual_seed(0)
    inputs = torch.randn(tokens, ws[0], requires_grad=True)  # as an embedding's output
    page = run_region(
        FLOPS,
        "count-maths",
        inputs={"FlopCounterMode": FlopCounterMode, "model": _mlp(ws), "inputs": inputs},
    )
    n = _weights(ws)
    assert page["forward_flops"] == 2 * n * tokens  # one multiply and one add per weight
    assert page["backward_flops"] == 4 * n * tokens  # g^T x and g W, each 2 per weight


@pytest.mark.claim(
    FLOPS_PAGE, "That is ${2 \\cdot 8 \\cdot 16 \\cdot 64}$: the gradient with respect to the"
)
@settings(max_examples=20, deadline=None)
@given(widths, st.integers(1, 9))
def test_data_input_needs_no_first_input_gradient(ws: list[int], tokens: int) -> None:
    torch.manual_seed(0)
    data = torch.randn(tokens, ws[0])  # data: requires_grad is False
    page = run_region(
        FLOPS,
        "count-maths",
        inputs={"FlopCounterMode": FlopCounterMode, "model": _mlp(ws), "inputs": data},
    )
    first_layer = ws[0] * ws[1]
    assert page["backward_flops"] == 4 * _weights(ws) * tokens - 2 * tokens * first_layer


@pytest.mark.claim(FLOPS_PAGE, "${4Td}$ in the forward pass on top of the $2N$ of the four")
@settings(max_examples=15, deadline=None)
@given(st.integers(1, 12), st.integers(1, 40))
def test_attention_adds_4_t_d_per_token(d: int, T: int) -> None:
    attention = run_region(FLOPS, "model", "attention")["Attention"](d)
    with FlopCounterMode(display=False) as count:
        attention(torch.randn(T, d))
    # per sequence: 4 projections (2 T d^2 each), Q K^T and the product with V (2 T^2 d each)
    assert count.get_total_flops() == T * (2 * 4 * d * d) + 4 * T * T * d


@pytest.mark.claim(FLOPS_PAGE, "`FlopCounterMode` does not count them at all")
@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (0, 4)])
def test_elementwise_operations_count_nothing(shape: tuple[int, int]) -> None:
    counted = run_region(FLOPS, "model", "attention", "elementwise")["counted"]
    x = torch.randn(shape)
    for operation in (
        lambda: torch.relu(x),
        lambda: F.gelu(x),
        lambda: F.softmax(x, dim=-1),
        lambda: F.layer_norm(x, shape[-1:]),
        lambda: x + x,
        lambda: x.exp().sum(),
    ):
        assert counted(operation) == 0
    p = nn.Parameter(torch.randn(shape))
    p.grad = torch.ones(shape)
    assert counted(torch.optim.Adam([p]).step) == 0  # the optimizer's update


@pytest.mark.claim(FLOPS_PAGE, "the last layer's product. The non-reentrant checkpoint stops")
@settings(max_examples=15, deadline=None)
@given(widths, st.integers(1, 6))
def test_checkpointed_step_is_8n_minus_the_last_product(ws: list[int], tokens: int) -> None:
    torch.manual_seed(0)
    embedded = torch.randn(tokens, ws[0], requires_grad=True)
    page = run_region(
        FLOPS,
        "checkpoint-maths",
        inputs={
            "FlopCounterMode": FlopCounterMode,
            "checkpoint": checkpoint,
            "model": _mlp(ws),
            "embedded": embedded,
        },
    )
    last_layer = ws[-2] * ws[-1]  # saved by nothing, so not run again
    assert page["step_flops"] == 8 * _weights(ws) * tokens - 2 * tokens * last_layer


@pytest.mark.claim(FLOPS_PAGE, "A transformer layer of width $d$ has about ${12 d^2}$ weights")
@pytest.mark.parametrize(("d", "heads"), [(8, 1), (8, 2), (64, 4)])
def test_a_transformer_layer_has_12_d_squared_weights(d: int, heads: int) -> None:
    layer = nn.TransformerEncoderLayer(d, heads, 4 * d)
    weights = sum(p.numel() for p in layer.parameters() if p.dim() == 2)  # not biases, norms
    assert weights == 12 * d * d


# --- How much memory does training take? ---------------------------------------------------


def _adam_step(model: nn.Module) -> tuple[list[torch.Tensor], list[dict]]:
    params = list(model.parameters())
    adam = torch.optim.Adam(params)
    model(torch.randn(3, params[0].shape[-1])).pow(2).sum().backward()
    adam.step()
    return params, [adam.state[p] for p in params]


@pytest.mark.claim(MEMORY_PAGE, "and each of the four kinds takes ${4P = 395\\,520}$ bytes")
@pytest.mark.parametrize(
    "model",
    [
        nn.Linear(1, 1),  # 2 parameters
        nn.Linear(1, 1, bias=False),  # 1 parameter
        nn.Sequential(nn.Linear(5, 3), nn.Tanh(), nn.Linear(3, 7)),
    ],
    ids=["two", "one", "two-layers"],
)
def test_sixteen_bytes_per_parameter(model: nn.Module) -> None:
    params, state = _adam_step(model)
    session = run_region(MEMORY, "model")
    page = run_region(
        MEMORY, "fp32-maths", inputs={"params": params, "state": state, "nbytes": session["nbytes"]}
    )
    P = sum(p.numel() for p in params)
    memory = page["memory"]
    for kind in ("weights", "gradients", "Adam's exp_avg", "Adam's exp_avg_sq"):
        assert memory[kind] == 4 * P
    assert memory["Adam's step counters"] == 4 * len(params)  # one float32 per tensor


@pytest.mark.claim(MEMORY_PAGE, "Plain SGD without momentum keeps no state: 8 bytes per")
def test_sgd_state() -> None:
    for momentum, state_bytes in ((0.0, 0), (0.9, 4)):
        p = nn.Parameter(torch.randn(5))
        sgd = torch.optim.SGD([p], lr=0.1, momentum=momentum)
        p.grad = torch.ones(5)
        sgd.step()
        kept = sum(t.nbytes for t in sgd.state[p].values() if torch.is_tensor(t))
        assert kept == state_bytes * p.numel()  # + 4 weight + 4 gradient: 8 or 12


@pytest.mark.claim(MEMORY_PAGE, "(bfloat16 keeps 8 significant bits)")
def test_bfloat16_cannot_take_small_steps() -> None:
    assert torch.finfo(torch.bfloat16).eps == 2.0**-7  # 8 significant bits
    one = torch.tensor(1.0, dtype=torch.bfloat16)
    assert (one + 2.0**-9).item() == 1.0  # a step of 1/512 of the weight is lost


@pytest.mark.claim(MEMORY_PAGE, "A layer saves its copy for backward when its input needs a")
@pytest.mark.parametrize("batch", [1, 8])
@pytest.mark.parametrize("input_needs_grad", [False, True])
def test_autocast_saves_weight_copies(batch: int, input_needs_grad: bool) -> None:
    session = run_region(MEMORY, "model")
    x, y = session["data"](batch)
    session["x"], session["y"] = x.requires_grad_(input_needs_grad), y
    page = run_region(MEMORY, "autocast-maths", inputs=session)
    weights = [p for p in session["params"] if p.dim() == 2]
    copied = weights if input_needs_grad else weights[1:]  # not the first layer's, for data
    assert session["nbytes"](page["copies"]) == 2 * sum(w.numel() for w in copied)
    if input_needs_grad:  # "about 2 bytes per parameter"
        assert 1.95 < session["nbytes"](page["copies"]) / session["P"] <= 2


@pytest.mark.claim(MEMORY_PAGE, "${(256 + 256 + 64) \\cdot 4 = 2304}$ bytes")
@settings(max_examples=10, deadline=None)
@given(st.integers(1, 300))
def test_activations_grow_in_proportion_to_the_batch(batch: int) -> None:
    activation_bytes = run_region(MEMORY, "model", "activations")["activation_bytes"]
    assert activation_bytes(batch) == (256 + 256 + 64) * 4 * batch


@pytest.mark.claim(MEMORY_PAGE, "The peak is at the optimizer step for a small batch, and early")
def test_where_the_peak_is() -> None:
    page = run_region(MEMORY, "model", "fp32", "peak")
    profile_step = page["profile_step"]
    grads = 4 * page["P"]
    largest = 256 * 256 * 4
    for batch in (1, 8):
        _, peak, where = profile_step(batch)
        assert where == "step"
        # the gradients and two temporaries of the largest weight, and about 1 KB more
        assert 0 < peak - (grads + 2 * largest) <= 1100
    for batch in (1024, 2048, 4096):
        after_forward, peak, where = profile_step(batch)
        assert where == "backward"
        assert after_forward == 2304 * batch + 4  # the activations and the loss
        # activations without the difference, two gradients of batch x 256 values, the last
        # layer's weight and bias gradients, and two scalars
        assert peak == (2304 - 256) * batch + 2 * batch * 256 * 4 + 256 * 64 * 4 + 64 * 4 + 8


# --- What does use_reentrant change in checkpoint? -----------------------------------------

xs = st.lists(
    st.one_of(st.sampled_from([0.0, 1.0, -1.0]), st.floats(-3, 3)), min_size=1, max_size=6
)


def _setup_with(x: torch.Tensor):
    session = run_region(REENTRANT, "setup")
    session["x"] = x
    return session


@pytest.mark.claim(
    REENTRANT_PAGE, "the output does not require grad, PyTorch warns, and the parameters get no"
)
def test_reentrant_needs_an_input_that_requires_grad() -> None:
    page = run_region(REENTRANT, "setup", "no-input-grad")
    assert "use_reentrant=True : the weight's gradient is set: False" in page.output
    assert "use_reentrant=False: the weight's gradient is set: True" in page.output
    layer = page["layer"]
    for grad_mode in (True, False):
        with torch.set_grad_enabled(grad_mode), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = checkpoint(layer, page["data"], use_reentrant=True)
        assert not out.requires_grad
        if grad_mode:
            assert any(
                "None of the inputs have requires_grad=True" in str(w.message) for w in caught
            )
    # an input that requires grad is enough
    layer.weight.grad = None
    checkpoint(layer, page["data"].clone().requires_grad_(), use_reentrant=True).sum().backward()
    assert layer.weight.grad is not None


@pytest.mark.claim(REENTRANT_PAGE, "It refuses `torch.autograd.grad` and `backward(inputs=...)`.")
def test_reentrant_refuses_grad_and_inputs() -> None:
    page = run_region(REENTRANT, "setup")
    segment, x = page["segment"], page["x"]
    with pytest.raises(RuntimeError, match="use_reentrant=True"):
        torch.autograd.grad(checkpoint(segment, x, use_reentrant=True).sum(), x)
    with pytest.raises(RuntimeError, match="use_reentrant=True"):
        checkpoint(segment, x, use_reentrant=True).sum().backward(inputs=[x])
    x.grad = None
    checkpoint(segment, x, use_reentrant=False).sum().backward(inputs=[x])
    assert x.grad is not None


@pytest.mark.claim(REENTRANT_PAGE, "and gives exactly the gradient without checkpointing")
@settings(max_examples=20, deadline=None)
@given(xs, st.sampled_from([torch.float32, torch.float64]))
def test_non_reentrant_grad_is_exact(values: list[float], dtype: torch.dtype) -> None:
    x = torch.tensor(values, dtype=dtype, requires_grad=True)
    page = run_region(REENTRANT, "autograd-grad", inputs=_setup_with(x))
    assert torch.equal(page["grad"], page["eager"])
    # by hand: d/dx (tanh(e^x) + 1) = (1 - tanh(e^x)^2) e^x
    e = x.detach().exp()
    torch.testing.assert_close(page["grad"], (1 - e.tanh() ** 2) * e)


@pytest.mark.claim(REENTRANT_PAGE, "so the gradient comes back without a graph, and nothing warns")
@settings(max_examples=15, deadline=None)
@given(xs)
def test_reentrant_gradient_has_no_graph(values: list[float]) -> None:
    x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        page = run_region(REENTRANT, "double-backward", inputs=_setup_with(x))
    assert "use_reentrant=True : x.grad.requires_grad = False" in page.output
    assert "use_reentrant=False: x.grad.requires_grad = True" in page.output
    assert not any("checkpoint" in str(w.message).lower() for w in caught)
    xd = x.detach()
    torch.testing.assert_close(page["second"], 2 * xd.cos() - xd * xd.sin())  # f''(x)


@pytest.mark.claim(
    REENTRANT_PAGE, "the addition runs again only with the reentrant variant or with early stop off"
)
@pytest.mark.parametrize("shape", [(1,), (5,), (2, 3)])
def test_early_stop(shape: tuple[int, ...]) -> None:
    x = torch.randn(shape, requires_grad=True)
    page = run_region(REENTRANT, "early-stop", inputs=_setup_with(x))
    recomputed = page["recomputed"]
    assert recomputed(reentrant=True) == {"exp": 1, "tanh": 1, "add": 1}
    assert recomputed(reentrant=False) == {"exp": 1, "tanh": 1, "add": 0}
    assert recomputed(reentrant=False, early_stop=False) == {"exp": 1, "tanh": 1, "add": 1}


@pytest.mark.claim(REENTRANT_PAGE, "a final linear layer saves its input, not its output, so its")
def test_final_linear_layer_is_not_run_again() -> None:
    page = run_region(REENTRANT, "setup")
    torch.manual_seed(0)
    segment = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 3))
    h = torch.randn(2, 4, requires_grad=True)
    for reentrant, products in ((False, 1), (True, 2)):
        out = checkpoint(segment, h, use_reentrant=reentrant)
        with page["CountOps"]() as ops:
            out.sum().backward()
        assert ops.counts["addmm"] == products


@pytest.mark.claim(REENTRANT_PAGE, "A checkpoint inside a checkpoint works with both variants here")
@settings(max_examples=15, deadline=None)
@given(xs)
def test_nesting_works_with_both(values: list[float]) -> None:
    x = torch.tensor(values, requires_grad=True)
    page = run_region(REENTRANT, "nested", inputs=_setup_with(x))
    assert page.output.count("gradient as without checkpoint: True") == 2


@pytest.mark.claim(REENTRANT_PAGE, "Selective checkpointing keeps the first product, 32 KiB, and")
@pytest.mark.parametrize("batch", [1, 5, 32])
def test_selective_checkpointing_by_hand(batch: int) -> None:
    session = run_region(REENTRANT, "setup", "no-input-grad", "selective")
    session["inputs"] = torch.randn(batch, 64)
    table = run_region(REENTRANT, "selective-maths", inputs=session)["table"]
    hidden = batch * 256 * 4  # one batch x 256 float32 tensor
    forward_product = 2 * batch * 64 * 256  # each of the two products
    plain_backward = 2 * forward_product + forward_product  # two weight gradients, one input's
    kept = {name: row[0] for name, row in table.items()}
    assert kept == {"no checkpoint": 2 * hidden, "checkpoint": 0, "selective": hidden}
    flops = {name: row[2] for name, row in table.items()}
    assert flops == {
        "no checkpoint": plain_backward,
        "checkpoint": plain_backward + forward_product,  # the first product, run again
        "selective": plain_backward,
    }
    again = {name: (row[1]["addmm"], row[1]["gelu"]) for name, row in table.items()}
    assert again == {"no checkpoint": (0, 0), "checkpoint": (1, 1), "selective": (0, 1)}


@pytest.mark.claim(REENTRANT_PAGE, "works with the non-reentrant variant only")
def test_selective_needs_non_reentrant() -> None:
    session = run_region(REENTRANT, "setup", "no-input-grad", "selective")
    with pytest.raises(ValueError, match="use_reentrant=False"):
        checkpoint(
            session["block"], session["inputs"], use_reentrant=True, context_fn=session["selective"]
        )


@pytest.mark.claim(REENTRANT_PAGE, "The default is still the reentrant variant, and the warning")
@pytest.mark.parametrize("requires_grad", [True, False])
def test_leaving_use_reentrant_out_warns_and_is_reentrant(requires_grad: bool) -> None:
    page = run_region(REENTRANT, "setup")
    segment, x = page["segment"], page["x"].detach().requires_grad_(requires_grad)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = checkpoint(segment, x)  # no use_reentrant
    messages = [str(w.message) for w in caught]
    assert any("use_reentrant parameter should be passed explicitly" in m for m in messages)
    assert any("will raise an exception" in m for m in messages)
    if requires_grad:  # the reentrant variant's one node
        assert type(out.grad_fn).__name__ == "CheckpointFunctionBackward"
    else:  # the reentrant variant's limit: nothing recorded
        assert not out.requires_grad


# --- What is the difference between DataParallel, DDP and FSDP? ----------------------------


@pytest.mark.claim(PARALLEL_PAGE, "which is less than $2B$ however many ranks there are")
@settings(max_examples=20, deadline=None)
@given(st.integers(1, 9), st.integers(1, 7))
def test_ring_all_reduce_traffic(n: int, chunk: int) -> None:
    ring_all_reduce = run_region(PARALLEL, "ring")["ring_all_reduce"]
    generator = torch.Generator().manual_seed(n)
    grads = [torch.randn(n * chunk, generator=generator, dtype=torch.float64) for _ in range(n)]
    results, sent = ring_all_reduce(grads)
    B = grads[0].nbytes
    assert sent == [2 * (n - 1) * B // n] * n  # 2 (N - 1) B / N from every rank
    assert all(s < 2 * B for s in sent)
    total = torch.stack(grads).sum(dim=0)
    for result in results:
        torch.testing.assert_close(result, total)


@pytest.mark.claim(PARALLEL_PAGE, "With one rank every scheme is DDP.")
@pytest.mark.parametrize("params", [1, 1000, 124_438_272])
@pytest.mark.parametrize("ranks", [1, 2, 8, 64])
def test_zero_stages_bytes_per_rank(params: int, ranks: int) -> None:
    bytes_per_rank = run_region(PARALLEL, "memory-formula")["bytes_per_rank"]
    got = list(bytes_per_rank(params, ranks).values())
    psi, n, k = params, ranks, 12  # 2 + 2 bytes of 16-bit weight and gradient, K of state
    by_hand = [
        (2 + 2 + k) * psi,
        (2 + 2) * psi + k * psi / n,
        2 * psi + (2 + k) * psi / n,
        (2 + 2 + k) * psi / n,
    ]
    assert got == pytest.approx(by_hand, rel=1e-12)
    if ranks == 1:
        assert len(set(got)) == 1
    else:
        assert got[0] > got[1] > got[2] > got[3]  # only stage 3 divides everything


def _shares(n: int, ranks: int, drop_last: bool = False) -> list[list[int]]:
    return [
        list(
            DistributedSampler(
                list(range(n)), num_replicas=ranks, rank=r, shuffle=False, drop_last=drop_last
            )
        )
        for r in range(ranks)
    ]


@pytest.mark.claim(PARALLEL_PAGE, "when the dataset does not divide evenly, it repeats examples")
@settings(max_examples=30, deadline=None)
@given(st.integers(1, 20), st.integers(1, 7))
def test_distributed_sampler_pads_from_the_start(n: int, ranks: int) -> None:
    shares = _shares(n, ranks)
    per_rank = math.ceil(n / ranks)
    assert all(len(share) == per_rank for share in shares)
    used = sorted(i for share in shares for i in share)
    padding = per_rank * ranks - n
    repeated = list(range(n)) * (padding // n + 1)  # from the start, again if need be
    assert used == sorted(list(range(n)) + repeated[:padding])
    dropped = _shares(n, ranks, drop_last=True)
    assert all(len(share) == n // ranks for share in dropped)


@pytest.mark.claim(PARALLEL_PAGE, "The average of the ranks' gradients is then the mean")
@pytest.mark.parametrize("ranks", [1, 2, 3, 4, 7, 10])
def test_average_of_ranks_is_the_padded_mean(ranks: int) -> None:
    page = run_region(PARALLEL, "model", "sampler", "sampler-gradient")
    grad_of, n = page["grad_of"], len(page["dataset"])
    shares = _shares(n, ranks)
    averaged = torch.stack([grad_of(share) for share in shares]).mean(dim=0)
    torch.testing.assert_close(averaged, grad_of([i for share in shares for i in share]))
    if n % ranks == 0:  # no padding: the full batch
        torch.testing.assert_close(averaged, grad_of(page["dataset"]))


@pytest.mark.claim(PARALLEL_PAGE, "a small bias that moves with the shuffling from epoch to epoch")
def test_repeated_examples_change_with_the_epoch() -> None:
    repeated = []
    for epoch in range(3):
        used = []
        for rank in range(4):
            sampler = DistributedSampler(list(range(10)), num_replicas=4, rank=rank, shuffle=True)
            sampler.set_epoch(epoch)
            used += list(sampler)
        repeated.append({i for i in used if used.count(i) > 1})
    assert len({frozenset(r) for r in repeated}) > 1


@pytest.mark.claim(PARALLEL_PAGE, "With no GPU (`device_ids` empty) it just calls the model.")
def test_dataparallel_without_gpu_calls_the_model() -> None:
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    page = run_region(PARALLEL, "dataparallel")
    assert "if not self.device_ids:" in page.output
    torch.manual_seed(0)
    model = nn.Linear(3, 2)
    x = torch.randn(4, 3)
    dp = nn.DataParallel(model)
    assert dp.device_ids == []
    assert torch.equal(dp(x), model(x))


@pytest.mark.claim(PARALLEL_PAGE, "`DataParallel` is different: the loss is computed once")
def test_dataparallel_gradient_is_the_full_batch_gradient() -> None:
    # It needs GPUs to run, so read what its autograd functions do in backward.
    import importlib
    import inspect

    from torch.nn.parallel import _functions, scatter_gather

    replicate = importlib.import_module("torch.nn.parallel.replicate")  # the module

    page = run_region(PARALLEL, "dataparallel")
    # forward returns the outputs gathered on one device: the caller's loss covers the batch
    assert "return self.gather(outputs, self.output_device)" in page.output
    assert "return self.gather(" in inspect.getsource(nn.DataParallel.forward)
    # gather's backward is a scatter of the output's gradient, scatter's a gather
    assert "Gather.apply" in inspect.getsource(scatter_gather.gather)
    assert "Scatter.apply" in inspect.getsource(_functions.Gather.backward)
    assert "Gather.apply" in inspect.getsource(_functions.Scatter.backward)
    # the copies are made by Broadcast, whose backward sums their gradients
    assert "Broadcast.apply" in inspect.getsource(replicate)
    assert "ReduceAddCoalesced.apply" in inspect.getsource(_functions.Broadcast.backward)


# --- What does torch.compile do to the backward pass? --------------------------------------


@pytest.mark.claim(COMPILE_PAGE, "It saves one new tensor where eager mode saved two, and the")
def test_compiled_gradient_is_eager_gradient() -> None:
    page = run_region(COMPILE, "eager")
    torch.compiler.reset()
    compiled = torch.compile(page["f"], backend="aot_eager")
    for rows, seed in ((1, 1), (64, 2)):
        torch.manual_seed(seed)
        x, w = torch.randn(rows, 32), torch.randn(32, 16, requires_grad=True)
        out, saved = page["saved_by"](compiled, x, w)
        assert [s.endswith("new") for s in saved].count(True) == 1  # mm only
        (grad,) = torch.autograd.grad(out, w)
        (eager,) = torch.autograd.grad(page["f"](x, w), w)
        torch.testing.assert_close(grad, eager)
    torch.compiler.reset()


@pytest.mark.claim(
    COMPILE_PAGE, "compute-intensive operations, which it never recomputes, whatever"
)
@pytest.mark.parametrize("product", ["mm", "addmm", "bmm"])
def test_min_cut_never_recomputes_a_matrix_product(product: str) -> None:
    from functorch.compile import aot_function, min_cut_rematerialization_partition

    page = run_region(COMPILE, "eager", "aot", "partitioners")
    # A product of two thin inputs: recomputing it in backward would save n * n values.
    n, k = 128, 2
    torch.manual_seed(0)
    a, b = torch.randn(n, k), torch.randn(k, n, requires_grad=True)
    bias = torch.randn(n)
    functions = {
        "mm": lambda a, b, bias: (a @ b).sin().sum(),
        "addmm": lambda a, b, bias: torch.addmm(bias, a, b).sin().sum(),
        "bmm": lambda a, b, bias: torch.bmm(a[None], b[None]).sin().sum(),
    }
    record: dict[str, list[str]] = {}
    compiled = aot_function(
        functions[product],
        page["kept"]("saved", record),
        page["ops_of"]("backward", record),
        partition_fn=min_cut_rematerialization_partition,
    )
    compiled(a, b, bias).backward()
    assert any(
        entry.endswith(str((n, n))) or entry.endswith(str((1, n, n))) for entry in record["saved"]
    )
    # one product in backward, b's gradient: the forward product is not run again
    assert sum(record["backward"].count(op) for op in ("mm", "addmm", "bmm")) == 1
    (eager,) = torch.autograd.grad(functions[product](a, b, bias), b)
    torch.testing.assert_close(b.grad, eager)
