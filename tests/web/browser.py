"""Running a browser script of clients/web/test-browser against the test server: the
script prints one JSON line of what it saw, which the tests check against the API."""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

from tests.web.conftest import CHROMIUM, ROOT, WEB_DIR, WebServer, unavailable

ARTIFACTS = ROOT / "build" / "artifacts"


def run_script(
    node: str, server: WebServer, script: str, timeout: float, **env: str
) -> dict[str, Any]:
    """Runs test-browser/``script`` with the server's URL and the app's key; its line."""
    if not CHROMIUM.exists():
        unavailable(f"{CHROMIUM} is missing: deploy/system-deps.sh installs Debian's chromium")
    for package in ("playwright-core", "@axe-core/playwright"):
        if not (WEB_DIR / "node_modules" / package / "package.json").is_file():
            unavailable(f"{package} is not installed in clients/web: run `make web`")
    done = subprocess.run(
        [node, str(WEB_DIR / "test-browser" / script)],
        cwd=WEB_DIR,
        env={
            **os.environ,
            "TRANCA_WEB_URL": server.web_url,
            "TRANCA_API_KEY": server.api_key,
            "CHROMIUM": str(CHROMIUM),
            **env,
        },
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0 and lines, f"{script} failed:\n{done.stderr}\n{done.stdout}"
    result: dict[str, Any] = json.loads(lines[-1])
    return result
