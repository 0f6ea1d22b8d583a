"""The one private API the project relies on, checked so that an upgrade fails here, loudly.

pytest-markdown-docs has no public way to register a runner for a fence: the drift
check (coursekit/pytest_plugin.py) subclasses ``pytest_markdown_docs._runners._Runner``
and registers it with ``register_runner``. If either changes shape, this test names it.
"""

from __future__ import annotations

import inspect

from pytest_markdown_docs import _runners
from pytest_markdown_docs.plugin import MarkdownInlinePythonItem


def test_pytest_markdown_docs_still_offers_named_runners() -> None:
    assert inspect.isclass(_runners._Runner)
    assert callable(_runners.register_runner)
    assert callable(_runners.get_runner)
    runtest = inspect.signature(_runners._Runner.runtest)
    assert list(runtest.parameters)[:3] == ["self", "test", "args"]
    failure = inspect.signature(_runners._Runner.repr_failure)
    assert list(failure.parameters)[:3] == ["self", "test", "excinfo"]


def test_our_runner_is_the_one_pytest_markdown_docs_finds() -> None:
    from coursekit.pytest_plugin import RUNNER, CourseRunner

    assert isinstance(_runners.get_runner(RUNNER), CourseRunner)
    # The item calls the runner with (test definition, globals): see its runtest.
    assert "self.runner.runtest(self.test_definition" in inspect.getsource(
        MarkdownInlinePythonItem.runtest
    )
