"""Expand ``--8<--`` include lines exactly as the build does.

The build expands them with pymdownx.snippets; the drift check and the build's
own early check reuse that same preprocessor, configured from ``mkdocs.yml``,
so an include means the same thing everywhere. Errors name the Markdown file
and line, which pymdownx alone does not.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import markdown
from pymdownx.snippets import SnippetMissingError

_INCLUDE = re.compile(r"^\s*-{1,}8<-{1,}\s+[\"']")


class IncludeError(ValueError):
    """An include that cannot be resolved; the message names file and line."""


@cache
def snippet_options(config_file: Path) -> tuple[tuple[str, Any], ...]:
    """pymdownx.snippets options as MkDocs resolves them (``INHERIT`` included)."""
    from mkdocs.config import load_config

    config = load_config(str(config_file))
    return tuple(sorted(config["mdx_configs"].get("pymdownx.snippets", {}).items()))


def _preprocessor(options: dict[str, Any], base_dir: Path) -> Any:
    bases = options.get("base_path", ["."])
    bases = [bases] if isinstance(bases, str) else bases
    md = markdown.Markdown(
        extensions=["pymdownx.snippets"],
        extension_configs={
            "pymdownx.snippets": {
                **options,
                # pymdownx resolves base paths from the working directory; MkDocs is run
                # from the config's folder, so resolve from there whatever the cwd.
                "base_path": [str((base_dir / b).resolve()) for b in bases],
                "check_paths": True,
            }
        },
    )
    return md.preprocessors["snippet"]


def expand(
    text: str, md_file: str, first_line: int, options: dict[str, Any], base_dir: Path
) -> str:
    """Expand include lines of ``text`` (which starts at ``first_line`` of ``md_file``)."""
    lines = text.split("\n")
    if not any(_INCLUDE.match(line) for line in lines):
        return text
    preprocessor = _preprocessor(options, base_dir)  # one Markdown instance per call
    out: list[str] = []
    for offset, line in enumerate(lines):
        if not _INCLUDE.match(line):
            out.append(line)
            continue
        try:
            out.extend(preprocessor.run([line]))
        except SnippetMissingError as error:
            raise IncludeError(f"{md_file}:{first_line + offset}: {error}") from None
    return "\n".join(out)


def check_page(
    text: str, md_file: str, line_offset: int, options: dict[str, Any], base_dir: Path
) -> None:
    """Fail early, with file and line, on any include of a page that cannot be resolved."""
    expand(text, md_file, 1 + line_offset, options, base_dir)
