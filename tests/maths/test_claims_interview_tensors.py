"""Interview pages on tensors, copies, leaves and flags, at the edges of their claims.

* detach-vs-clone.md: every entry of ``state_dict()`` (parameters and buffers, float32
  and float64) shares its tensor's memory; ``copy.deepcopy`` and ``detach().clone()``
  keep the old values; ``clone().detach()`` records a ``CloneBackward0`` first (in grad
  mode only); ``.data`` escapes the version check.
* data-vs-detach.md: an update under ``no_grad()`` is counted by the version counter.
* detach-vs-no-grad-vs-inference-mode.md: an inference tensor is refused exactly by the
  operations that save it.
* leaf-vs-non-leaf-tensors.md, what-makes-a-tensor-a-leaf.md, what-is-grad-fn.md: a
  tensor without grad is a leaf however it was made; is_leaf == (grad_fn is None);
  integer and bool results get no grad_fn.
* parameter-vs-buffer-vs-tensor-attribute.md: what ``.to()``, ``.double()`` and
  ``.half()`` convert; a non-persistent buffer moves but is not saved.
* what-does-modified-by-an-inplace-operation-mean.md: each in-place operation adds 1.
* what-does-requires-grad-do.md and what-does-retain-grad-do.md: the flag spreads only in
  grad mode and only to floating results; ``retain_grad()`` on a leaf changes nothing.
* where-are-gradients-stored.md, why-cant-a-non-scalar-call-backward.md,
  why-cant-an-integer-tensor-require-grad.md,
  why-cant-you-call-numpy-on-a-tensor-that-requires-grad.md: a gradient's shape; one
  element, not one dimension; which dtypes may require grad; ``numpy(force=True)``.
"""

from __future__ import annotations

import copy

import pytest
import torch
from torch import nn

from tests.maths import run_region

DETACH_PAGE = "docs/interview/detach-vs-clone.md"
DETACH = "interview/detach_vs_clone"


def _same_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


@pytest.mark.claim(
    DETACH_PAGE, "the state dict holds detached tensors that share the parameters' memory"
)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_state_dict_shares_memory_and_copies_do_not(dtype: torch.dtype) -> None:
    page = run_region(DETACH, "compare", "state-dict")
    assert "state_dict() has the old weights: False" in page.output
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4)).to(dtype)
    state = model.state_dict()
    tensors = dict(model.named_parameters()) | dict(model.named_buffers())
    assert set(state) == set(tensors)
    for name, value in state.items():
        assert _same_memory(value, tensors[name]) and not value.requires_grad
    snapshots = [
        copy.deepcopy(model.state_dict()),
        {k: v.detach().clone() for k, v in model.state_dict().items()},
    ]
    old = {k: v.clone() for k, v in state.items()}
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model(torch.randn(5, 3, dtype=dtype)).pow(2).mean().backward()  # batch norm: stats too
    optimizer.step()
    for name in ("0.weight", "1.running_mean"):
        assert not torch.equal(state[name], old[name])  # the "best" weights moved
        for snapshot in snapshots:
            assert torch.equal(snapshot[name], old[name])
            assert not _same_memory(snapshot[name], tensors[name])


@pytest.mark.claim(DETACH_PAGE, "but the second records the copy in the graph first")
@pytest.mark.parametrize("grad_mode", [True, False])
def test_clone_detach_records_a_copy_first(grad_mode: bool) -> None:
    page = run_region(DETACH, "compare")
    y = page["y"]
    with torch.set_grad_enabled(grad_mode):
        recorded = y.clone()
        late, early = recorded.detach(), y.detach().clone()
    assert (recorded.grad_fn is not None) == grad_mode
    if grad_mode:
        assert recorded.grad_fn.name() == "CloneBackward0"
    assert torch.equal(late, early) and not late.requires_grad and not early.requires_grad
    assert not _same_memory(late, y) and not _same_memory(early, y)
    assert page["x"].detach().clone().grad_fn is None  # a leaf: nothing to record either


DATA_PAGE = "docs/interview/data-vs-detach.md"
DATA = "interview/data_vs_detach"
MODES_PAGE = "docs/interview/detach-vs-no-grad-vs-inference-mode.md"
MODES = "interview/detach_vs_no_grad_vs_inference_mode"


@pytest.mark.claim(DETACH_PAGE, "so an in-place change made through it escapes autograd's checks")
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_data_escapes_the_version_check(dtype: torch.dtype) -> None:
    page = run_region(DATA, "alike", "data")
    assert "e._version after e.data.mul_(2): 0" in page.output
    x = torch.tensor([0.0, 1.0, -2.0], dtype=dtype, requires_grad=True)
    e = torch.exp(x)
    e.data.mul_(2)
    e.sum().backward()  # no error
    torch.testing.assert_close(x.grad, 2 * torch.exp(x.detach()))  # and twice the gradient
    x.grad = None
    e = torch.exp(x)
    e.detach().mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        e.sum().backward()


