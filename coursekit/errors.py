"""The one base of every error a course author has to fix.

A :class:`CourseError` is a mistake in the course's own sources (a page, a snippet, a
quiz, mkdocs.yml, a notebook) or in its environment, never a bug of coursekit. Its
message is the whole report and already says where: file and line when there is one.
(An error raised while a page's block runs, a figure's PlotError say, is located by the
block's failure report, which names the page's line.)

The MkDocs adapter turns it into MkDocs' own error in one place,
:mod:`coursekit.mkdocs_adapter.errors`, so the build stops with the message and no
traceback; the engine itself never imports MkDocs. A subclass keeps a second, built-in
base (``ValueError``, ``RuntimeError``) where callers catch that.
"""

from __future__ import annotations


class CourseError(Exception):
    """A mistake in the course's sources or environment; the message says where."""
