"""``python -m coursekit notebooks [--check]``: write (or check) the generated notebooks.
``python -m coursekit numerics``: the numerical code paths this machine runs the blocks on.
``python -m coursekit portability --mkl AVX512``: every block, on another of MKL's code
paths, must print its record (:mod:`coursekit.testing.portability`).

The exercise notebooks come from the exercise pages and snippets, the chapter notebooks
from the chapter pages; both are committed because Colab opens them from the repository.
Both commands pin the numerical code paths first (:mod:`coursekit.numerics`): the
notebooks are executed in this process.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from coursekit import files, numerics
from coursekit.mkdocs_adapter.project import Project
from coursekit.testing import portability


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m coursekit", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    notebooks = commands.add_parser("notebooks", help="write the generated notebooks")
    notebooks.add_argument("--check", action="store_true", help="only report stale ones")
    notebooks.add_argument("--config-file", type=Path, default=Path("mkdocs.yml"))
    commands.add_parser("numerics", help="print the pinned numerical code paths")
    portable = commands.add_parser("portability", help="run every block on another MKL path")
    portable.add_argument("--mkl", choices=portability.MKL_PATHS, required=True)
    portable.add_argument("--config-file", type=Path, default=Path("mkdocs.yml"))
    args = parser.parse_args(argv)
    if args.command == "portability":
        return _portability(args.config_file, args.mkl)
    numerics.pin()
    if args.command == "numerics":
        print(numerics.describe())
        return 0
    project = Project.load(args.config_file)
    wanted = project.notebooks()
    stale = [p for p, text in wanted.items() if not p.exists() or p.read_text("utf-8") != text]
    orphans = project.orphan_notebooks()
    if args.check:
        for path in [*stale, *orphans]:
            print(f"{path.relative_to(project.root)} is out of date", file=sys.stderr)
        if stale or orphans:
            print("Run: make notebooks", file=sys.stderr)
        return 1 if stale or orphans else 0
    for path in orphans:
        path.unlink()
        print(f"removed {path.relative_to(project.root)} (its page is gone)")
    for path in stale:
        files.atomic_write(path, wanted[path])
        print(f"wrote {path.relative_to(project.root)}")
    return 0


def _portability(config_file: Path, mkl: str) -> int:
    project = Project.load(config_file)  # its plugin pins the usual paths: torch not yet
    numerics.pin({**numerics.PINNED, "MKL_CBWR": mkl})
    count, found = portability.problems(project, mkl)
    for problem in found:
        print(problem, end="\n\n", file=sys.stderr)
    print(f"{count} blocks on MKL's {mkl} path: {len(found)} do not print their record")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