@pytest.mark.claim(DATA_PAGE, "The change is counted, so a graph that saved the old value cannot")
def test_an_update_under_no_grad_is_counted() -> None:
    page = run_region(DATA, "alike", "data", "detach")
    assert "e._version after e.detach().mul_(2): 1" in page.output
    p = torch.tensor([1.0, 2.0], requires_grad=True)
    loss = (p * p).sum()  # saves p
    loss.backward(retain_graph=True)
    version = p._version
    with torch.no_grad():
        p -= 0.1 * p.grad
    assert p._version == version + 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


@pytest.mark.claim(MODES_PAGE, "so autograd refuses to save it")
@pytest.mark.parametrize(
    ("operation", "saves"),
    [
        (lambda w, t: w * t, True),
        (lambda w, t: w / t, True),
        (lambda w, t: t @ w, True),
        (lambda w, t: w**t, True),
        (lambda w, t: w + t, False),
        (lambda w, t: w - t, False),
    ],
)
def test_inference_tensors_are_refused_only_when_saved(operation: object, saves: bool) -> None:
    page = run_region(MODES, "scope", "compare")
    assert "inference_mode() False          True          none     no" in page.output
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.inference_mode():
        t = torch.tensor([3.0, 4.0])
    with torch.no_grad():
        ordinary = torch.tensor([3.0, 4.0])
    operation(w, ordinary).sum().backward()  # a no_grad() result: always fine
    if saves:
        with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
            operation(w, t)
    else:
        w.grad = None
        operation(w, t).sum().backward()
        assert w.grad is not None


LEAF_PAGE = "docs/interview/leaf-vs-non-leaf-tensors.md"
LEAF = "interview/leaf_vs_non_leaf_tensors"


@pytest.mark.claim(LEAF_PAGE, "A tensor that does not require grad is always a leaf, even one")
@pytest.mark.parametrize(
    "make",
    [
        lambda x, d: d * 10,  # an operation on data
        lambda x, d: (d @ d.T).exp(),
        lambda x, d: x.detach() * 2,  # from a tensor that requires grad, detached first
        lambda x, d: d[0],  # a view
        lambda x, d: torch.where(d > 1, d, 0.0),
    ],
)
@pytest.mark.parametrize("grad_mode", [True, False])
def test_a_tensor_without_grad_is_a_leaf(make: object, grad_mode: bool) -> None:
    page = run_region(LEAF, "describe")
    assert "  data: is_leaf=True  requires_grad=False grad_fn=None" in page.output
    x, data = page["x"], page["data"].reshape(1, 2)
    with torch.set_grad_enabled(grad_mode):
        t = make(x, data)
        under_mode = x * 2  # from x: recorded only in grad mode
    assert not t.requires_grad and t.is_leaf and t.grad_fn is None
    assert under_mode.is_leaf == (not grad_mode)


PARAMETER_PAGE = "docs/interview/parameter-vs-buffer-vs-tensor-attribute.md"
PARAMETER = "interview/parameter_vs_buffer_vs_tensor_attribute"


@pytest.mark.claim(
    PARAMETER_PAGE, "| converted by `.to()`, `.double()`, `.cuda()` | yes | yes | no |"
)
@pytest.mark.parametrize("convert", ["double", "half", "meta"])
def test_what_to_converts(convert: str) -> None:
    page = run_region(PARAMETER, "module", "move")
    assert "offset       on cpu" in page.output
    m = page["Scaler"]()
    m = m.to("meta") if convert == "meta" else getattr(m, convert)()
    moved = [m.weight, m.running_mean]
    if convert == "meta":
        assert all(t.device.type == "meta" for t in moved) and m.offset.device.type == "cpu"
    else:
        dtype = {"double": torch.float64, "half": torch.float16}[convert]
        assert all(t.dtype == dtype for t in moved) and m.offset.dtype == torch.float32
    assert isinstance(m.weight, nn.Parameter)  # still a parameter after the conversion


@pytest.mark.claim(PARAMETER_PAGE, "moves with the model")
def test_a_non_persistent_buffer_moves_but_is_not_saved() -> None:
    page = run_region(PARAMETER, "module", "batchnorm")
    assert page.output.rstrip().endswith("buffers(): ['mask'] | state_dict(): []")
    module = nn.Module()
    module.register_buffer("mask", torch.ones(2), persistent=False)
    module.double()
    assert module.mask.dtype == torch.float64 and "mask" not in module.state_dict()
    assert module.to("meta").mask.device.type == "meta"


