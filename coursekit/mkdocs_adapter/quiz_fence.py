"""The ``quiz`` and ``quiz-index`` fences: a page's questions, rendered at build time.

In ``on_config`` the plugin adds both to pymdownx.superfences, as it adds the executed
Python fence (:mod:`coursekit.mkdocs_adapter.exec_fence`). The validator takes the
fence's place out of its options (:mod:`coursekit.markdown.where`); the formatter reads
the YAML (:mod:`coursekit.content.quiz`: an error names the file and line) and renders
it with its links relative to its page. ``quiz-index`` lists every quiz of the site.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from markdown import Markdown
from mkdocs.config.defaults import MkDocsConfig

from coursekit import files as fingerprints
from coursekit.content import quiz
from coursekit.errors import CourseError
from coursekit.markdown import where
from coursekit.markdown.fences import Fence
from coursekit.markdown.page import title
from coursekit.mkdocs_adapter.build import BuildRun
from coursekit.mkdocs_adapter.serve_memo import ServeMemo
from coursekit.mkdocs_adapter.superfences import add_fences

LANGUAGES = (quiz.QUIZ_LANG, quiz.INDEX_LANG)


@dataclass
class QuizFence:
    """The quiz fences' validator and formatter for one build."""

    build: BuildRun
    renderer: Callable[[], quiz.QuizRenderer]  # made at the first quiz, kept by the plugin
    memo: ServeMemo | None  # under `mkdocs serve`: renders of unchanged quizzes

    def install(self, config: MkDocsConfig) -> None:
        add_fences(
            config,
            LANGUAGES,
            self.validator,
            self.formatter,
            if_taken="coursekit renders quizzes itself",
        )

    def validator(
        self,
        language: str,
        inputs: dict[str, str],
        options: dict[str, Any],
        attrs: dict[str, Any],
        md: Markdown,
    ) -> bool:
        here = where.pop(inputs)
        if here is None:
            raise CourseError(f"a {language} fence that coursekit did not see (indented?)")
        if inputs:
            raise CourseError(f"{here}: a {language} fence takes no options: {sorted(inputs)}")
        options[where.AT] = here
        return True

    def formatter(
        self,
        source: str,
        language: str,
        css_class: str,
        options: dict[str, Any],
        md: Markdown,
        **kwargs: Any,
    ) -> str:
        here: where.Where = options[where.AT]
        src = self.build.src_uri(here.page)
        index = self._index_sources() if language == quiz.INDEX_LANG else []
        if self.memo is None:
            return self._render(source, language, here, src)
        key = fingerprints.digest(self.memo.site, here, language, source, index)
        return self.memo.quiz(key, lambda: self._render(source, language, here, src))

    def _render(self, source: str, language: str, here: where.Where, src: str) -> str:
        resolve = self.build.resolver(src)
        if language == quiz.QUIZ_LANG:
            end = here.line + source.count("\n") + 2
            fence = Fence(here.page, here.line, end, "", language, body=source)
            return self.renderer().quiz(quiz.load(fence), src, resolve)
        entries = []
        for uri in self.build.quiz_pages:
            text = self.build.file_text(uri)
            for one in quiz.page_quizzes(text, f"docs/{uri}"):
                entries.append((one, title(text) or one.slug, resolve(uri) or ""))
        return self.renderer().index(entries)

    def _index_sources(self) -> list[str]:
        """What the index is made from: every quiz page's source."""
        return [self.build.file_text(uri) for uri in self.build.quiz_pages]
