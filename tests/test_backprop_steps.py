"""Step-through figures: the captured numbers are autograd's, in the engine's order.

Every expected number here comes from a second, independent backward pass (`.grad`,
`retain_grad()`), never from a typed value.
"""

from __future__ import annotations

import re

import pytest
import torch
from support import ROOT

from coursekit.figures import backprop_steps
from coursekit.figures.backprop_steps import Capture, capture, figure, step_texts
from coursekit.mkdocs_adapter.plugin import with_step_assets


def chain() -> dict[str, torch.Tensor]:
    x = torch.tensor(2.0, requires_grad=True)
    y = x * 3
    z = y + 4
    loss = z**2
    return {"x": x, "y": y, "z": z, "loss": loss}


def linear() -> dict[str, torch.Tensor]:
    x = torch.tensor(2.0, requires_grad=True)
    w = torch.tensor(3.0, requires_grad=True)
    b = torch.tensor(1.0, requires_grad=True)
    p = x * w
    y = p + b
    loss = y**2
    return {"x": x, "w": w, "b": b, "p": p, "y": y, "loss": loss}


def used_twice() -> dict[str, torch.Tensor]:
    w = torch.tensor(3.0, requires_grad=True)
    product = w * 2.0
    square = w**2
    loss = product + square
    return {"w": w, "wx": product, "s": square, "loss": loss}


def model() -> dict[str, torch.Tensor]:
    x, target = torch.tensor(2.0), torch.tensor(10.0)
    w = torch.tensor(3.0, requires_grad=True)
    b = torch.tensor(1.0, requires_grad=True)
    wx = w * x
    p = wx + b
    error = p - target
    loss = error**2
    return {"w": w, "b": b, "wx": wx, "p": p, "error": error, "L": loss}


