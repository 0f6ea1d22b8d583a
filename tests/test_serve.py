"""`make serve`: edits show on the next rebuild, errors show on the page, nothing is stale.

* A snippet edit is rebuilt in the same process; a broken block shows its error on the
  page and in the terminal while the server keeps running, and the page comes back when
  it is fixed.
* An edit of the engine itself (coursekit/) restarts the server
  (coursekit/mkdocs_adapter/serve.py): the next page shows what the new code draws.
  The test serves a copy of coursekit/, so it can edit that copy.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from support import QUIET_ENV, ROOT, fixture_site


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_for(url: str, server: subprocess.Popen[str], wanted: str, timeout: float = 120) -> str:
    """Poll ``url`` until its page contains ``wanted``; fail if the server dies first."""
    deadline = time.monotonic() + timeout
    page = ""
    while time.monotonic() < deadline:
        assert server.poll() is None, "mkdocs serve stopped"
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                page = response.read().decode("utf-8")
        except OSError:
            page = ""
        if wanted in page:
            return page
        time.sleep(0.3)
    raise AssertionError(f"{wanted!r} never appeared on {url}:\n{page[-2000:]}")


def test_serve_follows_a_snippet_edit_shows_errors_and_recovers(tmp_path: Path) -> None:
    site = fixture_site("serve-edit", tmp_path)
    snippet = site / "snippets" / "example.py"
    port = _free_port()
    log = (tmp_path / "serve.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{port}"],
        cwd=site,
        env={**os.environ, **QUIET_ENV},
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        _wait_for(url, server, "value: 1")
        # An edited region is rebuilt: snippets/ is watched (`watch:` in mkdocs.yml).
        snippet.write_text(snippet.read_text().replace('"value:", 1', '"value:", 2'))
        _wait_for(url, server, "value: 2")
        # A broken block: the error is on the page and in the terminal; the server lives.
        snippet.write_text(snippet.read_text().replace('"value:", 2', '"value:", 1 / 0'))
        page = _wait_for(url, server, "ZeroDivisionError")
        assert "exec-error" in page
        where = "snippets/example.py:2 (included by docs/index.md:3)"
        assert f"{where}: ZeroDivisionError: division by zero" in page
        assert f"{where}: ZeroDivisionError" in (tmp_path / "serve.log").read_text()
        # Fixed again: the page comes back.
        snippet.write_text(snippet.read_text().replace('"value:", 1 / 0', '"value:", 3'))
        page = _wait_for(url, server, "value: 3")
        assert "exec-error" not in page
        assert server.poll() is None
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


def test_an_engine_edit_restarts_the_server_with_the_new_code(tmp_path: Path) -> None:
    engine = tmp_path / "engine"
    shutil.copytree(
        ROOT / "coursekit", engine / "coursekit", ignore=shutil.ignore_patterns("__pycache__")
    )
    site = fixture_site("serve-code", tmp_path)
    port = _free_port()
    log_file = tmp_path / "serve.log"
    log = log_file.open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "coursekit.mkdocs_adapter.serve", "--dev-addr", f"127.0.0.1:{port}"],
        cwd=site,
        # The copy comes first on the path: the server, and the one it restarts, run it.
        env={**os.environ, **QUIET_ENV, "PYTHONPATH": str(engine)},
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        page = _wait_for(url, server, 'class="d2-figure"')
        assert "drawn-by-the-edited-engine" not in page
        helper = engine / "coursekit" / "figures" / "d2.py"
        text = helper.read_text(encoding="utf-8")
        edited = text.replace(
            '<figure class="d2-figure">', '<figure class="d2-figure drawn-by-the-edited-engine">'
        )
        assert edited != text, "the figure helper no longer writes this markup"
        helper.write_text(edited, encoding="utf-8")
        # The page's output is cached under a key of the engine's code: it runs again.
        _wait_for(url, server, "drawn-by-the-edited-engine")
        assert "restarting the server: d2.py" in log_file.read_text()
    finally:
        os.killpg(server.pid, 15)
        server.wait(timeout=30)
        log.close()
