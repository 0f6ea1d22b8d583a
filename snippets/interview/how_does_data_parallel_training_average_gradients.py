"""Interview: How does data-parallel training average gradients?
(docs/interview/how-does-data-parallel-training-average-gradients.md)

A real two-process group on the CPU (the gloo backend), with DistributedDataParallel.
Run it: python snippets/interview/how_does_data_parallel_training_average_gradients.py
It starts a fresh Python process (the launcher, `--launch`), which starts two workers,
collects what they report, and prints it in rank order. The page runs it the same way,
because worker processes cannot be started from inside the site's build process.
"""
# Each region is read on its own on the page, so imports appear where they are used.
# ruff: noqa: E402

# --8<-- [start:run]
import os
import subprocess
import sys
from pathlib import Path


def run_in_fresh_process(script: Path, timeout: float = 230.0) -> str:
    """Run this script's launcher in a new Python process and return what it printed."""
    completed = subprocess.run(
        [sys.executable, str(script), "--launch"],
        # a crash while Python runs prints the stack of each Python thread
        env={**os.environ, "PYTHONFAULTHANDLER": "1"},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if completed.returncode != 0:
        raise RuntimeError("the launcher failed:\n" + completed.stderr[-6000:])
    return completed.stdout


# --8<-- [end:run]


# --8<-- [start:worker]
import time
from datetime import timedelta
from typing import Any

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook
from torch.nn.parallel import DistributedDataParallel as DDP

WORLD_SIZE = 2  # two processes, each with its own copy of the model


def full_batch() -> tuple[torch.Tensor, torch.Tensor]:
    """The same 8 examples in every process (each rank then takes its own half)."""
    generator = torch.Generator().manual_seed(0)
    return torch.randn(8, 3, generator=generator), torch.randn(8, 1, generator=generator)


def new_model(seed: int) -> nn.Linear:
    torch.manual_seed(seed)
    return nn.Linear(3, 1)


def counting_allreduce(
    calls: list[int], bucket: dist.GradBucket
) -> torch.futures.Future[torch.Tensor]:
    """DDP's own all-reduce (divide by the world size, then sum), counted."""
    calls.append(1)
    return allreduce_hook(dist.group.WORLD, bucket)


def worker(rank: int, meeting: str, results: Any) -> None:
    """Each rank's work: its half of the batch through its copy of the model."""
    dist.init_process_group(  # the ranks meet through a file: each writes its address there
        "gloo",
        init_method=meeting,
        rank=rank,
        world_size=WORLD_SIZE,
        timeout=timedelta(seconds=120),
    )
    try:
        model = DDP(new_model(seed=rank))  # different weights on purpose: DDP copies rank 0's
        all_reduces: list[int] = []
        model.register_comm_hook(all_reduces, counting_allreduce)
        X, y = full_batch()
        X_mine, y_mine = X[rank::WORLD_SIZE], y[rank::WORLD_SIZE]  # rows rank, rank + 2, ...
        report: dict[str, Any] = {"rank": rank, "weight at start": model.module.weight.tolist()}

        # One ordinary step: forward and backward on this rank's 4 rows.
        F.mse_loss(model(X_mine), y_mine).backward()
        report["grad after backward"] = model.module.weight.grad.tolist()
        report["all-reduces in backward"] = len(all_reduces)

        # Gradient accumulation: two micro-batches of 2 rows, one synchronisation.
        model.zero_grad()
        all_reduces.clear()
        with model.no_sync():  # backward() without communication
            (F.mse_loss(model(X_mine[:2]), y_mine[:2]) / 2).backward()
        report["grad after micro-batch 1"] = model.module.weight.grad.tolist()
        report["all-reduces after micro-batch 1"] = len(all_reduces)
        (F.mse_loss(model(X_mine[2:]), y_mine[2:]) / 2).backward()  # outside: synchronised
        report["grad after micro-batch 2"] = model.module.weight.grad.tolist()
        report["all-reduces after micro-batch 2"] = len(all_reduces)
        results.put(report)
        dist.barrier()  # no process leaves the group while another still talks to it
    finally:
        dist.destroy_process_group()


def worker_then_leave(rank: int, meeting: str, results: Any) -> None:
    """What each process runs: the worker, then an immediate end."""
    worker(rank, meeting, results)
    results.close()
    results.join_thread()  # the report has been handed over to the launcher
    # DDP keeps the group's gloo threads running after destroy_process_group(). os._exit
    # ends the process without Python's shutdown, so that never runs beside them.
    os._exit(0)


# --8<-- [end:worker]


# --8<-- [start:launch]
import tempfile


def launch(timeout: float = 200.0) -> list[dict[str, Any]]:
    """Start the workers, wait for them (at most `timeout` s), return their reports."""
    # spawn, as torch.multiprocessing.spawn does: each worker is a fresh Python. A forked
    # worker inherits the launcher's threads' locks, and on a busy machine could hang.
    context = mp.get_context("spawn")
    results = context.Queue()
    # A new file, not a port picked in advance: another program could take the port
    # before the group binds it. Gloo's own connections then use ports the system gives.
    with tempfile.TemporaryDirectory() as folder:
        # file:///... and the path as it is (never printed): on Linux and macOS PyTorch
        # does not decode the URL, so a space must not become %20
        meeting = f"file://{Path(folder, 'meeting')}"
        processes = mp.start_processes(
            worker_then_leave,
            args=(meeting, results),
            nprocs=WORLD_SIZE,
            join=False,
            start_method="spawn",
        )
        deadline = time.monotonic() + timeout
        while not processes.join(timeout=1.0):  # raises if a worker failed
            if time.monotonic() > deadline:
                for process in processes.processes:
                    process.kill()
                raise TimeoutError(f"the workers did not finish within {timeout:g} s")
    reports = [results.get(timeout=10) for _ in range(WORLD_SIZE)]
    return sorted(reports, key=lambda report: report["rank"])


def show(values: list[list[float]]) -> str:
    return "[" + ", ".join(f"{v:7.4f}" for v in values[0]) + "]"


def print_reports(reports: list[dict[str, Any]]) -> None:
    for r in reports:
        print(f"rank {r['rank']}: weight at start {show(r['weight at start'])}")
    print("after backward() on each rank's 4 rows:")
    for r in reports:
        print(f"  rank {r['rank']}: weight.grad {show(r['grad after backward'])}", end="")
        print(f"   all-reduces: {r['all-reduces in backward']}")

    # The same model without DDP, in this process: each half, and the full batch.
    X, y = full_batch()
    halves = []
    for rank in range(WORLD_SIZE):
        model = new_model(seed=0)  # rank 0's weights, which DDP gave every rank
        F.mse_loss(model(X[rank::WORLD_SIZE]), y[rank::WORLD_SIZE]).backward()
        halves.append(model.weight.grad)
        print(f"  without DDP, rank {rank}'s half alone:  {show(model.weight.grad.tolist())}")
    model = new_model(seed=0)
    F.mse_loss(model(X), y).backward()
    average = torch.stack(halves).mean(dim=0)
    print(f"  average of the two halves:         {show(average.tolist())}")
    print(f"  the full batch of 8 rows:          {show(model.weight.grad.tolist())}")
    synced = torch.tensor(reports[0]["grad after backward"])
    print("  DDP's gradient == full-batch gradient:", torch.allclose(synced, model.weight.grad))

    print("accumulating two micro-batches of 2 rows per rank:")
    for step, where in ((1, "inside no_sync()"), (2, "after no_sync() ")):
        for r in reports:
            grad = show(r[f"grad after micro-batch {step}"])
            calls = r[f"all-reduces after micro-batch {step}"]
            print(f"  micro-batch {step}, {where}, rank {r['rank']}: {grad}   all-reduces: {calls}")
    accumulated = torch.tensor(reports[0]["grad after micro-batch 2"])
    print(
        "  accumulated gradient == full-batch gradient:",
        torch.allclose(accumulated, model.weight.grad),
    )


# --8<-- [end:launch]


if __name__ == "__main__":
    if sys.argv[1:] == ["--launch"]:
        print_reports(launch())
    else:
        print(run_in_fresh_process(Path(__file__)), end="")

        # --8<-- [start:order]
        import inspect

        from torch.distributed.algorithms.ddp_comm_hooks import default_hooks

        # allreduce_hook, which reproduces DDP's default, runs in this order:
        source = inspect.getsource(default_hooks._allreduce_fut)
        for line in source.splitlines():
            if "overflow" in line or "div_(" in line or "all_reduce(" in line:
                print(line.strip())
        # --8<-- [end:order]

        # --8<-- [start:batch-norm]
        # One process, no DDP: the gradient that each of two ranks would compute on its
        # half of the batch, averaged, against the full batch's gradient.
        import torch
        import torch.nn.functional as F
        from torch import nn

        generator = torch.Generator().manual_seed(0)
        X, y = torch.randn(8, 3, generator=generator), torch.randn(8, 1, generator=generator)
        middles = {"ReLU": nn.ReLU(), "BatchNorm1d": nn.BatchNorm1d(4)}
        # --8<-- [start:batch-norm-maths]
        same = {}
        for name, middle in middles.items():
            torch.manual_seed(0)
            net = nn.Sequential(nn.Linear(3, 4), middle, nn.Linear(4, 1))
            halves = []
            for rank in range(2):
                net.zero_grad()
                F.mse_loss(net(X[rank::2]), y[rank::2]).backward()
                halves.append(net[0].weight.grad.clone())
            net.zero_grad()
            F.mse_loss(net(X), y).backward()
            average = torch.stack(halves).mean(dim=0)
            same[name] = torch.allclose(average, net[0].weight.grad, atol=1e-6)  # up to rounding
            print(f"with {name:11}: average of the halves == full-batch gradient: {same[name]}")
        # --8<-- [end:batch-norm-maths]
        # --8<-- [end:batch-norm]
