"""Debian's Chromium, as the browser tests and the Lighthouse audit launch it.

One list of flags for both, so the tests and `make audit` see the same browser:
no sandbox (root in a container), no GPU, and no network of Chromium's own (background
requests, component updates, sync, QUIC). Each caller adds its own headless flag.
"""

from __future__ import annotations

import os
from pathlib import Path

CHROMIUM = Path(os.environ.get("CHROME_PATH", "/usr/bin/chromium"))
FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
# Of Playwright's own default flags: SwiftShader, software WebGL, which a page without
# WebGL never needs; with it the renderer spends about a seventh more CPU per page.
PLAYWRIGHT_DEFAULTS_LEFT_OUT = ("--enable-unsafe-swiftshader",)
HOW_TO_GET_IT = (
    "install Debian's Chromium with `apt-get install -y chromium` "
    "(or point CHROME_PATH at a Chromium binary)"
)
