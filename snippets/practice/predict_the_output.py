"""Exercise 2.8: predict the output, then run it.

Run it: python snippets/practice/predict_the_output.py
"""
# Each region is a self-contained cell (page, notebook), so imports repeat.
# ruff: noqa: E402, F811

# --8<-- [start:starter]
import torch


# Read each block and predict what it returns, without running anything.
def block_a():
    x = torch.tensor(2.0, requires_grad=True)
    (x**2).backward()
    (x**2).backward()
    return x.grad


def block_b():
    x = torch.tensor(3.0, requires_grad=True)
    y = x * 2
    (y**2).backward()
    return y.grad


def block_c():
    x = torch.tensor(2.0, requires_grad=True)
    y = x**2
    y.backward(retain_graph=True)
    y.backward()
    return x.grad


def block_d():
    x = torch.tensor(2.0, requires_grad=True)
    y = x**2
    y.backward()
    y.backward()
    return x.grad


def block_e():
    x = torch.tensor(2.0, requires_grad=True)
    y = x + 1
    y.backward()
    y.backward()
    return x.grad


def block_f():
    x = torch.tensor(1.0, requires_grad=True)
    y = x * 3
    y.retain_grad()
    (y**2).backward()
    return y.grad


# Your predictions: a number, None, or "error" if you think the block raises.
# Replace each "?" with your prediction.
predictions = {
    "a": "?",
    "b": "?",
    "c": "?",
    "d": "?",
    "e": "?",
    "f": "?",
}
print(predictions)
# --8<-- [end:starter]

# --8<-- [start:solution]
import torch


def block_a():
    x = torch.tensor(2.0, requires_grad=True)
    (x**2).backward()
    (x**2).backward()
    return x.grad


def block_b():
    x = torch.tensor(3.0, requires_grad=True)
    y = x * 2
    (y**2).backward()
    return y.grad


def block_c():
    x = torch.tensor(2.0, requires_grad=True)
    y = x**2
    y.backward(retain_graph=True)
    y.backward()
    return x.grad


def block_d():
    x = torch.tensor(2.0, requires_grad=True)
    y = x**2
    y.backward()
    y.backward()
    return x.grad


def block_e():
    x = torch.tensor(2.0, requires_grad=True)
    y = x + 1
    y.backward()
    y.backward()
    return x.grad


def block_f():
    x = torch.tensor(1.0, requires_grad=True)
    y = x * 3
    y.retain_grad()
    (y**2).backward()
    return y.grad


predictions = {
    "a": 8.0,  # two new graphs, 2x = 4 each: .grad adds them up
    "b": None,  # y is not a leaf, so its gradient is not kept
    "c": 8.0,  # the graph was kept, so the second pass works and adds another 4
    "d": "error",  # the first backward() freed the saved x that x**2 needs
    "e": 2.0,  # x + 1 saves nothing, so a second pass works: 1 + 1
    "f": 6.0,  # retain_grad() keeps dloss/dy = 2y = 2 * 3
}

# Then run the blocks and compare with what torch really gives.
blocks = (block_a, block_b, block_c, block_d, block_e, block_f)
for (name, predicted), block in zip(predictions.items(), blocks, strict=True):
    try:
        result = block()
    except RuntimeError as error:
        result = type(error).__name__
    print(f"{name}: predicted {predicted!r:8} got {result}")
# --8<-- [end:solution]

# --8<-- [start:check]
# Runs each block with torch and compares what it returns with your prediction.
# The blocks are copied here, so that the check runs exactly the code you read.
import warnings

import torch


def block_a():
    x = torch.tensor(2.0, requires_grad=True)
    (x**2).backward()
    (x**2).backward()
    return x.grad


def block_b():
    x = torch.tensor(3.0, requires_grad=True)
    y = x * 2
    (y**2).backward()
    return y.grad


def block_c():
    x = torch.tensor(2.0, requires_grad=True)
    y = x**2
    y.backward(retain_graph=True)
    y.backward()
    return x.grad


def block_d():
    x = torch.tensor(2.0, requires_grad=True)
    y = x**2
    y.backward()
    y.backward()
    return x.grad


def block_e():
    x = torch.tensor(2.0, requires_grad=True)
    y = x + 1
    y.backward()
    y.backward()
    return x.grad


def block_f():
    x = torch.tensor(1.0, requires_grad=True)
    y = x * 3
    y.retain_grad()
    (y**2).backward()
    return y.grad


BLOCKS = {"a": block_a, "b": block_b, "c": block_c, "d": block_d, "e": block_e, "f": block_f}


def outcome(block) -> object:
    """What a block really gives: a number, None, or "error"."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # reading y.grad warns; the check stays quiet
            result = block()
    except RuntimeError:
        return "error"
    return None if result is None else result.item()


def normalised(prediction: object) -> object:
    """8, 8.0, "8", tensor(8.) are the same prediction; so are None and "None"."""
    if isinstance(prediction, torch.Tensor) and prediction.numel() == 1:
        return prediction.item()
    if isinstance(prediction, str):
        word = prediction.strip()
        if word.lower() == "none":
            return None
        try:
            return float(word)
        except ValueError:
            return prediction
    return prediction


def same(prediction: object, actual: object) -> bool:
    prediction = normalised(prediction)
    if isinstance(actual, float):
        return isinstance(prediction, int | float) and abs(prediction - actual) < 1e-6
    if actual == "error":  # "error", " Error ", "RuntimeError": the same prediction
        words = prediction.strip().lower().replace(" ", "") if isinstance(prediction, str) else ""
        return words in {"error", "runtimeerror"}
    return prediction == actual


def check() -> str:
    predictions = globals().get("predictions")
    if not isinstance(predictions, dict) or set(predictions) != set(BLOCKS):
        return "Not done yet: predictions must have one entry for each block, a to f."
    missing = [name for name, value in predictions.items() if value is ... or value == "?"]
    if missing:
        return f'Not done yet: replace "?" with your prediction for {", ".join(missing)}.'
    actual = {name: outcome(block) for name, block in BLOCKS.items()}
    wrong = [
        f"{name}: expected {actual[name]!r} (what torch gives), got {predictions[name]!r}"
        for name in BLOCKS
        if not same(predictions[name], actual[name])
    ]
    if not wrong:
        return f"Correct: all six predictions match what torch computes: {actual}."
    return "Not quite: " + "; ".join(wrong) + "."


try:
    print(check())
except Exception as error:  # the check never crashes, whatever the cell above did
    print(f"Not done yet: the check could not read your answer ({type(error).__name__}: {error}).")
# --8<-- [end:check]
