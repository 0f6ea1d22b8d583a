"""Plausible wrong answers to Exercise 3.5 (a view made under no_grad()).

Each region replaces the starter cell of snippets/practice/a_view_made_under_no_grad.py;
the check must answer "Not quite" and name the blocks that are wrong, with the reason.
"""

# --8<-- [start:view-untracked-like-any-result]
# Mistake: believes a view made under no_grad() is untracked, like any result made there.
predictions = {
    "a": False,
    "b": False,
    "c": "error",
    "d": "error",
    "e": [3.0, 3.0, 0.0, 0.0],
    "f": [2.0, 4.0, 3.0, 4.0],
    "g": [2.0, 4.0, 3.0, 4.0],
    "h": False,
}
# --8<-- [end:view-untracked-like-any-result]

# --8<-- [start:gradient-reaches-w]
# Mistake: believes the gradient flows through the view to w, as it does for a recorded view.
predictions = {
    "a": True,
    "b": False,
    "c": [3.0, 3.0, 0.0, 0.0],
    "d": None,
    "e": [3.0, 3.0, 0.0, 0.0],
    "f": "error",
    "g": [2.0, 4.0, 3.0, 4.0],
    "h": False,
}
# --8<-- [end:gradient-reaches-w]

# --8<-- [start:gradient-kept-on-the-view]
# Mistake: believes the view, a leaf that requires grad, keeps the gradient in its .grad.
predictions = {
    "a": True,
    "b": False,
    "c": None,
    "d": [3.0, 3.0],
    "e": [3.0, 3.0, 0.0, 0.0],
    "f": "error",
    "g": [2.0, 4.0, 3.0, 4.0],
    "h": False,
}
# --8<-- [end:gradient-kept-on-the-view]

# --8<-- [start:in-place-allowed]
# Mistake: believes mul_ on the view just works after the no_grad block.
predictions = {
    "a": True,
    "b": False,
    "c": None,
    "d": None,
    "e": [3.0, 3.0, 0.0, 0.0],
    "f": [2.0, 4.0, 3.0, 4.0],
    "g": [2.0, 4.0, 3.0, 4.0],
    "h": False,
}
# --8<-- [end:in-place-allowed]

# --8<-- [start:view-is-a-copy]
# Mistake: believes slicing copies, so changing head leaves w as it was.
predictions = {
    "a": True,
    "b": False,
    "c": None,
    "d": None,
    "e": [3.0, 3.0, 0.0, 0.0],
    "f": "error",
    "g": [1.0, 2.0, 3.0, 4.0],
    "h": False,
}
# --8<-- [end:view-is-a-copy]

# --8<-- [start:detach-is-tracked]
# Mistake: believes a view of w.detach() requires grad, like a view of w made under no_grad().
predictions = {
    "a": True,
    "b": False,
    "c": None,
    "d": None,
    "e": [3.0, 3.0, 0.0, 0.0],
    "f": "error",
    "g": [2.0, 4.0, 3.0, 4.0],
    "h": True,
}
# --8<-- [end:detach-is-tracked]

# --8<-- [start:answers-in-quotes]
# Mistake: believes the gradient reaches w through the view, and writes every answer in quotes.
predictions = {
    "a": "True",
    "b": "False",
    "c": "[3.0, 3.0, 0.0, 0.0]",
    "d": "None",
    "e": "[3.0, 3.0, 0.0, 0.0]",
    "f": "error",
    "g": "tensor([2., 4., 3., 4.])",
    "h": "False",
}
# --8<-- [end:answers-in-quotes]
