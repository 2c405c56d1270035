"""The TypeScript client (clients/web) against a real server's browser port: its
node tests (clients/web/test, `node --test`) over the Connect protocol (JSON and
binary) and gRPC-Web: typed errors with the localized wording, retries keeping the
request id, a watch resuming from its last version, a guest's table with robots."""

from __future__ import annotations

import os
import re
import subprocess

import pytest

from tests.web.conftest import WEB_DIR, WebServer

NODE_TIMEOUT = 300.0


def test_the_typescript_clients_node_tests_pass(node: str, web_server: WebServer) -> None:
    try:
        done = subprocess.run(
            [node, "--test", "--test-reporter=spec", "test/"],
            cwd=WEB_DIR,
            env={
                **os.environ,
                "TRANCA_WEB_URL": web_server.web_url,
                "TRANCA_API_KEY": web_server.api_key,
                "TRANCA_APP_ID": web_server.app_id,
            },
            capture_output=True,
            text=True,
            timeout=NODE_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"node --test ran over {NODE_TIMEOUT:.0f} s:\n{exc.stdout!r}\n{exc.stderr!r}")
    print(done.stdout[-4000:])
    assert done.returncode == 0, f"node --test failed:\n{done.stdout}\n{done.stderr}"
    counts = {
        k: int(v) for k, v in re.findall(r"^ℹ (tests|pass|fail|skipped) (\d+)$", done.stdout, re.M)
    }
    assert counts.get("fail") == 0
    assert counts.get("skipped") == 0, "the node tests skipped: the server was not reached"
    assert counts.get("pass", 0) >= 18
