"""Figures that pages print from ``html="on"`` blocks, drawn from the real run.

One import per figure kind::

    from coursekit.figures import autograd_graph  # autograd_graph.figure(loss, names, ...)
    from coursekit.figures import backprop_steps  # backprop_steps.figure(loss, names, ...)
    from coursekit.figures import plots  # plots.line_plot([...], ...)

Nothing here imports MkDocs. Each figure prints its whole HTML with a text version
inside (the record of outputs keeps that text, not the SVG).
"""

# The class of a step-through figure: the build adds its script and stylesheet to the
# pages that hold one (here, so that the build need not import torch to know it).
STEP_FIGURE_CLASS = "backprop-steps"
