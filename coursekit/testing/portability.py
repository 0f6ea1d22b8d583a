"""Would another CPU print the record? Every block, run on another of MKL's code paths.

The pin (:mod:`coursekit.numerics`) sends MKL down its COMPATIBLE path, which should round
alike on every x86-64 CPU. Yet a block whose printed digits hang on the last bits of its
floats can still print something else on another CPU: 200 Adam steps in float32 grew
those bits into the fourth digit of a loss curve (control/freezing.md, on an Intel Xeon
with AMX). MKL's AVX2 and AVX-512 paths round differently from COMPATIBLE in just that
way, so a block that prints its record on them too does not depend on the CPU, and a
fragile one shows up here on any machine, not only on the one that happens to differ.

``python -m coursekit portability --mkl AVX512`` runs every page so and lists, by file and
line, every block that fails or does not print its record byte for byte: even a
difference the record's tolerance allows (:mod:`coursekit.execution.compare`) means
another CPU could print other digits. tests/test_portability.py runs it on both paths.
Only MKL's path varies (ATen and oneDNN stay pinned); on a CPU without AVX-512, MKL
ignores that request and runs COMPATIBLE.
"""

from __future__ import annotations

from coursekit import versions
from coursekit.execution.compare import Verdict
from coursekit.execution.page_run import run_page
from coursekit.execution.record import Record, diff
from coursekit.figures.d2 import D2Renderer, rendering
from coursekit.mkdocs_adapter.project import Project

MKL_PATHS = ("AVX2", "AVX512")  # MKL_CBWR values: the paths of other x86-64 CPUs


def problems(project: Project, mkl: str) -> tuple[int, list[str]]:
    """How many blocks ran, and a report of each one that does not print its record.

    The caller has pinned MKL_CBWR to ``mkl`` before torch was imported."""
    record = Record.load(project.record)
    torch = versions.torch()
    found: list[str] = []
    count = 0
    with rendering(D2Renderer(project.root / project.options.cache_dir / "d2")):
        for page in sorted(project.docs.rglob("*.md")):
            blocks = project.read(page).blocks
            count += len(blocks)
            for result in run_page(blocks) if blocks else []:
                if result.failure is not None:
                    found.append(result.failure.report())
                    continue
                block = result.block
                verdict, expected, output = record.compare(block, result.output)
                if verdict is not Verdict.SAME:
                    found.append(
                        f"{block.where}: block {block.key!r} prints something else on MKL's "
                        f"{mkl} path than its record ({verdict.value}):\n"
                        + diff(expected or "", output, record.torch, torch)
                    )
    return count, found
