"""Interview: DataParallel vs DistributedDataParallel vs FSDP
(docs/interview/dataparallel-vs-ddp-vs-fsdp.md)

DataParallel read from its source (it needs GPUs); a ring all-reduce simulated to count
its traffic; a real two-process group on the CPU (the gloo backend) with the collectives,
DDP and FSDP2's fully_shard; the memory per rank of each scheme; and what
DistributedSampler does to a dataset that does not divide evenly.
Run it: python snippets/interview/dataparallel_vs_ddp_vs_fsdp.py
The workers are started by a fresh Python process (the launcher, `--launch`), which
prints their reports as JSON; the page runs it the same way, because worker processes
cannot be started from inside the site's build process. Every worker imports this file
again, so everything that runs (rather than defines) is under `if __name__ == "__main__"`.
"""
# Each region is read on its own on the page, so imports appear where they are used.
# ruff: noqa: E402

# --8<-- [start:ring]
import torch


def ring_all_reduce(grads: list[torch.Tensor]) -> tuple[list[torch.Tensor], list[int]]:
    """Sum the ranks' gradients as a ring all-reduce does; count the bytes each rank sends.

    Each gradient is cut into n chunks. Reduce-scatter: n - 1 steps in which every rank
    sends one chunk to the next rank, which adds it to its own; afterwards rank r holds
    the full sum of chunk r + 1. All-gather: n - 1 more steps passing the summed chunks on.
    """
    n = len(grads)
    chunks = [list(g.clone().tensor_split(n)) for g in grads]
    sent = [0] * n
    for step in range(n - 1):  # reduce-scatter
        messages = [(r, (r - step) % n, chunks[r][(r - step) % n].clone()) for r in range(n)]
        for r, c, data in messages:
            chunks[(r + 1) % n][c] += data
            sent[r] += data.nbytes
    for step in range(n - 1):  # all-gather
        messages = [
            (r, (r + 1 - step) % n, chunks[r][(r + 1 - step) % n].clone()) for r in range(n)
        ]
        for r, c, data in messages:
            chunks[(r + 1) % n][c] = data
            sent[r] += data.nbytes
    return [torch.cat(c) for c in chunks], sent


# --8<-- [end:ring]

# --8<-- [start:model]
import torch
import torch.nn.functional as F
from torch import nn


def full_batch() -> tuple[torch.Tensor, torch.Tensor]:
    """The same 8 examples in every process (each rank then takes its own half)."""
    generator = torch.Generator().manual_seed(0)
    return torch.randn(8, 4, generator=generator), torch.randn(8, 2, generator=generator)


def new_model() -> nn.Sequential:
    torch.manual_seed(0)  # the same weights in every process
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))


def flat_grad(params) -> torch.Tensor:
    return torch.cat([p.grad.flatten() for p in params])


def flat_weights(model: nn.Module) -> torch.Tensor:
    return torch.cat([p.detach().flatten() for p in model.parameters()])


# --8<-- [end:model]

# --8<-- [start:run]
import json
import os
import subprocess
import sys
from pathlib import Path


def run_workers(script: Path, timeout: float = 230.0) -> list[dict]:
    """Run the script's launcher in a new Python process; return the workers' reports."""
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
    return json.loads(completed.stdout)


# --8<-- [end:run]


# --8<-- [start:worker]
import time
from datetime import timedelta
from typing import Any

import torch.distributed as dist
import torch.multiprocessing as mp
from torch.distributed.fsdp import fully_shard
from torch.nn.parallel import DistributedDataParallel as DDP

WORLD_SIZE = 2


def local_bytes(model: nn.Module, adam: torch.optim.Optimizer) -> dict[str, int]:
    """Bytes this rank holds, by kind (a DTensor holds only its local shard)."""

    def local(t: torch.Tensor) -> torch.Tensor:
        return t.to_local() if hasattr(t, "to_local") else t

    params = list(model.parameters())
    return {
        "weights": sum(local(p).nbytes for p in params),
        "gradients": sum(local(p.grad).nbytes for p in params),
        "Adam's state": sum(
            local(adam.state[p][k]).nbytes for p in params for k in ("exp_avg", "exp_avg_sq")
        ),
    }


