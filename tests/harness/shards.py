"""Split the suite into shards that parallel CI jobs run: ``--shard K/N`` runs shard K of N.

Loaded from pyproject.toml (``-p harness.shards``); without ``--shard`` it does
nothing. Every job collects the whole suite and keeps its own part, so the jobs agree on
the split without talking to each other:

* The unit of the split is what must run in one process: an ``xdist_group`` of
  tests/harness/parallel.py (the blocks of one page, one page's browser visits, a
  module that shares a module-scoped fixture), else the test's file.
* Units are weighed by the CPU-seconds they took in a whole run (``tests/shard_weights.json``,
  written by ``--shard-weights FILE`` from such a run; a unit it does not know weighs the
  median), then dealt out heaviest first, each to the lightest shard so far (ties: the
  lower shard number; equal weights: the unit's name). The same collection gives the same
  split on every machine.

tests/test_shards.py checks that the shards of a collection hold every test exactly once.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from harness.cost import PROPERTY

WEIGHTS = Path("tests") / "shard_weights.json"
_UNITS = pytest.StashKey[dict[str, float]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("course", "course site drift check")
    group.addoption("--shard", default=None, help="run shard K of N (K/N, K from 1)")
    group.addoption(
        "--shard-weights",
        default=None,
        help="after the run, write each unit's CPU-seconds here (the weights of the split)",
    )


def unit(item: pytest.Item) -> str:
    """What must run in one process with this test (see the module's docstring)."""
    mark = item.get_closest_marker("xdist_group")
    if mark is not None and mark.args:
        return str(mark.args[0])
    return item.nodeid.split("::", 1)[0]


def split(units: dict[str, float], shards: int) -> dict[str, int]:
    """Each unit's shard (0-based): heaviest first, each to the lightest shard so far."""
    load = [0.0] * shards
    where: dict[str, int] = {}
    for name, weight in sorted(units.items(), key=lambda u: (-u[1], u[0])):
        lightest = min(range(shards), key=lambda k: (load[k], k))
        where[name] = lightest
        load[lightest] += weight
    return where


def assign(names: set[str], weights: dict[str, float], shards: int) -> dict[str, int]:
    """:func:`split` of these units, weighed by ``weights`` (an unknown unit: the median)."""
    default = statistics.median(weights.values()) if weights else 1.0
    return split({name: weights.get(name, default) for name in names}, shards)


def weights(root: Path) -> dict[str, float]:
    """The committed weights (tests/shard_weights.json), or none."""
    path = root / WEIGHTS
    return dict(json.loads(path.read_text(encoding="utf-8"))) if path.is_file() else {}


def parse(value: str) -> tuple[int, int]:
    """``"K/N"`` as (K - 1, N); anything else is a usage error."""
    try:
        number, total = (int(part) for part in value.split("/"))
    except ValueError:
        raise pytest.UsageError(f"--shard {value}: write K/N, e.g. --shard 2/4") from None
    if not 1 <= number <= total:
        raise pytest.UsageError(f"--shard {value}: K must be between 1 and N")
    return number - 1, total


@pytest.hookimpl(trylast=True)  # after harness.parallel marks the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    value = config.getoption("--shard")
    if not value:
        return
    index, total = parse(value)
    where = assign({unit(item) for item in items}, weights(config.rootpath), total)
    kept = [item for item in items if where[unit(item)] == index]
    dropped = [item for item in items if where[unit(item)] != index]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = kept


UNIT = "shard_unit"  # the name of the unit on a test's report (see pytest_runtest_setup)


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("--shard-weights")
    if path and not hasattr(config, "workerinput"):  # the process that sees every report
        config.pluginmanager.register(_Recorder(Path(path)), "coursekit-shard-weights")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    # Where the test was collected (an xdist worker), its unit rides on its report.
    if item.config.getoption("--shard-weights"):
        item.user_properties.append((UNIT, unit(item)))


class _Recorder:
    """Sums each unit's CPU-seconds (tests/harness/cost.py measures each test)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.units: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "teardown":
            return
        name, seconds = report.nodeid.split("::")[0], 0.0
        for key, value in report.user_properties:
            if key == UNIT:
                name = str(value)
            elif key == PROPERTY and isinstance(value, float):
                seconds += value
        self.units[name] = self.units.get(name, 0.0) + seconds

    def pytest_sessionfinish(self) -> None:
        rounded = {name: round(seconds, 1) for name, seconds in sorted(self.units.items())}
        self.path.write_text(json.dumps(rounded, indent=1) + "\n", encoding="utf-8")
