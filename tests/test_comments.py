"""Comments stay true: every file or module a comment or docstring names exists.

A comment that still names a module after it moved sends a reader to nothing. Read
here: the comments and docstrings of the project's Python (engine, tests, scripts,
snippets) and the comments of its YAML, TOML, Makefile and shell files. A name counts
when it is a path with a folder and an extension (`tests/support.py`) or a dotted
module of the engine (`coursekit.content.mathml`). Not checked: a placeholder
(`docs/<page>.md`, or an example name such as `docs/page.md` or `chapters/x.py`), what
a run writes (`.cache/...`, `site/...`) and an address (`https://...`).
"""

from __future__ import annotations

import io
import re
import subprocess
import tokenize
from functools import cache
from pathlib import Path

import pytest
from support import ROOT

EXTENSIONS = "py|md|yml|yaml|toml|json|css|js|html|ipynb|txt|cfg|ini|svg"
PATH = re.compile(rf"(?<![\w./<>:@-])((?:[\w.-]+/)*[\w-][\w.-]*\.(?:{EXTENSIONS}))(?![\w/<>-])")
MODULE = re.compile(r"(?<![\w./])(coursekit(?:\.[a-z_][a-z0-9_]*)+)")
# Where a relative name may point: the project's root and the folders names start from.
BASES = ("", "docs", "snippets", "tests", "coursekit", "tests/fixtures/sites")
# File names that stand for any file in an example ("docs/page.md", "chapters/x.py").
EXAMPLES = frozenset({"x", "y", "p", "a", "b", "page", "slug", "old-slug", "new-slug", "name"})
# What a run or a build writes, not a file of the project.
WRITTEN = (".cache/", "site/", "search/", "/tmp/")


@cache
def _tracked() -> tuple[Path, ...]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return tuple(ROOT / name for name in listed if (ROOT / name).is_file())


def _python_comments(text: str) -> list[tuple[int, str]]:
    """(line, text) of every comment and docstring-like string of a Python file."""
    found = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return []
    previous = tokenize.NEWLINE
    for token in tokens:
        if token.type == tokenize.COMMENT:
            found.append((token.start[0], token.string))
        elif token.type == tokenize.STRING and previous in (
            tokenize.NEWLINE,
            tokenize.INDENT,
            tokenize.DEDENT,
            tokenize.NL,
        ):
            found.append((token.start[0], token.string))  # a string standing alone
        if token.type not in (tokenize.COMMENT, tokenize.NL):
            previous = token.type
    return found


def _hash_comments(text: str) -> list[tuple[int, str]]:
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = re.search(r"(?:^|\s)#(?!!)(.*)$", line)
        if match:
            found.append((number, match[1]))
    return found


def _sources() -> list[Path]:
    wanted = []
    for path in _tracked():
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith(("docs/", "site/")):
            continue  # pages and their notebooks are prose, checked by the build's links
        if path.suffix in {".py", ".yml", ".yaml", ".toml"} or path.name in {"Makefile", "run"}:
            wanted.append(path)
    return sorted(wanted)


def _checked(name: str) -> bool:
    stem = name.rsplit("/", 1)[-1].split(".")[0]
    return "/" in name and stem not in EXAMPLES and not name.startswith(WRITTEN)


def _exists(name: str, near: Path) -> bool:
    name = re.sub(r"^(?:\.\./)+", "", name)  # a link from a page: ../../chapters/x.md
    candidates = [near.parent / name] + [ROOT / base / name for base in BASES]
    return any(candidate.exists() for candidate in candidates)


def _module_exists(dotted: str) -> bool:
    parts = dotted.split(".")
    # The longest prefix that is a module or package; what follows may be a name in it.
    for end in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:end])
        module = base.with_suffix(".py") if base.with_suffix(".py").is_file() else None
        if module is None and (base / "__init__.py").is_file():
            module = base / "__init__.py"
        if module is None:
            continue
        if end == len(parts):
            return True
        # One name defined in the module may follow it: coursekit.notebooks.execute.execute
        name = re.escape(parts[end])
        defined = rf"^\s*(?:def|class)\s+{name}\b|^{name}\s*[:=]|\bimport\b.*\b{name}\b"
        text = module.read_text(encoding="utf-8")
        return end == len(parts) - 1 and re.search(defined, text, re.M) is not None
    return False


def stale_names(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    comments = _python_comments(text) if path.suffix == ".py" else _hash_comments(text)
    stale = []
    for line, comment in comments:
        comment = re.sub(r"https?://\S+", "", comment)
        for match in PATH.finditer(comment):
            if _checked(match[1]) and not _exists(match[1], path):
                stale.append(f"{path.relative_to(ROOT)}:{line}: names {match[1]}")
        for match in MODULE.finditer(comment):
            if not _module_exists(match[1].rstrip(".")):
                stale.append(f"{path.relative_to(ROOT)}:{line}: names {match[1]}")
    return stale


@pytest.mark.parametrize("path", _sources(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_comments_name_only_files_that_exist(path: Path) -> None:
    stale = stale_names(path)
    assert not stale, "\n".join(stale)


def test_a_stale_name_is_found(tmp_path: Path) -> None:
    sample = ROOT / "tests" / "__stale_sample__.py"
    try:
        sample.write_text(
            '"""Plots (coursekit/plots.py) and maths (coursekit.mathml)."""\n'
            "# kept: tests/support.py, coursekit.content.mathml, docs/<page>.md, docs/page.md\n",
            encoding="utf-8",
        )
        _tracked.cache_clear()
        assert stale_names(sample) == [
            "tests/__stale_sample__.py:1: names coursekit/plots.py",
            "tests/__stale_sample__.py:1: names coursekit.mathml",
        ]
    finally:
        sample.unlink()
        _tracked.cache_clear()
