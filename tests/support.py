"""What many tests share: the project's paths, and the one way to build a site.

``build(config, site_dir, ...)`` builds a site through MkDocs' own API, the way
`mkdocs build` does (strict mode counts warnings; a build error aborts), in this process
or, with ``process=True``, in a fresh one (``python tests/support.py CONFIG SITE_DIR``).
It returns the exit status and everything MkDocs logged.

    python tests/support.py CONFIG SITE_DIR [--no-strict] [--cache-dir DIR] [--no-exec-cache]

``python tests/support.py sites SHARED REPO_URL`` makes the two whole-site builds that the
test run shares (tests/conftest.py starts it in the background), one after the other.
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import os
import resource
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_SITES = ROOT / "tests" / "fixtures" / "sites"
# Builds started by the tests stay quiet about MkDocs 2 (Material's and a plugin's banners).
QUIET_ENV = {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}


if TYPE_CHECKING:
    from coursekit.mkdocs_adapter.project import Project


@cache
def project() -> Project:
    """The project's mkdocs.yml, read once per test process (several modules need it to
    list their cases while pytest collects them)."""
    from coursekit.mkdocs_adapter.project import Project

    return Project.load(ROOT / "mkdocs.yml")


@dataclass(frozen=True)
class Built:
    returncode: int
    log: str  # what MkDocs logged, one "LEVEL    -  message" line per record
    site: Path

    def page(self, path: str) -> str:
        return (self.site / path).read_text(encoding="utf-8")


def run(args: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """A command of the project's own (mkdocs, pytest) in a fresh process, output kept."""
    return subprocess.run(
        args,
        cwd=cwd,
        env={**os.environ, **QUIET_ENV},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def fixture_site(name: str, destination: Path) -> Path:
    """A writable copy of tests/fixtures/sites/<name> (and its shared base.yml)."""
    shutil.copy2(FIXTURE_SITES / "base.yml", destination / "base.yml")
    shutil.copy2(FIXTURE_SITES / "pytest.ini", destination / "pytest.ini")
    site = destination / name
    shutil.copytree(FIXTURE_SITES / name, site, ignore=shutil.ignore_patterns(".cache"))
    return site


def build(
    config: Path,
    site_dir: Path,
    *,
    strict: bool = True,
    cache_dir: Path | None = None,
    exec_cache: bool = True,
    process: bool = False,
    env: dict[str, str] | None = None,
    serving: bool = False,
) -> Built:
    """Build the site of ``config`` into ``site_dir`` (see the module docstring)."""
    if process:
        args = [sys.executable, str(Path(__file__)), str(config), str(site_dir)]
        args += [] if strict else ["--no-strict"]
        args += ["--cache-dir", str(cache_dir)] if cache_dir else []
        args += [] if exec_cache else ["--no-exec-cache"]
        done = subprocess.run(
            args,
            cwd=config.parent,
            env={**os.environ, **QUIET_ENV, **(env or {})},
            capture_output=True,
            text=True,
            timeout=1800,
            check=False,
        )
        return Built(done.returncode, done.stdout + done.stderr, site_dir)
    return _build_here(
        config, site_dir, strict=strict, cache_dir=cache_dir, exec_cache=exec_cache, serving=serving
    )


def _build_here(
    config_file: Path,
    site_dir: Path,
    *,
    strict: bool,
    cache_dir: Path | None,
    exec_cache: bool,
    serving: bool = False,
) -> Built:
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort, BuildError, ConfigurationError

    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter("%(levelname)-8s-  %(message)s"))
    loggers = [logging.getLogger("mkdocs"), logging.getLogger("coursekit")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    cwd = Path.cwd()
    returncode = 0
    try:
        os.chdir(config_file.parent)  # as `mkdocs build` runs from the config's folder
        config = load_config(str(config_file), site_dir=str(site_dir), strict=strict)
        options = config.plugins["coursekit"].config  # type: ignore[attr-defined]
        if cache_dir is not None:
            options.cache_dir = str(cache_dir)
        options.exec_cache = exec_cache
        # serving: a rebuild as `mkdocs serve` makes it (errors shown, not fatal).
        config.plugins.on_startup(command="serve" if serving else "build", dirty=False)
        try:
            mkdocs_build(config)
        finally:
            config.plugins.on_shutdown()
    except (Abort, BuildError, ConfigurationError) as error:
        out.write(f"{type(error).__name__}: {error}\n")
        returncode = 1
    finally:
        os.chdir(cwd)
        for logger, level in zip(loggers, levels, strict=True):
            logger.removeHandler(handler)
            logger.setLevel(level)
    return Built(returncode, out.getvalue(), site_dir)


def build_sites(shared: Path, repo_url: str) -> int:
    """The site as a local build makes it (the project's execution cache), then as the
    deploy workflow makes it (REPO_URL set) with a cache of its own that starts empty, so
    every block runs again, in a second process. Each writes SHARED/<name>.json when done."""
    config = str(ROOT / "mkdocs.yml")
    env = {k: v for k, v in os.environ.items() if k not in ("REPO_URL", "REPO_BRANCH")}
    local = [str(shared / "built_site"), "--result", str(shared / "built_site.json")]
    deploy = [str(shared / "built_site_with_repo_url"), "--cache-dir", str(shared / "fresh-cache")]
    deploy += ["--result", str(shared / "built_site_with_repo_url.json")]
    for args, extra in ((local, {}), (deploy, {"REPO_URL": repo_url})):
        subprocess.run(
            [sys.executable, __file__, config, *args], env={**env, **extra}, cwd=ROOT, check=False
        )
    return 0


def main() -> int:
    if sys.argv[1:2] == ["sites"]:
        return build_sites(Path(sys.argv[2]), sys.argv[3])
    parser = argparse.ArgumentParser()
    parser.add_argument("config", type=Path)
    parser.add_argument("site_dir", type=Path)
    parser.add_argument("--no-strict", action="store_true")
    parser.add_argument("--cache-dir", type=Path)
    parser.add_argument("--no-exec-cache", action="store_true")
    parser.add_argument("--result", type=Path, help="also write the result here, as JSON")
    args = parser.parse_args()
    built = _build_here(
        args.config.resolve(),
        args.site_dir.resolve(),
        strict=not args.no_strict,
        cache_dir=args.cache_dir,
        exec_cache=not args.no_exec_cache,
    )
    sys.stderr.write(built.log)
    if args.result:
        who = (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
        usage = [resource.getrusage(w) for w in who]
        cpu = sum(u.ru_utime + u.ru_stime for u in usage)  # for the run's CPU summary
        data = json.dumps({"returncode": built.returncode, "log": built.log, "cpu": cpu})
        partial = args.result.with_suffix(".partial")
        partial.write_text(data, encoding="utf-8")
        partial.replace(args.result)  # readers never see half a result
    return built.returncode


if __name__ == "__main__":
    sys.exit(main())
