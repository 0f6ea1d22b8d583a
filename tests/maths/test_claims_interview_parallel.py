"""docs/interview/how-does-data-parallel-training-average-gradients.md, at its edges.

The average of the two halves' gradients is the full batch's gradient exactly when each
example's loss depends on that example alone: so with ReLU, LayerNorm (per example) or
BatchNorm in eval mode (fixed statistics), but not with BatchNorm in training mode (the
statistics of the half), on any data, in float32 and float64. ``nn.SyncBatchNorm``'s
documentation says what the page says it does (it cannot run here: it needs GPUs).
``DistributedSampler`` gives every rank the same number of examples, for any dataset
size. The launchers of this page and of dataparallel-vs-ddp-vs-fsdp.md meet in a folder
whose name has a space; after ``destroy_process_group()`` the group's gloo threads still
run in a process that wrapped a model in DDP or sharded one with ``fully_shard`` (so the
workers end with ``os._exit``), and in none that only joined the group.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F
from hypothesis import example, given, settings
from hypothesis import strategies as st
from torch import nn

from tests.maths import run_region, snippet_path

PAGE = "docs/interview/how-does-data-parallel-training-average-gradients.md"
DDP = "interview/how_does_data_parallel_training_average_gradients"


@pytest.mark.claim(PAGE, "The halves' average is then not the full batch's gradient")
@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([torch.float32, torch.float64]))
@example(seed=7374, dtype=torch.float32)  # equal only up to float32 rounding (atol 1e-6)
def test_only_batch_norm_in_training_breaks_the_average(seed: int, dtype: torch.dtype) -> None:
    shown = run_region(DDP, "batch-norm")
    assert shown["same"] == {"ReLU": True, "BatchNorm1d": False}
    generator = torch.Generator().manual_seed(seed)
    X = torch.randn(8, 3, generator=generator, dtype=dtype)
    y = torch.randn(8, 1, generator=generator, dtype=dtype)
    torch.set_default_dtype(dtype)  # the page's networks, made in this dtype
    try:
        middles = {
            "ReLU": nn.ReLU(),
            "LayerNorm": nn.LayerNorm(4),
            "BatchNorm1d, eval": nn.BatchNorm1d(4).eval(),  # fixed statistics
            "BatchNorm1d, train": nn.BatchNorm1d(4),  # the statistics of each half
        }
        page = run_region(
            DDP,
            "batch-norm-maths",
            inputs={"torch": torch, "nn": nn, "F": F, "X": X, "y": y, "middles": middles},
        )
    finally:
        torch.set_default_dtype(torch.float32)
    assert page["same"] == {
        "ReLU": True,
        "LayerNorm": True,
        "BatchNorm1d, eval": True,
        "BatchNorm1d, train": False,
    }


@pytest.mark.claim(PAGE, "its documentation says that it computes the mean")
def test_sync_batch_norm_documentation() -> None:
    doc = " ".join(nn.SyncBatchNorm.__doc__.split())
    assert "The mean and standard-deviation are calculated per-dimension over all" in doc
    assert "mini-batches of the same process groups" in doc
    assert "(DDP) with single GPU per process" in doc
    assert callable(nn.SyncBatchNorm.convert_sync_batchnorm)


@pytest.mark.claim(PAGE, "Samplers such as `DistributedSampler` give every rank the same number of")
@pytest.mark.parametrize("size", [8, 9, 10, 11, 1])
@pytest.mark.parametrize("ranks", [2, 4])
def test_distributed_sampler_gives_equal_shares(size: int, ranks: int) -> None:
    from torch.utils.data import DistributedSampler

    shares = [
        list(DistributedSampler(range(size), num_replicas=ranks, rank=r, shuffle=False))
        for r in range(ranks)
    ]
    assert len({len(share) for share in shares}) == 1  # equal, by repeating a few examples
    assert set().union(*shares) == set(range(size))  # and every example is used
    assert len(shares[0]) == -(-size // ranks)  # ceil(size / ranks)


@pytest.mark.parametrize(
    ("snippet", "regions"),
    [
        (DDP, ("run", "worker", "launch")),
        ("interview/dataparallel_vs_ddp_vs_fsdp", ("model", "run", "worker", "launch")),
    ],
)
def test_the_launchers_meet_in_a_folder_with_a_space(
    snippet: str, regions: tuple[str, ...], tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The launcher's temporary folder, under a TMPDIR with a space. A URL that wrote it as
    # %20 would send the ranks to a folder that does not exist, and the group would wait
    # for its file until PyTorch's FileStore gives up, after 300 s.
    import queue
    import tempfile
    from datetime import timedelta
    from types import SimpleNamespace

    import torch.distributed as dist

    folder = tmp_path / "with space"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    page = run_region(snippet, *regions)
    met = []

    def one_rank(worker, args, nprocs, join, start_method):  # in place of the two workers
        meeting, results = args
        dist.init_process_group(
            "gloo", init_method=meeting, rank=0, world_size=1, timeout=timedelta(seconds=30)
        )
        try:
            met.append(any(folder.rglob("meeting")))  # the file is where the launcher made it
        finally:
            dist.destroy_process_group()
        for rank in range(nprocs):
            results.put({"rank": rank})
        return SimpleNamespace(join=lambda timeout: True, processes=[])

    page["mp"] = SimpleNamespace(
        get_context=lambda method: SimpleNamespace(Queue=queue.Queue), start_processes=one_rank
    )
    assert [report["rank"] for report in page["launch"](timeout=60)] == [0, 1]
    assert met == [True]


# A script that runs each probe in two spawned processes (spawn needs a file it can import
# again), then reports which gloo threads each process still has after
# destroy_process_group(). "worker" is the page's own worker; "fully_shard" shards the
# page's own model and does nothing else; "control" joins a group and leaves it.
THREADS_AFTER_DESTROY = """
import importlib, json, os, sys, tempfile
from pathlib import Path
import torch.distributed as dist
import torch.multiprocessing as mp
sys.path.insert(0, {folder!r})
page = importlib.import_module({module!r})

