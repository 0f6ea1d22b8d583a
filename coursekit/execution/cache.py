"""The execution cache: a page whose code has not changed is not run again.

In the spirit of jupyter-cache: one entry per page under ``<cache>/exec/``, holding the
outputs of its blocks (figures are printed HTML, so they are included) and the key they
were computed for. The key hashes everything an output can depend on:

* each block's code (includes expanded) and its options (raises, timeout, html,
  session, timing), in order;
* the whole of each snippet file a block includes from, not only the region: a block
  may run more of the file than it shows (the data-parallel launchers run theirs). So an
  edit anywhere in a snippet file re-runs every page that includes any of it;
* the code that runs blocks and that blocks import: :mod:`coursekit.execution` and
  :mod:`coursekit.figures` (and the shared modules they use). Nothing else:
  editing the quiz renderer or the MkDocs adapter re-runs no page;
* the versions of PyTorch, NumPy, matplotlib, the D2 engine and Python
  (:func:`coursekit.versions.fingerprint`).

Not in the key: the Markdown prose and the blocks' line numbers, so a prose edit is
served from the cache. An entry is used only if it parses and matches the key and the
page's block count exactly; anything else (stale, partial, unreadable) is ignored,
rebuilt and overwritten. Only pages whose blocks all succeeded are stored; entries of
pages that no longer exist are removed after a full build (:meth:`ExecCache.prune`).
The drift check never uses the project's cache. In `make test` it reads the cache of the
deploy build, which starts empty so that every block runs in that build
(tests/conftest.py, ``pytest_coursekit_fresh_outputs``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from pathlib import Path

from coursekit import files, versions
from coursekit.markdown.blocks import Block

log = logging.getLogger("mkdocs.plugins.coursekit.cache")

FORMAT = 3
PACKAGE = Path(__file__).resolve().parent.parent
# What a block's output can depend on, besides its code and the versions: the folders
# and modules of coursekit/ that run blocks or that blocks import.
OUTPUT_CODE = ("execution", "figures")
OUTPUT_MODULES = ("files.py", "versions.py", "css.py")


def runner_digest(package: Path = PACKAGE) -> str:
    """The code that runs blocks and that blocks may import, and the versions."""
    modules = "".join((package / name).read_text(encoding="utf-8") for name in OUTPUT_MODULES)
    code = files.tree_digest([package / folder for folder in OUTPUT_CODE], suffix=".py")
    return files.digest(code, modules, versions.fingerprint())


class ExecCache:
    """``<cache>/exec/`` of one project: ``load`` and ``store`` a page's outputs.

    Made once per build: the runner's digest is taken then, so an edit of the engine
    (which restarts `make serve`, see coursekit/mkdocs_adapter/serve.py) is seen.
    """

    def __init__(self, folder: Path, *, enabled: bool = True) -> None:
        self.folder = folder
        self.enabled = enabled
        self.runner = runner_digest() if enabled else ""

    def _entry(self, page: str) -> Path:
        return self.folder / (page.replace("/", "__") + ".json")

    def key(self, blocks: Sequence[Block]) -> str:
        return files.digest(
            FORMAT,
            self.runner,
            [
                (b.page, b.code, b.sources, b.raises, b.timeout, b.html, b.session, b.timing)
                for b in blocks
            ],
        )

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
        outputs = data.get("outputs") if isinstance(data, dict) else None
        if (
            not isinstance(data, dict)
            or data.get("key") != self.key(blocks)
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
        data = {"key": self.key(blocks), "page": blocks[0].page, "outputs": list(outputs)}
        try:
            files.atomic_write(entry, json.dumps(data, ensure_ascii=False))
        except OSError as error:
            # A cache that cannot be written only costs time on the next build.
            log.info("coursekit: could not write the execution cache %s: %s", entry, error)

    def prune(self, pages: Iterable[str]) -> None:
        """Remove the entries of every page not in ``pages`` (after a full build)."""
        keep = {self._entry(page).name for page in pages}
        if not self.enabled or not self.folder.is_dir():
            return
        for entry in self.folder.glob("*.json"):
            if entry.name not in keep:
                entry.unlink(missing_ok=True)
