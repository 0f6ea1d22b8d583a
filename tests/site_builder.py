"""Build the test sites one after the other, each result written whole to <name>.json.

Started in the background by tests/conftest.py (``start_site_builds``) and left to run
on its own, so it finishes even if the pytest process that started it ends first.

    python tests/site_builder.py SHARED_DIR PROJECT_ROOT '{"name": {"ENV": "value"}}'
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

TIMEOUT = 900
# Variables the sites are built with or without, never taken from the caller.
OWN = ("REPO_URL", "REPO_BRANCH")


def main(shared: Path, root: Path, sites: dict[str, dict[str, str]]) -> None:
    for name, extra in sites.items():
        env = {key: value for key, value in os.environ.items() if key not in OWN}
        env.update(extra, NO_MKDOCS_2_WARNING="1")
        args = [
            *(sys.executable, "-m", "mkdocs", "build", "--strict"),
            *("--config-file", str(root / "mkdocs.yml"), "--site-dir", str(shared / name)),
        ]
        try:
            done = subprocess.run(
                args, cwd=root, env=env, capture_output=True, text=True, timeout=TIMEOUT
            )
            result = {"returncode": done.returncode, "stdout": done.stdout, "stderr": done.stderr}
        except subprocess.TimeoutExpired as error:
            result = {"returncode": -1, "stdout": "", "stderr": f"timed out: {error}"}
        partial = shared / f"{name}.json.partial"
        partial.write_text(json.dumps(result), encoding="utf-8")
        partial.replace(shared / f"{name}.json")  # readers never see half a result


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), json.loads(sys.argv[3]))