def gloo_threads():
    names = []
    for thread in os.listdir("/proc/self/task"):
        try:
            names.append(Path("/proc/self/task", thread, "comm").read_text().strip())
        except (FileNotFoundError, ProcessLookupError):  # it ended since the listing
            pass
    return sorted(name for name in names if "gloo" in name)

def probe(rank, meeting, results, kind):
    if kind == "worker":
        page.worker(rank, meeting, results)  # ends with destroy_process_group()
    else:
        dist.init_process_group("gloo", init_method=meeting, rank=rank, world_size=2)
        if kind == "fully_shard":
            from torch.distributed.fsdp import fully_shard
            fully_shard(page.new_model())
        dist.barrier()
        dist.destroy_process_group()
    results.put({{"probe": kind, "gloo threads": gloo_threads()}})
    results.close()
    results.join_thread()
    os._exit(0)

if __name__ == "__main__":
    found = []
    for kind in {probes!r}:
        results = mp.get_context("spawn").Queue()
        with tempfile.TemporaryDirectory() as folder:
            meeting = "file://" + str(Path(folder, "meeting"))
            mp.start_processes(probe, args=(meeting, results, kind), nprocs=2,
                               start_method="spawn")
        reports = [results.get(timeout=30) for _ in range(4 if kind == "worker" else 2)]
        found += [report for report in reports if "probe" in report]
    print(json.dumps(found))
"""
FSDP_PAGE = "docs/interview/dataparallel-vs-ddp-vs-fsdp.md"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/task")
@pytest.mark.parametrize(
    ("snippet", "left_running"),
    [
        pytest.param(
            DDP,
            {"worker": True, "control": False},
            id=DDP,
            marks=[
                pytest.mark.claim(
                    PAGE, "the group's gloo threads keep running after `destroy_process_group()`"
                ),
                # This page's worker wraps its model in DDP, and in nothing else.
                pytest.mark.claim(
                    FSDP_PAGE,
                    "the group's gloo threads still run in a process that wrapped a model in DDP",
                ),
            ],
        ),
        pytest.param(
            "interview/dataparallel_vs_ddp_vs_fsdp",
            {"worker": True, "fully_shard": True, "control": False},
            id="interview/dataparallel_vs_ddp_vs_fsdp",
            marks=pytest.mark.claim(
                FSDP_PAGE, "and in one that sharded a model with `fully_shard`"
            ),
        ),
    ],
)
def test_gloo_threads_outlive_the_group(
    snippet: str, left_running: dict[str, bool], tmp_path
) -> None:
    # Why the workers end with os._exit: the page's own worker leaves its threads behind.
    path = snippet_path(snippet)
    script = tmp_path / "threads_after_destroy.py"
    script.write_text(
        THREADS_AFTER_DESTROY.format(
            folder=str(path.parent), module=path.stem, probes=list(left_running)
        )
    )
    completed = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=200, check=False
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    found = json.loads(completed.stdout)
    running = {
        kind: [bool(report["gloo threads"]) for report in found if report["probe"] == kind]
        for kind in left_running
    }
    # On each of the two ranks: threads left running, or (the control) none.
    assert running == {kind: [left] * 2 for kind, left in left_running.items()}
