"""Rebuild a site the way `mkdocs serve` does, after each of a list of edits, and report.

One process, ``on_startup("serve")`` once, then for every step: the step's edits made to
the sources, the config loaded again and a full build into the same site folder, as
MkDocs' live reload does. The plugin object (and its memo of unchanged pages) lives on
between steps because MkDocs keeps it. tests/test_rebuild_memo.py checks what these
rebuilds write; scripts/bench.py times them.

Run it in a process of its own (it loads the plugin, which pins the numerical paths):

    python tests/harness/serve_rebuilds.py STEPS.json [--site site] [--keep DIR]
      [--undo]

STEPS.json: ``[[name, [[file, old, new], ...]], ...]``, files relative to the current
folder, which holds mkdocs.yml. ``--undo`` puts each step's files back after its rebuild
(each edit is then measured alone); ``--keep DIR`` copies the sources and the site of each
step that built into DIR/src-<name> and DIR/site-<name>. Prints one JSON object: for each
step, whether it built, the memo's counts, the plugin's summary line and the wall and CPU
seconds of the rebuild.
"""

from __future__ import annotations

import argparse
import json
import logging
import resource
import shutil
import time
from pathlib import Path
from typing import Any

Edit = tuple[str, str, str]


class _Summaries(logging.Handler):
    """The plugin's summary lines ("coursekit: N blocks on ..."), newest last."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("coursekit:"):
            self.lines.append(record.getMessage())


def _apply(edits: list[Edit]) -> dict[Path, str]:
    """Make the edits; return each changed file's text from before."""
    before: dict[Path, str] = {}
    for name, old, new in edits:
        path = Path(name)
        text = path.read_text(encoding="utf-8")
        if old not in text:
            raise SystemExit(f"{path}: the text to replace is not there: {old!r}")
        before.setdefault(path, text)
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return before


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def rebuild(
    steps: list[tuple[str, list[Edit]]], site: str, keep: Path | None, undo: bool
) -> dict[str, dict[str, Any]]:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    summaries = _Summaries()
    logger = logging.getLogger("mkdocs.plugins.coursekit")
    logger.setLevel(logging.INFO)
    logger.addHandler(summaries)
    started = False
    report: dict[str, dict[str, Any]] = {}
    for name, edits in steps:
        before = _apply(edits)
        try:
            if keep is not None:
                shutil.copytree(".", keep / f"src-{name}", ignore=shutil.ignore_patterns(site))
            config = load_config("mkdocs.yml", site_dir=site)
            if not started:
                config.plugins.on_startup(command="serve", dirty=False)
                started = True
            summaries.lines.clear()
            cpu, wall = _cpu(), time.perf_counter()
            try:
                build(config)
                ok = True
            except BaseException:  # strict mode stops a build with mkdocs' Abort
                ok = False
            memo = config.plugins["coursekit"].memo  # type: ignore[attr-defined]
            report[name] = {
                "ok": ok,
                "memo": dict(memo.stats),
                "summary": summaries.lines[-1] if summaries.lines else "",
                "wall": time.perf_counter() - wall,
                "cpu": _cpu() - cpu,
            }
            if ok and keep is not None:
                shutil.copytree(site, keep / f"site-{name}")
        finally:
            if undo:
                for path, text in before.items():
                    path.write_text(text, encoding="utf-8")
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("steps", type=Path)
    parser.add_argument("--site", default="site")
    parser.add_argument("--keep", type=Path)
    parser.add_argument("--undo", action="store_true")
    args = parser.parse_args()
    steps = [
        (name, [tuple(edit) for edit in edits])
        for name, edits in json.loads(args.steps.read_text())
    ]
    print(json.dumps(rebuild(steps, args.site, args.keep, args.undo)))


if __name__ == "__main__":
    main()