def worker(rank: int, meeting: str, results: Any) -> None:
    dist.init_process_group(  # the ranks meet through a file: each writes its address there
        "gloo",
        init_method=meeting,
        rank=rank,
        world_size=WORLD_SIZE,
        timeout=timedelta(seconds=120),
    )
    try:
        X, y = full_batch()
        X, y = X[rank::WORLD_SIZE], y[rank::WORLD_SIZE]  # this rank's 4 rows
        report: dict[str, Any] = {"rank": rank}

        # The collectives by hand, on this rank's own gradient.
        plain = new_model()
        F.mse_loss(plain(X), y).backward()
        mine = flat_grad(plain.parameters())  # 58 numbers, different on each rank
        averaged = mine.clone()
        dist.all_reduce(averaged, op=dist.ReduceOp.AVG)  # every rank gets the average
        shard = torch.empty(mine.numel() // WORLD_SIZE)
        dist.reduce_scatter(shard, list(mine.chunk(WORLD_SIZE)), op=dist.ReduceOp.AVG)
        parts = [torch.empty_like(shard) for _ in range(WORLD_SIZE)]
        dist.all_gather(parts, shard)  # every rank gets every rank's shard
        report["own gradient"] = mine.tolist()
        report["all-reduce"] = averaged.tolist()
        report["reduce-scatter shard"] = shard.tolist()
        report["reduce-scatter, then all-gather"] = torch.cat(parts).tolist()

        # DDP: a full copy per rank, gradients all-reduced during backward().
        copy = new_model()
        if rank != 0:  # start from other weights: DDP replaces them with rank 0's
            with torch.no_grad():
                for p in copy.parameters():
                    p.add_(1.0)
        ddp = DDP(copy)  # broadcasts rank 0's parameters and buffers to every rank
        report["DDP start is rank 0's"] = torch.equal(flat_weights(ddp), flat_weights(new_model()))
        adam = torch.optim.Adam(ddp.parameters(), lr=0.01)
        F.mse_loss(ddp(X), y).backward()
        report["DDP gradient"] = flat_grad(ddp.parameters()).tolist()
        adam.step()
        report["DDP bytes"] = local_bytes(ddp, adam)

        # FSDP2: every parameter cut in two along dim 0, one half per rank.
        model = new_model()
        for layer in (model[0], model[2]):
            fully_shard(layer)  # a unit: its weights are all-gathered just before it runs
        fully_shard(model)
        adam = torch.optim.Adam(model.parameters(), lr=0.01)
        F.mse_loss(model(X), y).backward()
        weight = model[0].weight
        report["FSDP weight"] = (
            f"{type(weight).__name__} of shape {tuple(weight.shape)}; "
            f"this rank holds {tuple(weight.to_local().shape)}"
        )
        full = [p.grad.full_tensor() for p in model.parameters()]  # an all-gather, for a look
        report["FSDP gradient"] = torch.cat([g.flatten() for g in full]).tolist()
        adam.step()
        report["FSDP bytes"] = local_bytes(model, adam)
        results.put(report)
        dist.barrier()  # no process leaves the group while another still talks to it
    finally:
        dist.destroy_process_group()


def worker_then_leave(rank: int, meeting: str, results: Any) -> None:
    """What each process runs: the worker, then an immediate end."""
    worker(rank, meeting, results)
    results.close()
    results.join_thread()  # the report has been handed over to the launcher
    # DDP and fully_shard keep the group's gloo threads running after
    # destroy_process_group(). os._exit ends the process without Python's shutdown, so
    # that never runs beside them.
    os._exit(0)


# --8<-- [end:worker]


# --8<-- [start:launch]
import tempfile


def launch(timeout: float = 200.0) -> list[dict[str, Any]]:
    """Start the workers, wait for them (at most `timeout` s), return their reports."""
    context = mp.get_context("spawn")  # each worker a fresh Python, as torch's spawn does
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


# --8<-- [end:launch]


# --8<-- [start:memory-formula]
def bytes_per_rank(params: int, ranks: int) -> dict[str, float]:
    """Mixed-precision Adam, as the ZeRO paper counts it: 2 + 2 + 12 bytes per parameter."""
    weights, grads, states = 2 * params, 2 * params, 12 * params
    return {
        "DDP": weights + grads + states,
        "ZeRO-1 (optimizer state)": weights + grads + states / ranks,
        "ZeRO-2 (+ gradients)": weights + (grads + states) / ranks,
        "ZeRO-3, FSDP (+ weights)": (weights + grads + states) / ranks,
    }


# --8<-- [end:memory-formula]


if __name__ == "__main__":
    if sys.argv[1:] == ["--launch"]:
        print(json.dumps(launch()))
    else:
        # --8<-- [start:dataparallel]
        import inspect

        from torch import nn
        from torch.nn.parallel.parallel_apply import parallel_apply

        steps = (
            "device_ids:",
            "(*inputs, **kwargs)",
            "scatter(",
            "replicate(",
            "apply(",
            "gather(",
        )
        print("DataParallel.forward, the lines that do the work:")
        for line in inspect.getsource(nn.DataParallel.forward).splitlines():
            if any(step in line for step in steps):
                print("   ", line.strip())
        print("parallel_apply runs each replica in:", end=" ")
        source = inspect.getsource(parallel_apply)
        print(*[line.strip() for line in source.splitlines() if "Thread(" in line])
        # --8<-- [end:dataparallel]

        # --8<-- [start:ring-table]
        torch.manual_seed(0)
        size = 840 * 1000  # a gradient of 840,000 float32 numbers: 3.36 MB
        print("ranks  bytes each rank sends  / gradient bytes  2(n-1)/n  all have the sum")
        for n in (1, 2, 4, 8):
            grads = [torch.randn(size) for _ in range(n)]
            results, sent = ring_all_reduce(grads)
            total = torch.stack(grads).sum(dim=0)
            correct = all(torch.allclose(result, total, atol=1e-5) for result in results)
            ratio = sent[0] / grads[0].nbytes
            print(f"{n:5} {sent[0]:22,} {ratio:16.4g} {2 * (n - 1) / n:9.4g}  {correct}")
        # --8<-- [end:ring-table]

        # --8<-- [start:model-size]
        print("parameters:", [tuple(p.shape) for p in new_model().parameters()], end=" ")
        print(f"= {sum(p.numel() for p in new_model().parameters())} numbers")
        # --8<-- [end:model-size]

        # --8<-- [start:collect]
        reports = run_workers(Path("snippets/interview/dataparallel_vs_ddp_vs_fsdp.py"))
        # --8<-- [end:collect]

        # --8<-- [start:show-ddp]
        model = new_model()  # the whole batch, in this process, without any group
        F.mse_loss(model(full_batch()[0]), full_batch()[1]).backward()
        expected = flat_grad(model.parameters())

        def first(values: list[float], k: int = 4) -> str:
            return "[" + ", ".join(f"{v:7.4f}" for v in values[:k]) + ", ...]"

        for r in reports:
            print(f"rank {r['rank']}: weights once DDP wraps the model are rank 0's:", end=" ")
            print(r["DDP start is rank 0's"])
        for r in reports:
            print(f"rank {r['rank']}: its own half's gradient {first(r['own gradient'])}")
        for r in reports:
            print(f"rank {r['rank']}: DDP's gradient          {first(r['DDP gradient'])}")
        print(f"full batch of 8 rows:          {first(expected.tolist())}")
        same = all(torch.allclose(torch.tensor(r["DDP gradient"]), expected) for r in reports)
        print("DDP's gradient allclose to the full-batch gradient, on both ranks:", same)
        # --8<-- [end:show-ddp]

        # --8<-- [start:show-collectives]
        for r in reports:
            shard = r["reduce-scatter shard"]
            print(f"rank {r['rank']}: reduce-scatter leaves it {len(shard)} numbers", end=" ")
            print(first(shard, 2))
        for r in reports:
            equal = r["reduce-scatter, then all-gather"] == r["all-reduce"]
            print(f"rank {r['rank']}: reduce-scatter, then all-gather == all-reduce: {equal}")
        # --8<-- [end:show-collectives]

        # --8<-- [start:show-fsdp]
        print("FSDP's first weight:", reports[0]["FSDP weight"])
        same = all(torch.allclose(torch.tensor(r["FSDP gradient"]), expected) for r in reports)
        print("FSDP's gradient, gathered, allclose to the full-batch gradient:", same)
        print("bytes each rank holds after one Adam step:")
        for scheme in ("DDP", "FSDP"):
            for r in reports:
                held = r[f"{scheme} bytes"]
                parts = ", ".join(f"{kind} {n}" for kind, n in held.items())
                print(f"  {scheme:4} rank {r['rank']}: {parts}; in all {sum(held.values())}")
        # --8<-- [end:show-fsdp]

        # --8<-- [start:memory-table]
        with torch.device("meta"):  # shapes only: no memory is allocated
            gpt2_sized = nn.ModuleDict(
                {
                    "tokens": nn.Embedding(50257, 768),
                    "positions": nn.Embedding(1024, 768),
                    "layers": nn.TransformerEncoder(
                        nn.TransformerEncoderLayer(768, 12, 3072, batch_first=True),
                        num_layers=12,
                        enable_nested_tensor=False,
                    ),
                }
            )
        params = sum(p.numel() for p in gpt2_sized.parameters())
        print(f"{params:,} parameters; GB per rank with")
        print(f"{'ranks:':>26}" + "".join(f"{n:>8}" for n in (1, 8, 64)))
        for scheme in bytes_per_rank(params, 1):
            row = [bytes_per_rank(params, n)[scheme] / 1e9 for n in (1, 8, 64)]
            print(f"{scheme:>26}" + "".join(f"{gb:8.3f}" for gb in row))
        # --8<-- [end:memory-table]

        # --8<-- [start:sampler]
        from torch.utils.data import DistributedSampler

        dataset = list(range(10))  # 10 examples, 4 ranks
        for drop_last in (False, True):
            print(f"drop_last={drop_last}:")
            for rank in range(4):
                sampler = DistributedSampler(
                    dataset, num_replicas=4, rank=rank, shuffle=False, drop_last=drop_last
                )
                print(f"  rank {rank} gets examples {list(sampler)}")
        # --8<-- [end:sampler]

        # --8<-- [start:sampler-gradient]
        torch.manual_seed(0)
        inputs, targets = torch.randn(10, 3), torch.randn(10, 1)
        w = torch.zeros(3, 1, requires_grad=True)

        def grad_of(indices: list[int]) -> torch.Tensor:
            loss = F.mse_loss(inputs[indices] @ w, targets[indices])
            return torch.autograd.grad(loss, w)[0].flatten()

        shares = [
            list(DistributedSampler(dataset, num_replicas=4, rank=r, shuffle=False))
            for r in range(4)
        ]
        averaged = torch.stack([grad_of(share) for share in shares]).mean(dim=0)  # as DDP
        print("average of the 4 ranks' gradients:", averaged)
        print("mean over the 12 padded examples: ", grad_of([i for share in shares for i in share]))
        print("mean over the 10 real examples:   ", grad_of(dataset))
        # --8<-- [end:sampler-gradient]
