"""The shards of CI (tests/harness/shards.py): together they run every test exactly
once, and what must share a process (a page's blocks, a module's fixture) shares a shard.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from harness.shards import assign, split, weights
from support import ROOT

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.usefixtures("harness_importable")

SHARDS = int(
    re.search(r"shard: \[([\d, ]+)\]", (ROOT / ".github/workflows/ci.yml").read_text())[1].split(
        ","
    )[-1]
)

SUITE = {
    "test_alpha": "import pytest\n@pytest.mark.parametrize('n', range(7))\ndef test_a(n): pass\n",
    "test_beta": (
        "import pytest\n@pytest.mark.xdist_group('together')\n"
        "@pytest.mark.parametrize('n', range(5))\ndef test_b(n): pass\n"
        "def test_c(): pass\n"
    ),
    "test_gamma": "def test_d(): pass\ndef test_e(): pass\n",
}


def _ran(pytester: pytest.Pytester, *args: str) -> list[str]:
    result = pytester.runpytest_subprocess(
        "-p",
        "harness.cost",
        "-p",
        "harness.shards",
        "-p",
        "no:randomly",
        "-v",
        *args,
    )
    return sorted(re.findall(r"^(test_\S+) PASSED", result.stdout.str(), re.M))


def test_the_shards_run_every_test_once_and_keep_a_group_together(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(**SUITE)
    shards = [_ran(pytester, "--shard", f"{k}/3") for k in (1, 2, 3)]
    ran = sorted(t for tests in shards for t in tests)
    assert len(ran) == len(set(ran)) == 15  # each of the 15 tests once, none lost
    together = [k for k, ran in enumerate(shards) if any("test_b[" in t for t in ran)]
    assert len(together) == 1, "the group was split over shards"
    assert all(shards), "a shard got nothing to do"


def test_a_split_is_balanced_and_the_same_every_time() -> None:
    units = {f"u{i}": float(w) for i, w in enumerate([9, 7, 6, 5, 5, 4, 3, 2, 2, 1])}
    where = split(units, 3)
    assert where == split(dict(reversed(units.items())), 3)  # order of collection: no matter
    loads = [sum(w for u, w in units.items() if where[u] == k) for k in range(3)]
    # Heaviest first to the lightest: no shard exceeds the mean by more than one unit.
    assert max(loads) <= sum(loads) / 3 + max(units.values())


LIST_UNITS = """
import json, sys
import pytest
from harness.shards import unit

class Units:
    @pytest.hookimpl(tryfirst=True)  # before harness.shards keeps its shard
    def pytest_collection_modifyitems(self, items):
        self.everything = {item.nodeid: unit(item) for item in items}

    def pytest_collection_finish(self, session):
        kept = [item.nodeid for item in session.items]
        print(json.dumps({"everything": self.everything, "kept": kept}))

sys.exit(pytest.main(["--collect-only", "-qq", "-n", "0", "-p", "no:randomly", *sys.argv[1:]],
                     plugins=[Units()]))
"""


def test_the_shards_of_this_suite_cover_it() -> None:
    """The real suite, collected as the job of shard 2 collects it: it keeps exactly what
    the split gives it, and the split of CI's shards holds every test once, never
    parting a page's blocks."""
    done = subprocess.run(
        [sys.executable, "-c", LIST_UNITS, "--shard", f"2/{SHARDS}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    found = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert found, done.stdout[-2000:] + done.stderr[-2000:]
    collected = json.loads(found[0])
    everything: dict[str, str] = collected["everything"]
    where = assign(set(everything.values()), weights(ROOT), SHARDS)
    shards = [{t for t, u in everything.items() if where[u] == k} for k in range(SHARDS)]
    assert sum(len(s) for s in shards) == len(everything)  # disjoint, and none lost
    assert set(collected["kept"]) == shards[1]  # what the job of shard 2 runs
    page_blocks = {u for t, u in everything.items() if t.startswith("docs/")}
    assert page_blocks and all(u.startswith("md:") for u in page_blocks)