INPLACE_PAGE = "docs/interview/what-does-modified-by-an-inplace-operation-mean.md"
INPLACE = "interview/what_does_modified_by_an_inplace_operation_mean"


@pytest.mark.claim(INPLACE_PAGE, "every in-place operation adds 1 to it")
@pytest.mark.parametrize(
    "change",
    [
        lambda t: t.__iadd__(1),
        lambda t: t.mul_(2),
        lambda t: t.__setitem__(0, 5.0),
        lambda t: t.zero_(),
        lambda t: t.copy_(torch.ones(2)),
        lambda t: t.clamp_(0, 1),
        lambda t: t.sigmoid_(),
    ],
)
def test_each_inplace_operation_adds_one(change: object) -> None:
    page = run_region(INPLACE, "saved")
    assert "version of e after += 1: 1" in page.output
    x = page["x"]
    e = torch.exp(x)
    before = e._version
    change(e)
    assert e._version == before + 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        e.sum().backward()  # at backward, not at the change


REQUIRES_PAGE = "docs/interview/what-does-requires-grad-do.md"
REQUIRES = "interview/what_does_requires_grad_do"
RETAIN_PAGE = "docs/interview/what-does-retain-grad-do.md"
RETAIN = "interview/what_does_retain_grad_do"


@pytest.mark.claim(REQUIRES_PAGE, "Results with a `bool` or integer dtype are the exception")
@pytest.mark.parametrize(
    "make",
    [
        lambda w, a: a * w,
        lambda w, a: (a * w).sum(),
        lambda w, a: w.exp() + a,
        lambda w, a: w > 0,
        lambda w, a: w.argmax(),
        lambda w, a: (w * 2).long(),
        lambda w, a: w.int(),
        lambda w, a: torch.isfinite(w),
    ],
)
@pytest.mark.parametrize("mode", ["grad", "no_grad", "inference_mode"])
def test_requires_grad_spreads_in_grad_mode_to_float_results(make: object, mode: str) -> None:
    page = run_region(REQUIRES, "gradient", "spreads")
    assert "a * w under inference_mode(): False" in page.output
    w = torch.tensor([1.5, -2.0], requires_grad=True)
    a = torch.tensor([2.0, 3.0])  # requires no grad
    context = {
        "grad": torch.enable_grad,
        "no_grad": torch.no_grad,
        "inference_mode": torch.inference_mode,
    }[mode]
    with context():
        result = make(w, a)
        created = torch.tensor(1.0, requires_grad=True)  # asked for explicitly
    expected = mode == "grad" and result.dtype.is_floating_point
    assert result.requires_grad == expected
    assert created.requires_grad


@pytest.mark.claim(RETAIN_PAGE, "has no effect on leaves, which keep their gradients anyway")
def test_retain_grad_on_a_leaf_changes_nothing() -> None:
    page = run_region(RETAIN, "keep")
    assert "y.grad: tensor(12.)" in page.output
    x = torch.tensor(2.0, requires_grad=True)
    x.retain_grad()  # no error
    assert not x.retains_grad  # the flag is for non-leaves
    ((x * 3) ** 2).backward()
    assert x.grad.item() == 36.0  # kept, as without the call


GRAD_FN_PAGE = "docs/interview/what-is-grad-fn.md"
GRAD_FN = "interview/what_is_grad_fn"


@pytest.mark.claim(GRAD_FN_PAGE, "its result (unless it is an integer or `bool` tensor) gets a")
def test_integer_and_bool_results_get_no_grad_fn() -> None:
    page = run_region(GRAD_FN, "names")
    assert "u    grad_fn: MulBackward0" in page.output
    w = page["w"]
    for result in (w * 2, w.exp(), (w * 2).long(), w > 0, w.argmax()):
        floating = result.dtype.is_floating_point
        assert (result.grad_fn is not None) == floating
    with torch.no_grad():
        assert (w * 2).grad_fn is None


RULE_PAGE = "docs/interview/what-makes-a-tensor-a-leaf.md"
RULE = "interview/what_makes_a_tensor_a_leaf"
STORED_PAGE = "docs/interview/where-are-gradients-stored.md"
STORED = "interview/where_are_gradients_stored"


def _many_tensors() -> list[torch.Tensor]:
    w = torch.randn(3, requires_grad=True)
    data = torch.randn(3)
    with torch.no_grad():
        under_no_grad = w * 2
    with torch.inference_mode():
        inference = torch.ones(2)
    return [
        w,
        data,
        w * 2,
        w[0],  # a view of a leaf
        w.detach(),
        (w * 2).detach(),
        under_no_grad,
        (w * 2).long(),
        w > 0,
        data.exp().requires_grad_(),
        nn.Linear(2, 2).weight,
        nn.Linear(2, 2)(torch.randn(1, 2)),
        inference,
        torch.tensor(1.0, dtype=torch.float64, requires_grad=True) ** 2,
    ]


