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
import yaml
from pymdownx.snippets import SnippetMissingError

_INCLUDE = re.compile(r"^\s*-{1,}8<-{1,}\s+[\"']")


class IncludeError(ValueError):
    """An include that cannot be resolved; the message names file and line."""


class _AnyTagLoader(yaml.SafeLoader):
    """mkdocs.yml uses ``!!python/name`` tags; they are irrelevant for reading options."""


_AnyTagLoader.add_multi_constructor("", lambda loader, suffix, node: None)
_AnyTagLoader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, s, n: None)


@cache
def snippet_config(config_file: Path) -> dict[str, Any]:
    config = yaml.load(config_file.read_text(encoding="utf-8"), Loader=_AnyTagLoader) or {}
    for ext in config.get("markdown_extensions", []):
        if isinstance(ext, dict) and "pymdownx.snippets" in ext:
            options = dict(ext["pymdownx.snippets"] or {})
            bases = options.get("base_path", ["."])
            bases = [bases] if isinstance(bases, str) else bases
            options["base_path"] = [str((config_file.parent / b).resolve()) for b in bases]
            return options
    return {"base_path": [str(config_file.parent)], "check_paths": True}


def _preprocessor(config_file: Path) -> Any:
    md = markdown.Markdown(
        extensions=["pymdownx.snippets"],
        extension_configs={
            "pymdownx.snippets": {**snippet_config(config_file), "check_paths": True}
        },
    )
    return md.preprocessors["snippet"]


def expand(text: str, md_file: str, first_line: int, config_file: Path) -> str:
    """Expand include lines of ``text`` (which starts at ``first_line`` of ``md_file``)."""
    lines = text.split("\n")
    if not any(_INCLUDE.match(line) for line in lines):
        return text
    out: list[str] = []
    for offset, line in enumerate(lines):
        if not _INCLUDE.match(line):
            out.append(line)
            continue
        try:
            out.extend(_preprocessor(config_file).run([line]))
        except SnippetMissingError as error:
            raise IncludeError(f"{md_file}:{first_line + offset}: {error}") from None
    return "\n".join(out)


def check_page(text: str, md_file: str, line_offset: int, config_file: Path) -> None:
    """Fail early, with file and line, on any include of a page that cannot be resolved."""
    for number, line in enumerate(text.split("\n"), start=1):
        if _INCLUDE.match(line):
            expand(line, md_file, number + line_offset, config_file)
