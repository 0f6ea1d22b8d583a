"""``make serve``: `mkdocs serve`, restarted whenever the engine's own code changes.

MkDocs loads a plugin once per process, and Python never imports a changed module
again, so after an edit of ``coursekit/`` a rebuild would still run the old code. So
`mkdocs serve` runs as a child process, and watchfiles (the file watcher uvicorn uses)
restarts it when a ``.py`` file under ``coursekit/`` changes. The new server builds the
site with the new code (the execution cache re-runs exactly the pages whose outputs the
change can affect), and the browser's live-reload poll reconnects and reloads the page.
Everything else (docs/, snippets/, mkdocs.yml) is watched by MkDocs itself and rebuilt
in the same process.

    python -m coursekit.mkdocs_adapter.serve [mkdocs serve options]
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import watchfiles

PACKAGE = Path(__file__).resolve().parent.parent  # coursekit/


def command(args: list[str]) -> list[str]:
    return [sys.executable, "-m", "mkdocs", "serve", "--livereload", *args]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    print(f"coursekit: serving; an edit under {PACKAGE.name}/ restarts the server", flush=True)
    watchfiles.run_process(
        PACKAGE,
        target=shlex.join(command(args)),
        target_type="command",
        watch_filter=watchfiles.PythonFilter(),
        callback=lambda changes: print(
            "coursekit: restarting the server: "
            + ", ".join(sorted({Path(path).name for _, path in changes})),
            flush=True,
        ),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
