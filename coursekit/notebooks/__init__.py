"""Notebooks: the exercise and chapter notebooks, run in the build's process, and their pages.

Nothing here imports MkDocs; the adapter finds the pages and hands them over.
"""