def matrices() -> dict[str, torch.Tensor]:
    """1×1 matrices in double precision: the local derivatives need a gradient shaped and
    typed like each node's output (mm refuses a 0-d one)."""
    x = torch.tensor([[2.0]], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([[3.0]], dtype=torch.float64, requires_grad=True)
    y = x @ w
    loss = y.sum()
    return {"x": x, "w": w, "y": y, "loss": loss}


GRAPHS = {
    "chain": chain,
    "linear": linear,
    "used_twice": used_twice,
    "model": model,
    "matrices": matrices,
}


def reference(build: object) -> dict[str, float]:
    """d(root)/d(tensor) for every named tensor, from a plain backward() on a fresh graph."""
    tensors = build()  # type: ignore[operator]
    root = list(tensors.values())[-1]
    for t in tensors.values():
        if not t.is_leaf:
            t.retain_grad()
    root.backward()
    return {name: t.grad.item() for name, t in tensors.items()}


def captured(build: object) -> tuple[Capture, dict[str, torch.Tensor]]:
    tensors = build()  # type: ignore[operator]
    return capture(list(tensors.values())[-1], tensors), tensors


@pytest.mark.parametrize("name", GRAPHS)
def test_numbers_are_autograds(name: str) -> None:
    cap, tensors = captured(GRAPHS[name])
    expected = reference(GRAPHS[name])
    leaves = {n for n, t in tensors.items() if t.is_leaf}
    assert cap.leaf_grads == {n: expected[n] for n in leaves}
    for node in cap.nodes:
        assert node.value == tensors[node.tensor].item()
        if node.leaf:
            assert node.stored == expected[node.tensor]
        # What arrives at a node is d(root)/d(its output), the same for a leaf's
        # AccumulateGrad (the sum of its paths) and for an operation.
        assert node.arriving == expected[node.tensor]


@pytest.mark.parametrize("name", GRAPHS)
def test_chain_rule_holds_on_every_edge(name: str) -> None:
    """passed = arriving × local: the local derivative really is the node's own factor."""
    cap, _ = captured(GRAPHS[name])
    edges = [(n, e) for n in cap.nodes for e in n.edges if e.child is not None]
    assert edges
    for node, edge in edges:
        assert node.arriving is not None and edge.local is not None
        assert edge.passed == pytest.approx(node.arriving * edge.local)


@pytest.mark.parametrize("name", GRAPHS)
def test_steps_follow_the_engine(name: str) -> None:
    cap, _ = captured(GRAPHS[name])
    # One step per node, each node once, and a last step for the .grad of every leaf.
    assert sorted(cap.order) == [n.index for n in cap.nodes]
    assert cap.steps == len(cap.nodes) + 1 == len(step_texts(cap))
    # The engine starts at the root and reaches a node only after every node above it.
    assert cap.order[0] == cap.nodes[-1].index
    for node in cap.nodes:
        for parent, _ in cap.parents(node.index):
            assert parent.step < node.step
    # The order is the one the engine really used: a tensor's hooks run just before the
    # node that made it (a leaf's, before its AccumulateGrad), so they see the same order.
    seen: list[str] = []
    fresh = GRAPHS[name]()
    for tname, t in fresh.items():
        t.register_hook(lambda _grad, tname=tname: seen.append(tname))
    list(fresh.values())[-1].backward()
    engine = [cap.nodes[i].tensor for i in cap.order]
    assert engine == seen


def test_gradients_of_two_paths_meet_in_the_leaf() -> None:
    cap, _ = captured(used_twice)
    (leaf,) = [n for n in cap.nodes if n.leaf]
    paths = [e.passed for _, e in cap.parents(leaf.index)]
    assert len(paths) == 2
    assert leaf.arriving == pytest.approx(sum(p for p in paths if p is not None))
    assert "the sum of" in step_texts(cap)[leaf.step - 1]


def test_the_figure_leaves_tensors_as_it_found_them() -> None:
    tensors = linear()
    tensors["w"].grad = torch.tensor(5.0)  # a gradient left from earlier
    loss = tensors["loss"]
    figure(loss, tensors, caption="c")
    assert tensors["x"].grad is None and tensors["w"].grad.item() == 5.0
    loss.backward()  # the graph is still there, and no hook of the figure runs again
    assert tensors["x"].grad.item() == reference(linear)["x"]
    assert tensors["w"].grad.item() == 5.0 + reference(linear)["w"]


def test_refuses_what_it_cannot_show() -> None:
    tensors = chain()
    loss = tensors["loss"]
    with pytest.raises(ValueError, match="name the tensor"):
        capture(loss, {"x": tensors["x"], "loss": loss})
    with pytest.raises(ValueError, match="no grad_fn"):
        capture(tensors["x"], tensors)
    loss.backward()
    with pytest.raises(ValueError, match="already freed"):
        capture(loss, tensors)
    v = torch.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="scalar"):
        capture((v * 2).sum(), {"v": v})


# A post-accumulate-grad hook exists on leaves only: x is the chain's leaf, y is not.
@pytest.mark.parametrize(
    ("where", "kind"),
    [("x", "tensor hook"), ("y", "tensor hook"), ("x", "post-accumulate hook")],
)
def test_refuses_tensors_with_hooks(where: str, kind: str) -> None:
    """The capture's backward pass would run the page's own hooks: it refuses instead."""
    tensors = chain()
    calls: list[str] = []
    if kind == "tensor hook":
        tensors[where].register_hook(lambda _grad: calls.append(where))
    else:
        tensors[where].register_post_accumulate_grad_hook(lambda _t: calls.append(where))
    with pytest.raises(ValueError, match=f"{where} has hooks"):
        capture(tensors["loss"], tensors)
    assert calls == []


def test_its_own_hooks_are_gone_after_a_figure() -> None:
    tensors = linear()
    figure(tensors["loss"], tensors, caption="c")
    figure(tensors["loss"], tensors, caption="c")  # not refused: nothing left behind


def test_saved_values_leave_out_a_default_alpha() -> None:
    a = torch.tensor(5.0, requires_grad=True)
    b = torch.tensor(2.0, requires_grad=True)
    plain = a - b
    cap = capture(plain, {"a": a, "b": b, "d": plain})
    assert [n.saved for n in cap.nodes if n.kind == "SubBackward0"] == [[]]
    scaled = torch.sub(a, b, alpha=3)
    cap = capture(scaled, {"a": a, "b": b, "d": scaled})
    assert [n.saved for n in cap.nodes if n.kind == "SubBackward0"] == [[("alpha", "3")]]
    assert "alpha" not in figure(*_root_and_names(chain()), caption="c")


