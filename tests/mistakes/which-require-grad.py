"""Plausible wrong answers to Exercise 1.1 (which results require grad?).

Each region replaces the starter cell of snippets/practice/which_require_grad.py; the
check must answer "Not quite" and name the results that are wrong.
"""

# --8<-- [start:everything-tracked]
# Mistake: believes every result on this page requires grad, because w is around.
predictions = {
    "a": True,
    "b": True,
    "c": True,
    "d": True,
    "e": True,
    "f": True,
    "g": True,
    "h": True,
}
# --8<-- [end:everything-tracked]

# --8<-- [start:comparisons-tracked]
# Mistake: believes the flag also passes to comparisons and argmax (bool and integer results).
predictions = {
    "a": False,
    "b": True,
    "c": True,
    "d": True,
    "e": False,
    "f": True,
    "g": True,
    "h": True,
}
# --8<-- [end:comparisons-tracked]

# --8<-- [start:first-input-only]
# Mistake: believes a result takes requires_grad from its first input only.
predictions = {
    "a": False,
    "b": False,
    "c": False,
    "d": False,
    "e": False,
    "f": False,
    "g": True,
    "h": False,
}
# --8<-- [end:first-input-only]

# --8<-- [start:requires-grad-underscore-ignored]
# Mistake: believes only requires_grad=True at creation counts, not requires_grad_() later.
predictions = {
    "a": False,
    "b": True,
    "c": True,
    "d": False,
    "e": False,
    "f": False,
    "g": False,
    "h": True,
}
# --8<-- [end:requires-grad-underscore-ignored]

# --8<-- [start:strings]
# Mistake: writes the answers as strings instead of True and False.
predictions = {
    "a": "False",
    "b": "True",
    "c": "True",
    "d": "False",
    "e": "False",
    "f": "False",
    "g": "True",
    "h": "True",
}
# --8<-- [end:strings]
