"""Every mistake on the ``tranca`` command line is one line on stderr, never a
traceback, with exit status 2 for a usage error and 1 for a refusal at run time
(tranca/cli.py's docstring): ``serve``, ``migrate``, ``create-app``, ``revoke-app``,
``simulate``, ``demo``, ``loadtest``, ``bot`` and ``play``.

The headline cases run the real entry point in a subprocess; the others call
``tranca.cli.main`` and read what it wrote.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tranca.cli import main
from tranca.store import migrate

USAGE, REFUSED = 2, 1


def _tranca(*args: str, cwd: Path) -> tuple[int, list[str], str]:
    """``tranca ARGS`` in a subprocess: exit status, stderr's lines, stdout."""
    env = {k: v for k, v in os.environ.items() if k != "TRANCA_DATABASE_URL"}
    done = subprocess.run(
        [sys.executable, "-m", "tranca.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.returncode, done.stderr.splitlines(), done.stdout


def _main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    """``tranca.cli.main(ARGS)``: exit status and stderr's lines."""
    try:
        code = main(list(args))
    except SystemExit as exc:  # argparse's usage errors
        assert isinstance(exc.code, int), exc.code
        code = exc.code
    return code, capsys.readouterr().err.splitlines()


def _one_line(lines: list[str], prog: str) -> str:
    assert len(lines) == 1, lines
    assert "Traceback" not in lines[0]
    assert lines[0].startswith(f"{prog}: "), lines[0]
    return lines[0]


# ----- the real entry point --------------------------------------------------------------


def test_create_app_without_a_database_says_how_to_make_one_and_creates_nothing(
    tmp_path: Path,
) -> None:
    # No --database-url: the default, ./tranca.db, which is not there.
    code, err, out = _tranca("create-app", "my app", cwd=tmp_path)
    line = _one_line(err, "tranca create-app")
    assert code == REFUSED and out == ""
    assert f"there is no database at {tmp_path / 'tranca.db'}" in line
    assert "`tranca migrate --database-url sqlite:///tranca.db` creates it" in line
    assert list(tmp_path.iterdir()) == []  # nothing created on the way


def test_create_app_on_a_database_not_migrated_names_tranca_migrate(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    url = f"sqlite:///{path}"
    migrate.upgrade(url, "0002")
    code, err, _ = _tranca("create-app", "my app", "--database-url", url, cwd=tmp_path)
    line = _one_line(err, "tranca create-app")
    assert code == REFUSED
    assert "has schema 0002" in line and f"run `tranca migrate --database-url {url}`" in line


def test_simulate_with_a_player_count_the_preset_is_not_played_by(tmp_path: Path) -> None:
    code, err, out = _tranca("simulate", "--players", "5", "--deals", "1", cwd=tmp_path)
    line = _one_line(err, "tranca simulate")
    assert code == USAGE and out == ""
    assert "tranca-000 is played by 2 or 4 players, not 5" in line


def test_serve_on_a_missing_database_refuses_and_creates_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'none.db'}"
    code, err, _ = _tranca(
        "serve", "--port", "0", "--metrics-port", "0", "--database-url", url, cwd=tmp_path
    )
    line = _one_line(err, "tranca serve")
    assert code == REFUSED
    assert "there is no database at" in line and "tranca migrate --database-url" in line
    assert list(tmp_path.iterdir()) == []


# ----- every command, through main() -----------------------------------------------------


@pytest.mark.parametrize(
    ("args", "code", "says"),
    [
        ((), USAGE, "required: command"),
        (("bogus",), USAGE, "invalid choice: 'bogus'"),
        (("simulate", "--preset", "tranca-004", "--players", "3"), USAGE, "not 3"),
        (("simulate", "--preset", "nope"), USAGE, "invalid choice: 'nope'"),
        (("simulate", "--deals", "0"), USAGE, "--deals"),
        (("demo", "--players", "3"), USAGE, "tranca-000 is played by 2 or 4 players, not 3"),
        (("demo", "--preset", "canasta-002-tres", "--players", "4"), USAGE, "by 3 players"),
        (("demo", "--players", "x"), USAGE, "invalid int value: 'x'"),
        (("migrate", "--database-url", "mysql://db/x"), USAGE, "not sqlite:///PATH"),
        (("create-app", "x", "--database-url", "nonsense"), USAGE, "--database-url"),
        (("create-app", "x", "--permission", "root"), USAGE, "invalid choice: 'root'"),
        (("serve", "--port", "abc"), USAGE, "invalid int value: 'abc'"),
        (("serve", "--port", "70000"), USAGE, "not a port"),
        (("serve", "--tls-cert", "c.pem"), USAGE, "--tls-cert and --tls-key go together"),
        (("loadtest",), USAGE, "--api-key"),
        (("loadtest", "--api-key", "k", "--players", "3"), USAGE, "not 3"),
        (("loadtest", "--api-key", "k", "--games", "0"), USAGE, "--games"),
        (("loadtest", "--api-key", "k", "--preset", "nope"), USAGE, "invalid choice"),
        (("bot", "--game", "g"), USAGE, "--token --api-key"),
        (("bot", "--game", "g", "--token", "t", "--client-cert", "c"), USAGE, "go together"),
        (("play", "--api-key", "k"), USAGE, "--new or --game"),
        (("play", "--new", "--api-key", "k", "--timeout", "0"), USAGE, "--timeout"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], code: int, says: str
) -> None:
    got, err = _main(capsys, *args)
    prog = "tranca" + (f" {args[0]}" if args and args[0] != "bogus" else "")
    line = _one_line(err, prog)
    assert got == code
    assert says in line
    assert line.endswith(f"(see {prog} --help)")


def test_database_refusals_are_one_line_and_exit_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    empty = tmp_path / "empty.db"
    empty.touch()
    url = f"sqlite:///{empty}"
    for args, says in [
        (("create-app", "x", "--database-url", url), "has no schema"),
        (("revoke-app", "abc", "--database-url", url), "has no schema"),
        (("serve", "--metrics-port", "0", "--database-url", url), "has no schema"),
        (("migrate", "--database-url", f"sqlite:///{tmp_path}/no/such/dir.db"), "no folder"),
        (("create-app", "x", "--database-url", "postgresql://x@127.0.0.1:1/db"), "cannot use"),
    ]:
        code, err = _main(capsys, *args)
        line = _one_line(err, f"tranca {args[0]}")
        assert code == REFUSED, line
        assert says in line
    ready = tmp_path / "ready.db"
    migrate.upgrade(f"sqlite:///{ready}")
    code, err = _main(capsys, "revoke-app", "nope", "--database-url", f"sqlite:///{ready}")
    assert code == REFUSED and "there is no app 'nope'" in _one_line(err, "tranca revoke-app")
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".db") == [
        "empty.db",
        "ready.db",
    ]


def test_serve_refuses_a_port_in_use_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'ok.db'}"
    migrate.upgrade(url)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        for args in (
            ("--port", port, "--metrics-port", "0"),
            ("--port", "0", "--metrics-port", port),
        ):
            code, err = _main(capsys, "serve", *args, "--database-url", url)
            line = _one_line(err, "tranca serve")
            assert code == REFUSED
            assert f"cannot listen on 127.0.0.1:{port}: Address already in use" in line


def test_clients_without_a_server_refuse_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    nowhere = ["--address", "127.0.0.1:1", "--timeout", "0.3"]
    for args in (
        ("bot", "--game", "g", "--token", "t", *nowhere),
        ("play", "--new", "--api-key", "k", *nowhere),
        ("play", "--game", "g", "--token", "t", "--root-certs", str(tmp_path / "none.pem")),
    ):
        code, err = _main(capsys, *args)
        line = _one_line(err, f"tranca {args[0]}")
        assert code == REFUSED
        assert "no connection to 127.0.0.1:1" in line or "No such file" in line


def test_clients_without_the_sdk_say_how_to_install_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A server installed without the SDK's distribution: its import fails.
    monkeypatch.setitem(sys.modules, "tranca_client", None)
    for args in (("bot", "--game", "g", "--token", "t"), ("play", "--new", "--api-key", "k")):
        code, err = _main(capsys, *args)
        line = _one_line(err, f"tranca {args[0]}")
        assert code == REFUSED
        assert line.endswith("not installed: pip install './clients/python[table]'")
