"""The numerical code paths every block runs on, the same on every x86-64 CPU.

PyTorch's x86 builds pick their code by CPU model: Intel MKL (matrix products, ``tanh``,
``exp``...) runs AVX-512, AVX2 or SSE code, ATen's own vector kernels follow the best
instruction set the CPU has, and oneDNN does the same. Each path rounds in its own order,
so the last digits of a float, and even a random draw, depend on the machine. Pinning
them makes the record reproduce on any x86-64 CPU:

* ``MKL_CBWR=COMPATIBLE``: MKL's conditional numerical reproducibility, the SSE2 path
  that every x86-64 CPU runs alike;
* ``ATEN_CPU_CAPABILITY=default``: ATen's kernels without AVX2/AVX-512 vectorisation;
* ``ONEDNN_MAX_CPU_ISA=SSE41``: oneDNN likewise;
* one thread (OpenMP and MKL): reductions always add in the same order, and the tiny
  examples run faster on a busy 2-core machine anyway.

They must be set before torch is imported, so every entry point that runs blocks calls
:func:`pin` first: the MkDocs plugin, the pytest plugins and ``python -m coursekit``.
Arm CPUs use neither MKL nor these kernels: there the last digits may still differ, which
the comparison with the record allows (:mod:`coursekit.execution.compare`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from types import MappingProxyType

from coursekit.errors import CourseError

PINNED = MappingProxyType(
    {
        "MKL_CBWR": "COMPATIBLE",
        "ATEN_CPU_CAPABILITY": "default",
        "ONEDNN_MAX_CPU_ISA": "SSE41",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
)


class NumericsError(CourseError, RuntimeError):
    """torch was imported with other numerical code paths than the pinned ones."""


def pin(paths: Mapping[str, str] = PINNED) -> None:
    """Set the pinned code paths for this process and the processes it starts.

    Called again after torch is imported, it only checks: the settings cannot change any
    more, so a process that imported torch first fails here instead of printing other
    digits than the record. Only the portability check (coursekit/testing/portability.py)
    asks for other ``paths``.
    """
    if "torch" not in sys.modules:
        os.environ.update(paths)
        return
    wrong = {k: os.environ.get(k) for k, v in paths.items() if os.environ.get(k) != v}
    if wrong:
        settings = ", ".join(f"{k}={v}" for k, v in paths.items())
        raise NumericsError(
            f"torch was imported before coursekit pinned its numerical code paths "
            f"({', '.join(f'{k}={v}' for k, v in wrong.items())}); import coursekit's "
            f"entry point first, or set {settings} in the environment"
        )
    import torch

    torch.set_num_threads(1)


def describe() -> str:
    """What this process runs on: the pinned settings and what torch made of them."""
    import torch

    settings = " ".join(f"{k}={os.environ.get(k, '-')}" for k in PINNED)
    return (
        f"{settings}\nATen CPU capability: {torch.backends.cpu.get_cpu_capability()}, "
        f"threads: {torch.get_num_threads()}, MKL: {torch.backends.mkl.is_available()}"
    )
