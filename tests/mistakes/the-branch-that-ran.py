"""Plausible wrong answers to Exercise 1.4 (a gradient through the branch that ran).

Each region replaces the starter cell of snippets/practice/the_branch_that_ran.py; the
check must answer "Not quite" and say which gradient is wrong and why.
"""

# --8<-- [start:zero-instead-of-none]
# Mistake: a parameter the branch did not use gets 0 instead of None.
predictions = {
    "a.grad at x = 3": 9.0,
    "b.grad at x = 3": 0.0,
    "a.grad at x = -2": 1.0,
    "b.grad at x = -2": 24.0,
}
# --8<-- [end:zero-instead-of-none]

# --8<-- [start:a-only-in-the-first-branch]
# Mistake: believes a belongs to the first branch only, and misses the + a of the second.
predictions = {
    "a.grad at x = 3": 9.0,
    "b.grad at x = 3": None,
    "a.grad at x = -2": None,
    "b.grad at x = -2": 24.0,
}
# --8<-- [end:a-only-in-the-first-branch]

# --8<-- [start:wrong-branch]
# Mistake: at x = -2, differentiates the first branch, which did not run.
predictions = {
    "a.grad at x = 3": 9.0,
    "b.grad at x = 3": None,
    "a.grad at x = -2": 4.0,
    "b.grad at x = -2": None,
}
# --8<-- [end:wrong-branch]

# --8<-- [start:inner-derivative-dropped]
# Mistake: d/db (b x)² written as 2(b x), without the inner derivative x.
predictions = {
    "a.grad at x = 3": 9.0,
    "b.grad at x = 3": None,
    "a.grad at x = -2": 1.0,
    "b.grad at x = -2": -12.0,
}
# --8<-- [end:inner-derivative-dropped]

# --8<-- [start:none-as-a-string]
# Mistake: writes "None" in quotes.
predictions = {
    "a.grad at x = 3": 9.0,
    "b.grad at x = 3": "None",
    "a.grad at x = -2": 1.0,
    "b.grad at x = -2": 24.0,
}
# --8<-- [end:none-as-a-string]

# --8<-- [start:derivative-in-x]
# Mistake: differentiates a * x**2 with respect to x (2 a x = 12), not with respect to a.
predictions = {
    "a.grad at x = 3": 12.0,
    "b.grad at x = 3": None,
    "a.grad at x = -2": 1.0,
    "b.grad at x = -2": 24.0,
}
# --8<-- [end:derivative-in-x]
