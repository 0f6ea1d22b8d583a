"""Print the project's requirements (pyproject.toml), one per line, for `pip install -r`.

`make older` installs the site's dependencies beside an older PyTorch: every requirement
but the pinned torch (``--without torch``), with the test extra (``--extra test``).
"""

from __future__ import annotations

import argparse
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--without", action="append", default=[], help="a package to leave out")
    parser.add_argument("--extra", action="append", default=[], help="an optional group to add")
    args = parser.parse_args()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = list(project["dependencies"])
    for extra in args.extra:
        wanted += project["optional-dependencies"][extra]
    for requirement in wanted:
        name = re.split(r"[\s<>=!~\[;]", requirement, maxsplit=1)[0].lower()
        if name not in {n.lower() for n in args.without}:
            print(requirement)


if __name__ == "__main__":
    main()
