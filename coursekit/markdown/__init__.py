"""The Markdown model: fences, their options, includes, and the executed blocks of a page.

Pure Python-Markdown level (pymdownx.snippets for includes): nothing here imports MkDocs.
"""