@pytest.mark.claim(RULE_PAGE, "the whole rule comes down to `grad_fn is None`")
def test_the_rule_and_its_shortcut_agree_with_pytorch() -> None:
    page = run_region(RULE, "rule")
    assert all(
        line.split("is_leaf=")[1].split()[0] == line.split("rule=")[1].split()[0]
        for line in page.output.splitlines()
    )
    for t in _many_tensors():
        assert t.is_leaf == page["leaf_by_the_rule"](t) == (t.grad_fn is None)
        if not t.requires_grad:
            assert t.grad_fn is None  # never has one


@pytest.mark.claim(STORED_PAGE, "A gradient has the same shape as its tensor")
@pytest.mark.parametrize("shape", [(), (1,), (5,), (3, 1), (2, 1, 5)])
def test_a_gradient_has_its_tensors_shape(shape: tuple[int, ...]) -> None:
    page = run_region(STORED, "parameters")
    assert "weight: leaf=True, shape (1, 10), grad shape (1, 10)" in page.output
    w = torch.randn(shape, requires_grad=True)
    assert w.grad is None  # before the first backward pass
    (w * torch.randn(4, 2, 3, 5)).sum().backward()  # broadcast: used many times over
    assert w.grad.shape == w.shape


SCALAR_PAGE = "docs/interview/why-cant-a-non-scalar-call-backward.md"
SCALAR = "interview/why_cant_a_non_scalar_call_backward"
INTEGER_PAGE = "docs/interview/why-cant-an-integer-tensor-require-grad.md"
INTEGER = "interview/why_cant_an_integer_tensor_require_grad"
NUMPY_PAGE = "docs/interview/why-cant-you-call-numpy-on-a-tensor-that-requires-grad.md"
NUMPY = "interview/why_cant_you_call_numpy_on_a_tensor_that_requires_grad"


@pytest.mark.claim(
    SCALAR_PAGE, "The test PyTorch applies is the number of elements, not the number"
)
@pytest.mark.parametrize(
    ("shape", "allowed"),
    [((), True), ((1,), True), ((1, 1), True), ((1, 1, 1), True), ((2,), False), ((0,), False)],
)
def test_backward_without_argument_needs_one_element(shape: tuple[int, ...], allowed: bool) -> None:
    page = run_region(SCALAR, "vector", "one-element")
    assert "numel: 1" in page.output
    x = torch.ones(shape, requires_grad=True)
    if allowed:
        (x * 3).backward()
        assert x.grad.shape == shape and x.grad.eq(3).all()
    else:
        with pytest.raises(RuntimeError, match="only for scalar outputs"):
            (x * 3).backward()


@pytest.mark.claim(
    INTEGER_PAGE, "PyTorch only lets floating point and complex tensors require grad"
)
@pytest.mark.parametrize(
    "dtype",
    [
        torch.uint8,
        torch.int8,
        torch.int16,
        torch.int32,
        torch.int64,
        torch.bool,
        torch.float16,
        torch.bfloat16,
        torch.float32,
        torch.float64,
        torch.complex64,
    ],
)
def test_only_floating_and_complex_require_grad(dtype: torch.dtype) -> None:
    page = run_region(INTEGER, "dtype", "fix")
    assert "w.grad: tensor([2., 4., 6.]) torch.float32" in page.output
    allowed = dtype.is_floating_point or dtype.is_complex
    if not allowed:
        with pytest.raises(RuntimeError, match="floating point and complex"):
            torch.zeros(2, dtype=dtype, requires_grad=True)
        return
    w = torch.ones(2, dtype=dtype, requires_grad=True)
    (w * w).abs().sum().backward()  # the gradient is stored in the tensor's own dtype
    assert w.grad.dtype == dtype


@pytest.mark.claim(NUMPY_PAGE, "its documentation adds that it also copies a GPU tensor to the CPU")
def test_numpy_force_documentation() -> None:
    page = run_region(NUMPY, "setup", "fix")
    assert "y.numpy(force=True): [3. 6.]" in page.output
    doc = " ".join(torch.Tensor.numpy.__doc__.split())
    assert "``t.detach().cpu().resolve_conj().resolve_neg().numpy()``" in doc
    y = page["y"]
    array = y.detach().numpy()  # on the CPU: no copy
    array[0] = 100.0
    assert y[0].item() == 100.0
