"""Execution: run a page's blocks as a learner would see them, cache and record the outputs.

Nothing here imports MkDocs: the build, the drift check and the bench all call
:func:`coursekit.execution.page_run.run_page`.
"""
