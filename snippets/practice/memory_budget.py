"""Exercise 3.6: a memory budget for training. Run it: python snippets/practice/memory_budget.py"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402

# --8<-- [start:starter]
import torch
from torch import nn

torch.manual_seed(0)
layers = [nn.Linear(100, 200), nn.ReLU(), nn.Linear(200, 200), nn.ReLU(), nn.Linear(200, 10)]
model = nn.Sequential(*layers)
model[0].requires_grad_(False)  # the first layer is frozen


def memory_budget(model: nn.Module) -> dict[str, int]:
    """The bytes that training `model` with torch.optim.Adam keeps, from the model alone."""
    parameters = ...  # every parameter's values
    gradients = ...  # the .grad tensors, after a backward pass
    adam = ...  # Adam's state, after a step: exp_avg, exp_avg_sq and step
    return {"parameters": parameters, "gradients": gradients, "adam": adam}


budget = memory_budget(model)  # then print it
# --8<-- [end:starter]

# --8<-- [start:solution]
import torch
from torch import nn

torch.manual_seed(0)
layers = [nn.Linear(100, 200), nn.ReLU(), nn.Linear(200, 200), nn.ReLU(), nn.Linear(200, 10)]
model = nn.Sequential(*layers)
model[0].requires_grad_(False)  # the first layer is frozen


def memory_budget(model: nn.Module) -> dict[str, int]:
    """The bytes that training `model` with torch.optim.Adam keeps, from the model alone."""
    every = list(model.parameters())
    trained = [p for p in every if p.requires_grad]  # a frozen one gets no .grad, no state
    parameters = sum(p.numel() * p.element_size() for p in every)
    gradients = sum(p.numel() * p.element_size() for p in trained)  # .grad: p's shape, dtype
    # Two running averages of p's shape and dtype, and a step counter: float32, one number.
    step = torch.tensor(0.0, dtype=torch.float32).element_size()
    adam = sum(2 * p.numel() * p.element_size() + step for p in trained)
    return {"parameters": parameters, "gradients": gradients, "adam": adam}


budget = memory_budget(model)
print("the budget, from the model alone:", budget)

# Measured: one real backward pass and one Adam step, then the bytes of what they keep.
optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-3)
model(torch.randn(8, 100)).square().mean().backward()
optimizer.step()
grads = [p.grad for p in model.parameters() if p.grad is not None]
state = [t for s in optimizer.state.values() for t in s.values()]
measured = {
    "parameters": sum(p.numel() * p.element_size() for p in model.parameters()),
    "gradients": sum(g.numel() * g.element_size() for g in grads),
    "adam": sum(t.numel() * t.element_size() for t in state),
}
print("measured after one step:         ", measured)
# What Adam keeps for one parameter: the last layer's bias, 10 numbers.
for key, value in optimizer.state[model[4].bias].items():
    print(f"  Adam's {key} for model[4].bias: {value.dtype}, shape {tuple(value.shape)}")
# --8<-- [end:solution]

# --8<-- [start:check]
# Runs a real training step (a backward pass and an Adam step) on the exercise's model
# and on a float64 model of its own, measures the bytes of the parameters, of their
# .grad tensors and of Adam's state, and compares them with what your memory_budget says.
import torch
from torch import nn

KEYS = ("parameters", "gradients", "adam")


def exercise_model() -> nn.Module:
    torch.manual_seed(0)
    layers = [nn.Linear(100, 200), nn.ReLU(), nn.Linear(200, 200), nn.ReLU(), nn.Linear(200, 10)]
    model = nn.Sequential(*layers)
    model[0].requires_grad_(False)
    return model


def float64_model() -> nn.Module:
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2, bias=False)).double()
    model[2].requires_grad_(False)
    return model


def measured(make) -> dict[str, int]:
    """The bytes kept after one real backward pass and Adam step on a fresh model."""
    model = make()
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    dtype = next(model.parameters()).dtype
    model(torch.randn(4, model[0].in_features, dtype=dtype)).square().mean().backward()
    optimizer.step()
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    state = [t for s in optimizer.state.values() for t in s.values()]
    return {
        "parameters": sum(p.numel() * p.element_size() for p in model.parameters()),
        "gradients": sum(g.numel() * g.element_size() for g in grads),
        "adam": sum(t.numel() * t.element_size() for t in state),
    }


def wrong_budgets(model: nn.Module) -> list[tuple[str, dict[str, int]]]:
    """Plausible wrong formulas, each with what it gets wrong."""
    every = list(model.parameters())
    trained = [p for p in every if p.requires_grad]

    def size(ps, per_number=None):
        return sum(p.numel() * (p.element_size() if per_number is None else per_number) for p in ps)

    return [
        (
            "that counts numbers, not bytes: multiply numel() by element_size()",
            {"parameters": size(every, 1), "gradients": size(trained, 1)},
        ),
        (
            "a frozen parameter still takes memory for its values: count every parameter",
            {"parameters": size(trained)},
        ),
        (
            "a frozen parameter (requires_grad False) gets no .grad, and Adam keeps no state "
            "for it",
            {"gradients": size(every), "adam": 2 * size(every) + 4 * len(every)},
        ),
        (
            "Adam also keeps a step counter for each parameter: a float32 tensor of one "
            "number, 4 bytes",
            {"adam": 2 * size(trained)},
        ),
        (
            "Adam keeps two running averages of each parameter's shape, exp_avg and exp_avg_sq",
            {"adam": size(trained) + 4 * len(trained)},
        ),
        (
            "the step counter is float32 whatever the parameter's dtype: 4 bytes",
            {"adam": sum(2 * p.numel() * p.element_size() + p.element_size() for p in trained)},
        ),
        (
            "the step counter is a float32 tensor of one number, 4 bytes, not a Python "
            "float's 8 (float64 only if you set PyTorch's default dtype to float64)",
            {"adam": 2 * size(trained) + 8 * len(trained)},
        ),
        (
            "the step counter is one number for each parameter tensor, not one for each value",
            {"adam": 3 * size(trained)},
        ),
        (
            "not every parameter is float32: element_size() is 8 bytes for a float64",
            {
                "parameters": size(every, 4),
                "gradients": size(trained, 4),
                "adam": 2 * size(trained, 4) + 4 * len(trained),
            },
        ),
    ]


def check() -> str:
    function, budget = globals().get("memory_budget"), globals().get("budget")
    if not callable(function) or not isinstance(budget, dict):
        return "Not done yet: run the starter cell; it defines memory_budget and budget."
    missing = [key for key in KEYS if budget.get(key) is ...]
    if missing:
        return f"Not done yet: replace ... in memory_budget with the bytes of {', '.join(missing)}."
    models = (
        ("the exercise's model", exercise_model),
        ("a float64 model with a frozen last layer", float64_model),
    )
    for name, make in models:
        expected, yours = measured(make), function(make())
        if not isinstance(yours, dict) or set(yours) != set(KEYS):
            return f"Not quite: expected a dict with the keys {list(KEYS)}, got {yours!r}."
        for key in KEYS:
            got = yours[key]
            if got == expected[key]:
                continue
            reasons = [r for r, wrong in wrong_budgets(make()) if wrong.get(key, -1) == got]
            return (
                f"Not quite: on {name}, expected {key} = {expected[key]} bytes (measured after a "
                f"real Adam step), got {got!r}" + (f": {reasons[0]}." if reasons else ".")
            )
    expected = measured(exercise_model)
    if budget != expected:
        return (
            "Not quite: memory_budget is right, but budget is not its result for the model: "
            f"expected {expected}, got {budget}."
        )
    return (
        f"Correct: {expected['parameters']} bytes of parameters, {expected['gradients']} of "
        f"gradients and {expected['adam']} of Adam state, as measured after a real step, on "
        "the exercise's model and on a float64 one."
    )


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]
