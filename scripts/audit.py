"""Lighthouse on every page of the site: a benchmark, not a test (`make audit`).

Builds the site (`mkdocs build --strict`) into a temporary folder, serves it on
127.0.0.1 the way GitHub Pages serves it (Debian's nginx: HTTP/2 over TLS with a
throwaway self-signed certificate, gzip, 10-minute caching), runs Lighthouse (mobile
defaults) on every page with Debian's Chromium, and prints the four category scores
with the weakest pages first, then the audits that cost each page below the goal its
points. The goal: accessibility, best practices and SEO 1.0,
performance at least 0.95 on every page. Exits with 1 if a page misses it.

    python scripts/audit.py                 # every page
    python scripts/audit.py --only chapters # pages whose path contains "chapters"
    python scripts/audit.py --site site     # audit a site you already built
    python scripts/audit.py --runs 5        # median of five runs per page (default 3)
    python scripts/audit.py --host python   # no nginx: a keep-alive Python server

Scores depend on the host and on how busy the machine is: audit an idle machine.
Performance also varies from run to run on the same machine (on this 2-core machine one
page scored 0.93, 0.95 and 0.98 in three runs), so each page is audited three times and
the median performance is kept, as Lighthouse's guide to score variability advises. The extra
runs measure performance only: the other categories do not vary from run to run.

Lighthouse comes from npm (scripts/audit/package.json, installed into the gitignored
scripts/audit/node_modules on first use). 12.2.3 is the newest that runs on Node 20.
Full JSON reports are written to build/lighthouse/ (gitignored).
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from coursekit import chromium

ROOT = Path(__file__).resolve().parent.parent
NPM_DIR = ROOT / "scripts" / "audit"
LIGHTHOUSE = NPM_DIR / "node_modules" / ".bin" / "lighthouse"
REPORTS = ROOT / "build" / "lighthouse"
CHROME = str(chromium.CHROMIUM)
CHROME_FLAGS = ["--headless=new", *chromium.FLAGS]
CATEGORIES = ["performance", "accessibility", "best-practices", "seo"]
GOAL = {"performance": 0.95, "accessibility": 1.0, "best-practices": 1.0, "seo": 1.0}


def build(destination: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(destination)]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    if result.returncode:
        sys.exit(f"mkdocs build --strict failed:\n{result.stdout}\n{result.stderr}")


def pages(site: Path, only: str | None) -> list[str]:
    """Every page the build wrote (folders with an index.html), as URL paths."""
    found = []
    for index in sorted(site.rglob("index.html")):
        folder = index.parent.relative_to(site).as_posix()
        found.append("" if folder == "." else folder + "/")
    return [p for p in found if only is None or only in p]


# The host model: GitHub Pages serves over HTTPS with HTTP/2 and gzip. Lighthouse's scores
# depend on the server (a plain HTTP/1.0 server scores some pages 0.10 higher than a
# keep-alive one), so the audit serves the site the same way: Debian's nginx, HTTP/2, TLS
# with a throwaway self-signed certificate, gzip for text. `--host python` keeps the old
# Python server for machines without nginx.
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
NGINX_CONF = """\
worker_processes 1;
daemon off;
user root;
error_log {tmp}/error.log warn;
pid {tmp}/nginx.pid;
events {{ worker_connections 256; }}
http {{
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  access_log off;
  client_body_temp_path {tmp}/body;
  proxy_temp_path {tmp}/proxy;
  fastcgi_temp_path {tmp}/fastcgi;
  uwsgi_temp_path {tmp}/uwsgi;
  scgi_temp_path {tmp}/scgi;
  sendfile on;
  gzip on;
  gzip_comp_level 6;
  gzip_min_length 256;
  gzip_types text/css application/javascript text/javascript application/json
             image/svg+xml application/xml text/xml text/plain application/x-ipynb+json;
  server {{
    listen 127.0.0.1:{port} ssl http2;
    ssl_certificate {tmp}/cert.pem;
    ssl_certificate_key {tmp}/key.pem;
    root {site};
    # GitHub Pages: 10 minutes of caching for every file.
    add_header Cache-Control "max-age=600";
    error_page 404 /404.html;
  }}
}}
"""


class _Host(http.server.SimpleHTTPRequestHandler):
    """The fallback host (`--host python`): keep-alive HTTP/1.1 and gzip, no TLS."""

    protocol_version = "HTTP/1.1"
    COMPRESS = (".html", ".css", ".js", ".json", ".xml", ".svg", ".txt", ".ipynb")

    def do_GET(self) -> None:
        path = Path(self.translate_path(self.path))
        if path.is_dir() and self.path.split("?")[0].endswith("/"):
            path = path / "index.html"
        gzip_ok = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (gzip_ok and path.is_file() and path.suffix in self.COMPRESS):
            super().do_GET()
            return
        body = _gzipped(path, path.stat().st_mtime_ns)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@functools.cache
def _gzipped(path: Path, mtime: int) -> bytes:
    return gzip.compress(path.read_bytes(), compresslevel=6, mtime=0)


@contextmanager
def serve_python(site: Path) -> Iterator[str]:
    handler = functools.partial(_Host, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def serve_nginx(site: Path) -> Iterator[str]:
    if not Path(NGINX).exists():
        sys.exit("nginx not found: apt-get install -y nginx-light (or use --host python)")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "1",
                "-subj",
                "/CN=127.0.0.1",
                "-keyout",
                f"{tmp}/key.pem",
                "-out",
                f"{tmp}/cert.pem",
            ],
            check=True,
            capture_output=True,
        )
        port = _free_port()
        conf = Path(tmp) / "nginx.conf"
        conf.write_text(NGINX_CONF.format(tmp=tmp, port=port, site=site), encoding="utf-8")
        server = subprocess.Popen([NGINX, "-p", tmp, "-c", str(conf)])
        try:
            _wait_for_port(port, server)
            yield f"https://127.0.0.1:{port}/"
        finally:
            server.terminate()
            server.wait(timeout=10)


def _wait_for_port(port: int, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if server.poll() is not None:
            sys.exit(f"nginx exited with {server.returncode}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    sys.exit("nginx did not start listening within 10 s")


HOSTS = {
    "nginx": (serve_nginx, "nginx, HTTP/2 over TLS (self-signed), gzip: the GitHub Pages model"),
    "python": (serve_python, "Python keep-alive HTTP/1.1 with gzip, no TLS"),
}


def ensure_lighthouse() -> None:
    if LIGHTHOUSE.exists():
        return
    npm = shutil.which("npm")
    if not npm:
        sys.exit("Lighthouse needs Node.js and npm (Debian: apt-get install -y nodejs npm).")
    print("Installing Lighthouse into scripts/audit/node_modules (npm ci) ...", flush=True)
    subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=NPM_DIR, check=True)


def lighthouse(url: str, report: Path, categories: list[str]) -> dict[str, Any]:
    command = [
        str(LIGHTHOUSE),
        url,
        "--quiet",
        "--output=json",
        f"--output-path={report}",
        f"--only-categories={','.join(categories)}",
        # The audit's certificate is self-signed and made for this run only.
        f"--chrome-flags={' '.join([*CHROME_FLAGS, '--ignore-certificate-errors'])}",
    ]
    env = {**os.environ, "CHROME_PATH": CHROME}
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    if result.returncode or not report.exists():
        raise RuntimeError(f"lighthouse failed on {url}:\n{result.stderr[-2000:]}")
    return json.loads(report.read_text(encoding="utf-8"))


def losses(data: dict[str, Any], category: str) -> list[str]:
    """The audits that cost a category points, biggest weight first."""
    lost = []
    for ref in data["categories"][category]["auditRefs"]:
        audit = data["audits"][ref["id"]]
        score = audit.get("score")
        if ref["weight"] and score is not None and score < 1:
            shown = audit.get("displayValue") or f"score {score:.2f}"
            lost.append((ref["weight"] * (1 - score), f"{ref['id']} ({shown}): {audit['title']}"))
    return [text for _, text in sorted(lost, reverse=True)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, help="audit this built site instead of building")
    parser.add_argument("--only", help="audit only pages whose path contains this text")
    parser.add_argument(
        "--runs",
        type=int,
        default=3,
        help="Lighthouse runs per page; the median performance is kept (the higher middle "
        "one for an even count; it varies by a few hundredths from run to run); the first "
        "run also scores the other categories",
    )
    parser.add_argument(
        "--host",
        choices=sorted(HOSTS),
        default="nginx",
        help="how the site is served: nginx models GitHub Pages (HTTP/2, TLS, gzip)",
    )
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if not Path(CHROME).exists():
        sys.exit(f"{CHROME} not found: apt-get install -y chromium (or set CHROME_PATH)")
    ensure_lighthouse()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        site = args.site.resolve() if args.site else Path(tmp) / "site"
        if not args.site:
            print("Building the site (mkdocs build --strict) ...", flush=True)
            build(site)
        targets = pages(site, args.only)
        REPORTS.mkdir(parents=True, exist_ok=True)
        rows = []
        serve, host_model = HOSTS[args.host]
        print(f"Host model: {host_model}", flush=True)
        with serve(site) as base:
            for i, path in enumerate(targets, 1):
                began = time.perf_counter()
                name = path.strip("/").replace("/", "__") or "home"
                first = lighthouse(base + path, REPORTS / f"{name}.0.json", CATEGORIES)
                runs = [first] + [
                    lighthouse(base + path, REPORTS / f"{name}.{run}.json", ["performance"])
                    for run in range(1, args.runs)
                ]
                median = sorted(runs, key=_performance)[len(runs) // 2]
                scores = {c: first["categories"][c]["score"] or 0.0 for c in CATEGORIES}
                scores["performance"] = _performance(median)
                # The median run's performance audits, the first run's for the rest.
                data = {**first, "categories": {**first["categories"], **median["categories"]}}
                data["audits"] = {**first["audits"], **median["audits"]}
                rows.append((path or "/", scores, data))
                took = time.perf_counter() - began
                each = " ".join(f"{_performance(run):.2f}" for run in runs)
                line = f"[{i}/{len(targets)}] {path or '/'} performance {each} ({took:.0f} s)"
                print(line, flush=True)
    report(rows)
    print(f"\nHost model: {host_model}")
    print(f"{len(rows)} pages in {time.perf_counter() - started:.0f} s; reports in {REPORTS}")
    return 1 if any(_below(scores) for _, scores, _ in rows) else 0


def _performance(data: dict[str, Any]) -> float:
    return data["categories"]["performance"]["score"] or 0.0


def _below(scores: dict[str, float]) -> list[str]:
    return [c for c in CATEGORIES if scores[c] < GOAL[c]]


def report(rows: list[tuple[str, dict[str, float], dict[str, Any]]]) -> None:
    rows.sort(key=lambda r: (min(r[1][c] - GOAL[c] for c in CATEGORIES), sum(r[1].values())))
    width = max(len(path) for path, _, _ in rows)
    print("\n" + "page".ljust(width) + "  " + "  ".join(f"{c:>14}" for c in CATEGORIES))
    for path, scores, _ in rows:
        cells = "  ".join(
            f"{scores[c]:>13.2f}{'*' if scores[c] < GOAL[c] else ' '}" for c in CATEGORIES
        )
        print(f"{path.ljust(width)}  {cells}")
    print("(* below the goal: performance 0.95, the others 1.00)")
    missed = [(path, data, _below(scores)) for path, scores, data in rows if _below(scores)]
    if missed:
        print("\nWhat cost the pages below the goal their points:")
    for path, data, categories in missed:
        for category in categories:
            print(f"- {path} {category}: " + "; ".join(losses(data, category)[:5]))


if __name__ == "__main__":
    sys.exit(main())
