"""Plausible mistakes for Exercise 2.8 (predict-the-output), one per region.

Each region replaces the starter cell; the exercise's check cell must then print an
accurate "Not quite: ..." (or "Not done yet: ..." where that is the honest verdict).
"""

# --8<-- [start:overwrite-and-always-fails]
# Believes backward() overwrites .grad, and that a second pass always fails.
predictions = {"a": 4.0, "b": None, "c": 8.0, "d": "error", "e": "error", "f": 6.0}
# --8<-- [end:overwrite-and-always-fails]

# --8<-- [start:runtime-error-and-non-leaf-grad]
# Writes "RuntimeError" for d (that is right) but expects a non-leaf to keep its .grad (b).
predictions = {"a": 8.0, "b": 12.0, "c": 8.0, "d": "RuntimeError", "e": 2.0, "f": 6.0}
# --8<-- [end:runtime-error-and-non-leaf-grad]

# --8<-- [start:retain-graph-resets]
# Believes retain_graph=True starts the second pass from a clean .grad (c), and reads
# f's y.grad as the leaf's gradient, d loss/dx = 2y * 3 = 18.
predictions = {"a": 8.0, "b": None, "c": 4.0, "d": "error", "e": 2.0, "f": 18.0}
# --8<-- [end:retain-graph-resets]
