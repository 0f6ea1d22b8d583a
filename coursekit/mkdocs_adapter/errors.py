"""Where a :class:`~coursekit.errors.CourseError` becomes MkDocs' error: here only.

MkDocs prints a ``BuildError`` (``PluginError`` is one) as its message alone and stops
the build; any other exception it prints with a traceback of coursekit's frames. A
CourseError's message already names the file and line, so it is handed to MkDocs as a
``PluginError`` with that message and nothing else (``from None``). Two ways in:

* :func:`reporting`, a class decorator on the plugin: every ``on_*`` event converts.
  MkDocs calls the plugin through these events only.
* :func:`in_fence`, around a superfences validator or formatter (the Python, d2 and math
  fences). Superfences calls them while MkDocs converts the Markdown, outside any of
  our events, and quietly shows the fence as plain code on any exception but a
  ``SuperFencesException``: a :class:`FenceBuildError` is both.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from mkdocs.exceptions import PluginError
from pymdownx.superfences import SuperFencesException

from coursekit.errors import CourseError

Plugin = TypeVar("Plugin", bound=type)


class FenceBuildError(SuperFencesException, PluginError):
    """A fence that cannot be shown. A SuperFencesException, so superfences lets it
    through instead of quietly showing the fence as code; a PluginError, so MkDocs
    prints the message and stops the build."""


class UntrackedBlock(CourseError):
    """An executed fence the page scan did not see: it would run unchecked (a fence
    indented or inside raw HTML, a mistake of the page)."""


def message(error: CourseError) -> str:
    """The error's message, then the notes the adapter added (``error.add_note``)."""
    return "\n".join([str(error), *getattr(error, "__notes__", ())])


def as_plugin_error(error: CourseError) -> PluginError:
    return PluginError(message(error))


def reporting(plugin: Plugin) -> Plugin:
    """The plugin class with every ``on_*`` event turning a CourseError into MkDocs'
    PluginError (the event's priority, an attribute of the method, is kept)."""
    for name, method in list(vars(plugin).items()):
        if name.startswith("on_") and callable(method):
            setattr(plugin, name, _reported(method))
    return plugin


def _reported(event: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(event)  # copies __dict__: MkDocs reads `mkdocs_priority` from it
    def reported(*args: Any, **kwargs: Any) -> Any:
        try:
            return event(*args, **kwargs)
        except CourseError as error:
            raise as_plugin_error(error) from None

    return reported


def in_fence(function: Callable[..., Any]) -> Callable[..., Any]:
    """A superfences validator or formatter whose CourseError stops the build."""

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except CourseError as error:
            raise FenceBuildError(message(error)) from None

    return call
