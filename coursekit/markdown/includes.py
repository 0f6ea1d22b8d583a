"""``--8<--`` include lines, expanded exactly as pymdownx.snippets expands them.

The build expands a page's includes once (:mod:`coursekit.markdown.page`) and hands
MkDocs the expanded text; the drift check and the notebooks do the same from the file.
All of them use pymdownx.snippets' own preprocessor, configured like ``mkdocs.yml``'s, so
an include means the same thing everywhere; errors name the Markdown file and line,
which pymdownx alone does not.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import markdown
from pymdownx.snippets import SnippetMissingError

from coursekit.errors import CourseError
from coursekit.markdown.regions import RegionError, read_region

INCLUDE = re.compile(r"^\s*-{1,}8<-{1,}\s+[\"']")
# One include line and nothing else: `--8<-- "chapters/chain_rule.py:composite"`.
ONE_INCLUDE = re.compile(r"""^\s*-{1,}8<-{1,}\s+(["'])(?P<target>[^"']+)\1\s*$""")
_REGION = re.compile(r"(?P<file>[^:]+):(?P<region>[\w-]+)")  # a target that names a region


class IncludeError(CourseError, ValueError):
    """An include that cannot be resolved; the message names file and line."""


class Includes:
    """The include expander of one project: pymdownx.snippets with its options."""

    def __init__(self, options: Mapping[str, Any], base_dir: Path) -> None:
        bases = options.get("base_path", ["."])
        bases = [bases] if isinstance(bases, str) else list(bases)
        self.options = dict(options)
        # pymdownx resolves base paths from the working directory; MkDocs runs from the
        # config's folder, so resolve from there whatever the cwd.
        self.base_paths = [(base_dir / b).resolve() for b in bases]
        self.root = base_dir.resolve()
        self.dedent = bool(self.options.get("dedent_subsections", False))
        md = markdown.Markdown(
            extensions=["pymdownx.snippets"],
            extension_configs={
                "pymdownx.snippets": {
                    **self.options,
                    "base_path": [str(p) for p in self.base_paths],
                    "check_paths": True,
                }
            },
        )
        self._preprocessor = md.preprocessors["snippet"]

    def expand_line(self, line: str, where: str) -> list[str]:
        """The lines an include line stands for (``where`` is "docs/page.md:12")."""
        try:
            return list(self._preprocessor.run([line]))
        except SnippetMissingError as error:
            raise IncludeError(f"{where}: {error}") from None

    def origins(self, line: str, expanded: list[str]) -> list[tuple[str, int]] | None:
        """Where each line of an included region comes from: (file, 1-based line).

        So an error in included code names the snippet's own file and line, not a line
        of the page. None when ``line`` is not one region of one file, or when the
        lines cannot be matched one by one (then the page's line is the best there is).
        """
        one = ONE_INCLUDE.match(line)
        match = one and _REGION.fullmatch(one["target"])
        file = match and next(
            (b / match["file"] for b in self.base_paths if (b / match["file"]).is_file()), None
        )
        if not match or file is None:
            return None
        try:
            region = read_region(file, match["region"], dedent=self.dedent)
        except RegionError:
            return None
        if list(region.lines) != expanded:
            return None
        name = self._name(file)
        return [(name, number) for number in region.numbers]

    def source(self, line: str, where: str) -> tuple[str, str] | None:
        """The snippet file an include line reads, as (name, SHA-256 of the whole file).

        Whatever part of the file the line names (a region, lines, all of it): a block
        can run more of its file than it includes. None for a line that is not one
        include of a file (``where``, "docs/page.md:12", names the line in an error).
        """
        one = ONE_INCLUDE.match(line)
        target = one["target"].split(":", 1)[0] if one else ""
        file = next((b / target for b in self.base_paths if (b / target).is_file()), None)
        if not target or file is None:
            return None
        try:
            data = file.read_bytes()
        except OSError as error:
            raise IncludeError(f"{where}: cannot read {target}: {error}") from None
        return self._name(file), hashlib.sha256(data).hexdigest()

    def _name(self, file: Path) -> str:
        """``file`` from the project's root (as the origins and sources name it)."""
        inside = file.is_relative_to(self.root)
        return file.relative_to(self.root).as_posix() if inside else str(file)

    def expand(self, text: str, page: str, first_line: int) -> str:
        """``text`` (starting at ``first_line`` of ``page``) with its includes expanded."""
        out: list[str] = []
        for offset, line in enumerate(text.split("\n")):
            if INCLUDE.match(line):
                out.extend(self.expand_line(line, f"{page}:{first_line + offset}"))
            else:
                out.append(line)
        return "\n".join(out)
