"""The project as mkdocs.yml describes it, for the tools that run outside a build.

``make notebooks``, the drift check and the bench read pages exactly as the build does
(front matter through MkDocs' own parser, includes with mkdocs.yml's snippet options,
the plugin's own options), through one :class:`Project`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.utils.meta import get_data

from coursekit import versions
from coursekit.content.exercise_nav import Exercise, exercise
from coursekit.execution import older
from coursekit.execution.record import Record
from coursekit.markdown.includes import Includes
from coursekit.markdown.page import PageSource, read_page
from coursekit.mkdocs_adapter.config import CourseConfig
from coursekit.notebooks import chapters
from coursekit.notebooks.exercises import build, render

PLUGIN = "coursekit"


@dataclass
class Project:
    config: MkDocsConfig
    options: CourseConfig  # the plugin's options, as this mkdocs.yml sets them

    @classmethod
    def load(cls, config_file: Path) -> Project:
        config = load_config(str(config_file))
        plugin: Any = config.plugins[PLUGIN]
        # A copy: MkDocs keeps one plugin object per process (it defines on_startup) and
        # gives it the options of whichever mkdocs.yml it loads next.
        return cls(config, copy.deepcopy(plugin.config))

    @property
    def root(self) -> Path:
        return Path(self.config.config_file_path).resolve().parent

    @property
    def docs(self) -> Path:
        return Path(self.config.docs_dir)

    @cached_property
    def includes(self) -> Includes:
        return Includes(dict(self.config.mdx_configs.get("pymdownx.snippets", {})), self.root)

    @property
    def record(self) -> Path:
        return self.root / self.options.record

    @cached_property
    def recorded_outputs(self) -> dict[str, dict[str, str]]:
        """The record's outputs by page and block key (none where the site keeps none)."""
        return Record.load(self.record).pages if self.options.record else {}

    # -- pages ---------------------------------------------------------------------------

    def read(self, file: Path) -> PageSource:
        """A Markdown page as the build reads it (raises FenceError or IncludeError)."""
        raw = file.read_text(encoding="utf-8")
        body, _ = get_data(raw)
        return read_page(
            body,
            file.resolve().relative_to(self.root).as_posix(),
            self.includes,
            line_offset=raw.count("\n") - body.count("\n"),
            default_timeout=float(self.options.block_timeout),
        )

    def nav_paths(self) -> list[str]:
        """docs-relative paths in the order the nav lists them."""
        out: list[str] = []

        def walk(node: Any) -> None:
            if isinstance(node, str):
                out.append(node)
            elif isinstance(node, dict):
                for value in node.values():
                    walk(value)
            elif isinstance(node, list):
                for value in node:
                    walk(value)

        walk(self.config.nav or [])
        return out

    # -- notebooks -----------------------------------------------------------------------

    def exercises(self) -> list[Exercise]:
        """Every exercise, in navigation order."""
        folder = self.options.exercises.rstrip("/") + "/"
        where = {
            "docs": self.docs,
            "snippets": self.root / self.options.exercise_snippets,
            "notebooks": self.docs / self.options.exercise_notebooks,
        }
        return [
            exercise(path, (self.docs / path).read_text(encoding="utf-8"), **where)
            for path in self.nav_paths()
            if path.startswith(folder) and path.endswith(".md")
        ]

    def chapter_pages(self) -> list[Path]:
        return sorted(
            page for folder in self.options.chapters for page in (self.docs / folder).glob("*.md")
        )

    def chapter_notebook_path(self, page: Path) -> Path:
        folders = tuple(self.options.chapters)
        uri = chapters.notebook_src_uri(page.relative_to(self.docs).as_posix(), folders)
        assert uri is not None, page
        return self.docs / uri

    def chapter_notebook(self, page: Path) -> str:
        notes = older.notes(self.options.version_notes)
        recorded = self.recorded_outputs.get(page.relative_to(self.root).as_posix(), {})
        return render(chapters.build(self.read(page), versions.torch(), notes, recorded))

    def notebooks(self) -> dict[Path, str]:
        """Every generated notebook: its path and the JSON it should hold."""
        wanted = {e.notebook: render(build(e)) for e in self.exercises()}
        for page in self.chapter_pages():
            wanted[self.chapter_notebook_path(page)] = self.chapter_notebook(page)
        return wanted

    def orphan_notebooks(self) -> list[Path]:
        """Notebooks in a generated folder that no page makes any more."""
        folders = [self.docs / self.options.exercise_notebooks]
        folders += [self.docs / folder / chapters.FOLDER for folder in self.options.chapters]
        found = {path for folder in folders for path in folder.glob("*.ipynb")}
        return sorted(found - set(self.notebooks()))