def _root_and_names(
    tensors: dict[str, torch.Tensor],
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    return list(tensors.values())[-1], tensors


def test_boxes_say_which_derivative_they_show() -> None:
    """A non-leaf box shows ∂root/∂its tensor, as the step's text does, never "grad n",
    which reads like a .grad that a non-leaf does not keep."""
    cap, tensors = captured(chain)
    markup = figure(tensors["loss"], tensors, caption="c")
    svg = re.search(r"<svg.*</svg>", markup, re.S)
    assert svg
    boxes = re.findall(r'<text class="bps-grad" x="[^"]+" y="[^"]+">([^<]+)</text></g>', svg[0])
    texts = " ".join(step_texts(cap))
    for node in cap.nodes:
        if not node.leaf:
            label = f"∂loss/∂{node.tensor} = {backprop_steps.number(node.arriving or 0)}"
            assert label in boxes and label in texts
    assert not [b for b in boxes if b.startswith("grad")]
    # The description of the drawing does not promise a list that the script hides.
    assert "described one at a time below the drawing" in markup


def _text(markup: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", markup))


@pytest.mark.parametrize("name", GRAPHS)
def test_figure_lists_every_step_as_text(name: str) -> None:
    cap, tensors = captured(GRAPHS[name])
    markup = figure(list(tensors.values())[-1], tensors, caption="A caption")
    assert markup.startswith('<figure class="backprop-steps"')
    assert f'data-steps="{cap.steps}"' in markup
    assert f"Step 1 of {cap.steps}" in markup
    assert 'aria-live="polite"' in markup
    ol = re.search(r'<ol class="bps-steps">(.*?)</ol>', markup, re.S)
    assert ol and ol[1].count("<li") == cap.steps
    # The text of the list alone (what the record keeps) holds every number.
    text = _text(ol[1])
    for grad_name, value in cap.leaf_grads.items():
        assert f"{grad_name}.grad = {backprop_steps.number(value)}" in text
    for node in cap.nodes:
        assert f"{node.tensor} = {backprop_steps.number(node.value)}" in text
        assert backprop_steps.number(node.arriving or 0) in text
    # Each drawn node and edge belongs to a step the script can show.
    steps = {int(s) for s in re.findall(r'<g class="bps-[a-z -]+" data-step="(\d+)"', markup)}
    assert steps == set(range(1, cap.steps))


def test_figure_is_deterministic() -> None:
    tensors_a, tensors_b = chain(), chain()
    a = figure(tensors_a["loss"], tensors_a, caption="c")
    b = figure(tensors_b["loss"], tensors_b, caption="c")
    assert a == b


@pytest.mark.parametrize(
    ("url", "script"),
    [
        ("chapters/chain-rule/", "../../assets/javascripts/backprop-steps.js"),
        (
            "interview/gradient-of-a-parameter-used-twice/",
            "../../assets/javascripts/backprop-steps.js",
        ),
        ("", "assets/javascripts/backprop-steps.js"),
    ],
)
def test_hook_adds_the_script_to_pages_with_a_figure(url: str, script: str) -> None:
    tensors = chain()
    markup = figure(tensors["loss"], tensors, caption="c")
    out = with_step_assets(f"<p>text</p>{markup}", url)
    assert f'<script src="{script}" defer></script>' in out
    assert out.count("backprop-steps.css") == 1
    assert with_step_assets("<p>no figure</p>", url) == "<p>no figure</p>"


FIGURE_PAGES = [
    "docs/chapters/chain-rule.md",
    "docs/chapters/several-variables.md",
    "docs/chapters/backprop-by-hand.md",
    "docs/chapters/gradients-to-training.md",
    "docs/interview/gradient-of-a-parameter-used-twice.md",
]


@pytest.mark.parametrize("page", FIGURE_PAGES)
def test_pages_have_a_step_through(page: str) -> None:
    source = (ROOT / page).read_text(encoding="utf-8")
    assert "backprop_steps.figure(" in source
