"""Benchmark (not a test): how close are the build and the authoring loop to their floor?

Prints, in one run:
  * cold build     `mkdocs build --strict` in a fresh process, no .cache/ at all;
  * prose edit     a rebuild after one sentence changed in a page, measured the way
                   `mkdocs serve` rebuilds (same process, config loaded again, the
                   execution cache and the rebuild memo warm); the median of
                   --prose-runs edits, with the CPU time of each;
  * code edit      a rebuild after one line of a snippet region changed (that page
                   re-runs, every other page comes from the cache);
  * floor          one plain Python process importing torch and running every block
                   once, through the same run_page loop as the build;
  * import torch   a Python process that only imports torch (the prose-edit target);
  * ratios         cold build / floor, prose edit / floor and prose edit / import torch;
  * tests          the whole test suite (`make test`'s command), unless --no-tests, and
                   its CPU-seconds by group (builds, drift check, notebooks, browser,
                   HTML...), as the suite itself prints them (tests/harness/cost.py).

Wall-clock seconds, and in brackets CPU seconds: of the measured process and all its
descendants, counted by a cgroup of its own where the machine has cgroup v1's cpuacct
(so other work on the machine is not counted), else by the kernel's accounting of
waited-for children. For the test suite also the machine-wide busy CPU seconds from
/proc/stat over the run (what issue 16 measures; it counts everything on the machine).

Usage: python scripts/bench.py [--no-tests]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
PROSE_PAGE = ROOT / "docs" / "chapters" / "chain-rule.md"
CODE_FILE = ROOT / "snippets" / "chapters" / "chain_rule.py"


def floor(root: Path) -> None:
    """The floor, run in a process of its own (``--floor``): import torch, then every
    block of every page once, through the same run_page loop as the build."""
    from coursekit import numerics

    numerics.pin()  # the build's numerical code paths, set before torch is imported
    start = time.perf_counter()
    import torch  # noqa: F401  (the floor includes importing torch once)

    from coursekit.execution.page_run import run_page
    from coursekit.mkdocs_adapter.project import Project

    project = Project.load(root / "mkdocs.yml")
    blocks = 0
    for page in sorted((root / "docs").rglob("*.md")):
        results = run_page(project.read(page).blocks)
        failed = [r.failure.report() for r in results if r.failure]
        if failed:
            sys.exit(failed[0])
        blocks += len(results)
    print(json.dumps({"blocks": blocks, "seconds": time.perf_counter() - start}))


def _edits(runs: int) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """The rebuilds as an author makes them under `mkdocs serve`, each edit undone after
    its rebuild (tests/harness/serve_rebuilds.py): a different sentence each time, so
    every rebuild sees a new page, then one line of a region that the page includes."""
    prose = PROSE_PAGE.relative_to(ROOT).as_posix()
    code = CODE_FILE.relative_to(ROOT).as_posix()
    sentences = [
        (f"prose{n}", [(prose, "\n\n", f"\n\nSentence {n} added by the bench.\n\n")])
        for n in range(runs)
    ]
    region_line = "x = torch.tensor(2.0, requires_grad=True)"
    return [
        ("warm", []),
        *sentences,
        ("code", [(code, region_line, f"{region_line}  # edited by the bench")]),
    ]


CGROUPS = Path("/sys/fs/cgroup/cpuacct")


def _busy_seconds() -> float:
    """Machine-wide busy CPU seconds since boot (every core), from /proc/stat."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _timed(args: list[str], timeout: float = 7200) -> tuple[float, float, str, float]:
    """Run ``args``; return wall seconds, CPU seconds of its process tree, its stdout,
    and the machine's busy CPU seconds over the run."""
    candidate = CGROUPS / f"coursekit-bench-{os.getpid()}"
    group: Path | None = candidate
    try:
        candidate.mkdir()
    except OSError:
        group = None  # no cgroup here: count waited-for children instead
    command = args
    if group is not None:
        command = ["sh", "-c", f'echo $$ > {group}/cgroup.procs && exec "$@"', "sh", *args]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    busy = _busy_seconds()
    start = time.perf_counter()
    result = subprocess.run(
        command, cwd=ROOT, env=ENV, capture_output=True, text=True, check=False, timeout=timeout
    )
    wall = time.perf_counter() - start
    if group is not None:
        # Background work of the run (the test suite's site builds) is counted too.
        deadline = time.monotonic() + 900
        while (group / "cgroup.procs").read_text().strip() and time.monotonic() < deadline:
            time.sleep(0.5)
        cpu = int((group / "cpuacct.usage").read_text()) / 1e9
        group.rmdir()
    else:
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    machine = _busy_seconds() - busy
    if result.returncode != 0:
        sys.exit(f"{' '.join(args)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return wall, cpu, result.stdout, machine


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--no-tests", action="store_true", help="skip timing the test suite")
    parser.add_argument(
        "--prose-runs", type=int, default=5, help="prose edits to time, one after another"
    )
    parser.add_argument("--floor", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.floor:
        floor(ROOT)
        return
    rows: list[tuple[str, str]] = []
    shutil.rmtree(ROOT / ".cache", ignore_errors=True)  # cold: no execution/diagram/notebook cache
    with tempfile.TemporaryDirectory() as site:
        mkdocs = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", site]
        cold, cold_cpu, _, _ = _timed(mkdocs)
        steps = Path(site) / "steps.json"
        steps.write_text(json.dumps(_edits(args.prose_runs)), encoding="utf-8")
        rebuilder = [
            sys.executable,
            str(ROOT / "tests" / "harness" / "serve_rebuilds.py"),
            str(steps),
        ]
        _, _, out, _ = _timed([*rebuilder, "--site", site, "--undo"])
    rebuilds = json.loads(out)
    floor_wall, floor_cpu, out, _ = _timed([sys.executable, __file__, "--floor"])
    torch_wall, torch_cpu, _, _ = _timed([sys.executable, "-c", "import torch"])
    blocks = json.loads(out)["blocks"]
    # Several prose edits, one after another as an author makes them: the median, and all.
    runs = [rebuilds[f"prose{n}"] for n in range(args.prose_runs)]
    prose = {
        "wall": statistics.median(r["wall"] for r in runs),
        "cpu": statistics.median(r["cpu"] for r in runs),
        "summary": f"{runs[-1]['summary']}; CPU of each run: "
        + ", ".join(f"{r['cpu']:.2f}" for r in runs),
    }
    code = rebuilds["code"]
    rows += [
        ("cold build (mkdocs build --strict, no .cache)", f"{cold:6.1f} s  [{cold_cpu:.1f} s CPU]"),
        (
            f"prose-edit rebuild (as mkdocs serve, median of {args.prose_runs})",
            f"{prose['wall']:6.1f} s  [{prose['cpu']:.1f} s CPU]  {prose['summary']}",
        ),
        (
            "code-edit rebuild (as mkdocs serve)",
            f"{code['wall']:6.1f} s  [{code['cpu']:.1f} s CPU]  {code['summary']}",
        ),
        (
            f"floor (import torch + {blocks} blocks, run_page)",
            f"{floor_wall:6.1f} s  [{floor_cpu:.1f} s CPU]",
        ),
        (
            "ratio cold build / floor",
            f"{cold / floor_wall:6.2f}    [{cold_cpu / floor_cpu:.2f} CPU]",
        ),
        (
            "ratio prose-edit rebuild / floor",
            f"{prose['wall'] / floor_wall:6.2f}    [{prose['cpu'] / floor_cpu:.2f} CPU]",
        ),
        (
            "import torch (a process that only imports it)",
            f"{torch_wall:6.1f} s  [{torch_cpu:.1f} s CPU]",
        ),
        (
            "ratio prose-edit rebuild / import torch",
            f"{prose['wall'] / torch_wall:6.2f}    [{prose['cpu'] / torch_cpu:.2f} CPU]",
        ),
    ]
    if not args.no_tests:
        suite = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        tests, tests_cpu, _, busy = _timed(suite)
        rows.append(
            (
                "test suite (python -m pytest)",
                f"{tests:6.1f} s  [{tests_cpu:.1f} s CPU of its processes; "
                f"{busy:.1f} s busy CPU machine-wide]",
            )
        )
        # Where it went: the suite's own summary (tests/harness/cost.py), by group.
        cost = json.loads((ROOT / ".cache" / "test-cost.json").read_text(encoding="utf-8"))
        for group, seconds in sorted(cost["groups"].items(), key=lambda row: -row[1]):
            tests = cost["tests"].get(group, 0)
            rows.append((f"  {group}", f"{seconds:8.1f} s CPU  ({tests} tests)"))
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    main()
