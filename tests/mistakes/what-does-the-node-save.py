"""Plausible wrong answers to Exercise 1.5 (what does the node save?).

Each region replaces the starter cell of snippets/practice/what_does_the_node_save.py;
the check must answer "Not quite" and say which saved value is wrong and why.
"""

# --8<-- [start:both-inputs-always-saved]
# Mistake: believes a multiplication always saves both of its inputs.
predictions = {
    "p.grad_fn._saved_self": 2.0,
    "p.grad_fn._saved_other": 5.0,
    "q.grad_fn._saved_other": 3.0,
    "y.grad_fn._saved_self": 2.0,
    "y.grad_fn._saved_exponent": 3,
    "y.grad_fn._saved_self after backward": "error",
    "y.grad_fn._saved_exponent after backward": 3,
}
# --8<-- [end:both-inputs-always-saved]

# --8<-- [start:saves-the-tracked-input]
# Mistake: believes a multiplication saves the input that requires grad, not the other one.
predictions = {
    "p.grad_fn._saved_self": 2.0,
    "p.grad_fn._saved_other": None,
    "q.grad_fn._saved_other": 3.0,
    "y.grad_fn._saved_self": 2.0,
    "y.grad_fn._saved_exponent": 3,
    "y.grad_fn._saved_self after backward": "error",
    "y.grad_fn._saved_exponent after backward": 3,
}
# --8<-- [end:saves-the-tracked-input]

# --8<-- [start:backward-keeps-the-tensors]
# Mistake: believes the saved tensors survive backward().
predictions = {
    "p.grad_fn._saved_self": None,
    "p.grad_fn._saved_other": 5.0,
    "q.grad_fn._saved_other": 3.0,
    "y.grad_fn._saved_self": 2.0,
    "y.grad_fn._saved_exponent": 3,
    "y.grad_fn._saved_self after backward": 2.0,
    "y.grad_fn._saved_exponent after backward": 3,
}
# --8<-- [end:backward-keeps-the-tensors]

# --8<-- [start:backward-frees-everything]
# Mistake: believes backward() frees the plain-number exponent too.
predictions = {
    "p.grad_fn._saved_self": None,
    "p.grad_fn._saved_other": 5.0,
    "q.grad_fn._saved_other": 3.0,
    "y.grad_fn._saved_self": 2.0,
    "y.grad_fn._saved_exponent": 3,
    "y.grad_fn._saved_self after backward": "error",
    "y.grad_fn._saved_exponent after backward": "error",
}
# --8<-- [end:backward-frees-everything]

# --8<-- [start:self-means-the-output]
# Mistake: reads _saved_self of a ** 3 as the saved result, 8.
predictions = {
    "p.grad_fn._saved_self": None,
    "p.grad_fn._saved_other": 5.0,
    "q.grad_fn._saved_other": 3.0,
    "y.grad_fn._saved_self": 8.0,
    "y.grad_fn._saved_exponent": 3,
    "y.grad_fn._saved_self after backward": "error",
    "y.grad_fn._saved_exponent after backward": 3,
}
# --8<-- [end:self-means-the-output]

# --8<-- [start:exception-class-for-everything-after-backward]
# Mistake: writes the exception class, unquoted, and believes backward() frees the
# plain-number exponent too.
predictions = {
    "p.grad_fn._saved_self": None,
    "p.grad_fn._saved_other": 5.0,
    "q.grad_fn._saved_other": 3.0,
    "y.grad_fn._saved_self": 2.0,
    "y.grad_fn._saved_exponent": 3,
    "y.grad_fn._saved_self after backward": RuntimeError,
    "y.grad_fn._saved_exponent after backward": RuntimeError,
}
# --8<-- [end:exception-class-for-everything-after-backward]
