"""The errors content renderers raise for bad input; the build stops with their message."""

from pymdownx.superfences import SuperFencesException

from coursekit.errors import CourseError


class ContentError(CourseError, ValueError):
    """Content that cannot be published as written; the message starts with file:line."""


class FenceFailure(SuperFencesException, ContentError):
    """A fence that cannot be drawn. A SuperFencesException, so superfences lets it through
    instead of quietly showing the fence as code."""
