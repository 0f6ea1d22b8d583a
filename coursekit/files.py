"""Writing files whole and fingerprinting what was read: one way of each, for every module."""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def digest(*parts: Any) -> str:
    """A stable SHA-256 of ``parts`` (strings, numbers, tuples, lists, dicts of them)."""
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def tree_digest(folders: Iterable[Path], *, suffix: str = "") -> str:
    """A SHA-256 of every file under ``folders`` (names and bytes), in a fixed order.

    ``suffix`` keeps only the files whose name ends with it (".py").
    """
    sha = hashlib.sha256()
    for folder in folders:
        if not folder.is_dir():
            continue
        for path in sorted(p for p in folder.rglob(f"*{suffix}") if p.is_file()):
            if "__pycache__" in path.parts:
                continue
            sha.update(path.relative_to(folder.parent).as_posix().encode() + b"\0")
            sha.update(path.read_bytes() + b"\0")
    return sha.hexdigest()


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that a reader sees the old file or the new one,
    never half of it (a temporary file in the same folder, then a rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
