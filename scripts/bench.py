"""Benchmark (not a test): how close is the build to its floor?

Prints, in one run:
  * cold build   `mkdocs build --strict` in a fresh process with no caches;
  * rebuild      a second build in the same process, as `mkdocs serve` does;
  * floor        one plain Python process importing torch and running every block once;
  * ratio        cold build / floor;
  * tests        the whole test suite (`python -m pytest`).

Usage: python scripts/bench.py [--skip-tests]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}

FLOOR = """
import sys, time
from pathlib import Path
start = time.perf_counter()
import torch  # noqa: F401  (the floor includes importing torch once)
from coursekit import includes
from coursekit.execution import run_block
from coursekit.fences import executed_fences_in_file, session_name
root = Path(sys.argv[1])
options = dict(includes.snippet_options(root / "mkdocs.yml"))
sessions, blocks = {}, 0
for page in sorted((root / "docs").rglob("*.md")):
    rel = page.relative_to(root).as_posix()
    for fence in executed_fences_in_file(page, root):
        code = includes.expand(fence.body, rel, fence.line + 1, options, root)
        namespace = sessions.setdefault(session_name(rel, fence), {"__name__": "__floor__"})
        run_block(code, namespace, lambda s: None, where=fence.where,
                  raises=fence.attrs.get("raises", ""), first_line=fence.line + 1)
        blocks += 1
print(blocks, time.perf_counter() - start)
"""

REBUILD = """
import sys, time, logging
from mkdocs.commands.build import build
from mkdocs.config import load_config
logging.disable(logging.WARNING)
times = []
for _ in range(2):
    config = load_config(sys.argv[1], site_dir=sys.argv[2])
    start = time.perf_counter()
    build(config)
    times.append(time.perf_counter() - start)
print(*times)
"""


def _timed(args: list[str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    result = subprocess.run(args, cwd=ROOT, env=ENV, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"{' '.join(args)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return elapsed, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-tests", action="store_true", help="skip timing the test suite")
    args = parser.parse_args()
    shutil.rmtree(ROOT / ".cache", ignore_errors=True)  # cold: no diagram/notebook caches
    with tempfile.TemporaryDirectory() as tmp:
        cold, _ = _timed([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", tmp])
        _, rebuilt = _timed([sys.executable, "-c", REBUILD, str(ROOT / "mkdocs.yml"), tmp])
    first, second = map(float, rebuilt.stdout.split())
    floor_wall, floor = _timed([sys.executable, "-c", FLOOR, str(ROOT)])
    blocks = int(floor.stdout.split()[0])
    rows = [
        ("cold build (mkdocs build --strict)", f"{cold:.1f} s"),
        (
            "rebuild in the same process (serve)",
            f"{second:.1f} s  (first in-process {first:.1f} s)",
        ),
        (f"floor (import torch + {blocks} blocks once)", f"{floor_wall:.1f} s"),
        ("ratio cold build / floor", f"{cold / floor_wall:.2f}"),
    ]
    if not args.skip_tests:
        tests, _ = _timed([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"])
        rows.append(("test suite (python -m pytest)", f"{tests:.1f} s"))
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    main()
