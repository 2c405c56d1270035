"""The terminal table in a real terminal: a server in a subprocess, ``tranca play`` in a
pseudo-terminal (pexpect) against it, a person's answers typed at its prompts until
the deal is over, and the final score breakdown read off the screen; and a person
who quits, whose game the server's robots play on."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import socket
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pexpect.fdpexpect
import pytest

from tranca_client import TrancaClient, pb

KEY = "table-test-key"
PROMPT = re.compile(r"Your move \(1-(\d+), a move, or help\): ")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# What Terminal.expect looks for (as pexpect's expect takes it): a text, a regular
# expression, the end of the output or a time-out.
Pattern = (
    str | bytes | re.Pattern[str] | re.Pattern[bytes] | type[pexpect.EOF] | type[pexpect.TIMEOUT]
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``tranca serve`` in a subprocess on a fresh SQLite file; yields its address."""
    tmp_path: Path = tmp_path_factory.mktemp("table")
    port = _free_port()
    log = (tmp_path / "server.log").open("wb")
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "tranca.cli", "serve",
            "--port", str(port), "--metrics-port", "0",
            "--database-url", f"sqlite:///{tmp_path / 'table.db'}",
            "--auto-migrate", "--dev-api-key", KEY,
            "--sweep-interval", "0.05",  # the server's robots answer at once
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, (tmp_path / "server.log").read_text()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)
        yield f"127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


class Terminal:
    """A program in a pseudo-terminal of 120 x 50, driven with pexpect.

    The program is started by ``subprocess`` on the pty's slave side (not by
    ``pexpect.spawn``, whose fork runs Python code in a child of this process, where
    gRPC's threads from other tests are running), and pexpect reads the master side.
    """

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 120, 0, 0))
        self.proc = subprocess.Popen(
            args, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True
        )
        os.close(slave)
        self.master = master
        self.pty = pexpect.fdpexpect.fdspawn(master, encoding="utf-8", timeout=30)

    def expect(self, pattern: Pattern | list[Pattern], timeout: float = -1) -> int:
        return int(self.pty.expect(pattern, timeout=timeout))

    def sendline(self, line: str) -> None:
        self.pty.sendline(line)

    @property
    def before(self) -> str:
        return str(self.pty.before)

    @property
    def after(self) -> str:
        return str(self.pty.after)

    @property
    def match(self) -> re.Match[str]:
        match = self.pty.match
        assert isinstance(match, re.Match), f"the last expect matched no pattern: {match!r}"
        return match

    def wait(self, timeout: float = 30) -> int:
        """Read to the end of the output; the program's exit status."""
        self.pty.expect(pexpect.EOF, timeout=timeout)
        return self.proc.wait(timeout)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        with contextlib.suppress(OSError):
            os.close(self.master)


def _play(served: str, *args: str) -> Terminal:
    """``tranca play`` in a terminal."""
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "50"}
    env.pop("NO_COLOR", None)
    command = [sys.executable, "-m", "tranca.cli", "play", "--address", served]
    return Terminal([*command, "--api-key", KEY, *args], env)


def test_a_person_plays_a_whole_deal_at_the_terminal_table(served: str) -> None:
    child = _play(
        served,
        "--new", "--preset", "tranca-000", "--players", "2", "--bots", "greedy",
        "--single-deal", "--seed", "5", "--name", "ana",
    )  # fmt: skip
    screen: list[str] = []
    try:
        # The first prompt: a move the rules refuse is explained with the server's
        # reason code and message, and the prompt comes back.
        child.expect(PROMPT)
        screen.append(child.before + child.after)
        assert "Your hand (11)" in ANSI.sub("", child.before)
        child.sendline("discard JK")
        child.expect(PROMPT)
        refusal = ANSI.sub("", child.before)
        assert re.search(r"Refused: [A-Z_]{6,} - \S", refusal), refusal
        child.sendline("not a move")
        child.expect(PROMPT)
        assert "Not a move: unknown move 'not'" in ANSI.sub("", child.before)

        # Then the first legal move every time, until the match (one deal) is over.
        answers = 0
        while True:
            child.sendline("1")
            answers += 1
            assert answers < 400, "the deal did not end"
            index = child.expect([PROMPT, r"Match over: [^\r\n]*"])
            screen.append(child.before + child.after)
            if index == 1:
                break
        status = child.wait()
        screen.append(child.before)
    finally:
        child.kill()
    text = ANSI.sub("", "".join(screen))
    assert status == 0, text[-3000:]
    assert answers > 5

    # The table as it was shown mid-deal: turn, phase, pile, stock, morto, melds.
    assert "Turn: ana" in text and "phase: draw" in text and "phase: play" in text
    assert re.search(r"Stock: \d+", text) and "Morto: us " in text
    assert re.search(r"\s+1\) draw", text)
    # The final score breakdown, read off the screen.
    end = text[text.rindex("Deal 1 over") :]
    assert re.search(r"Deal 1 over: (someone went out|the stock ran out|no legal move)", end)
    for row in ("table cards", "batida", "red threes", "morto", "cards in hand"):
        assert re.search(rf"{row}\s+│\s+-?\d+\s+│\s+-?\d+", end), (row, end)
    totals = re.search(r"deal total\s+│\s+(-?\d+)\s+│\s+(-?\d+)", end)
    assert totals, end
    assert re.search(r"Match over: (You win|robot 1 wins|a draw) \(a single-deal match\)", end)


def test_two_people_sit_at_one_table_from_two_terminals(served: str) -> None:
    host = _play(served, "--new", "--players", "2", "--humans", "2", "--name", "ana")
    guest: Terminal | None = None
    try:
        host.expect(r"New game (?:\x1b\[[0-9;]*m)*([0-9a-f]{32})")
        game_id = host.match.group(1)
        host.expect("Seat 1 waits for a person")
        host.expect("Waiting for every seat to be taken")
        guest = _play(served, "--game", game_id, "--seat", "1", "--name", "bia")
        guest.expect("You sit at seat 1")
        host.expect("bia sat down at seat 1")
        host.expect("The game starts")
        # Whoever's turn it is gets the prompt; the other resigns from their terminal.
        index = host.expect([PROMPT, pexpect.TIMEOUT], timeout=3)
        on_turn, other = (host, guest) if index == 0 else (guest, host)
        if index != 0:
            on_turn.expect(PROMPT)
        screen = ANSI.sub("", on_turn.before)
        assert "Seats: ana" in screen and "bia" in screen
        on_turn.sendline("resign")
        on_turn.expect("Type yes to confirm")
        on_turn.sendline("yes")
        on_turn.expect(r"Match over: \S+ wins \(by resignation\)")
        other.expect(r"Match over: You win \(by resignation\)")
        assert host.wait() == 0 and guest.wait() == 0
    finally:
        for child in (host, guest):
            if child is not None:
                child.kill()


def _words(text: str) -> str:
    """A pattern of ``text`` in which every space matches any whitespace."""
    return r"\s+".join(re.escape(w) for w in text.split())


def test_the_robots_play_on_after_the_person_quits(served: str) -> None:
    """The robots ``tranca play --new`` seats are the server's: after ``quit`` (the
    seat stays the person's) the server's robots play their seats, a robot takes the
    person's seat after the table's grace period, and the match ends with no client
    running. Through the API: the log says who played."""
    child = _play(
        served,
        "--new", "--players", "2", "--single-deal", "--seed", "5", "--robot-grace", "1",
        "--name", "ana",
    )  # fmt: skip
    try:
        child.expect(r"New game (?:\x1b\[[0-9;]*m)*([0-9a-f]{32})")
        game_id = child.match.group(1)
        child.expect(r"--token\s+(\S+)")
        token = child.match.group(1)
        child.expect(PROMPT)
        child.sendline("quit")
        # (rich wraps long lines at the terminal's width: any space may be a line break)
        child.expect(_words("the seat is still yours: while you are away, a robot takes it over"))
        child.expect(_words(f"tranca play --address {served} --game {game_id} --token {token}"))
        assert child.wait() == 0
    finally:
        child.kill()
    with TrancaClient(served, api_key=KEY) as app:
        deadline = time.monotonic() + 60
        while (view := app.get_view(game_id)).status != pb.GAME_STATUS_FINISHED:
            assert time.monotonic() < deadline, "the game did not go on"
            time.sleep(0.2)
        moves = list(app.get_replay(game_id).moves)
    assert view.match_result.reason == "single_deal"
    assert [(s.player_name, s.robot) for s in view.seats] == [("ana", True), ("robot 1", True)]
    who = [(m.seat, m.move.WhichOneof("kind") or m.move.text, m.actor) for m in moves]
    assert (1, "join", "robot") in who and (0, "robot", "robot") in who
    assert {actor for seat, what, actor in who if seat == 1 and what != "join"} == {"robot"}
    after = who.index((0, "robot", "robot"))  # the takeover: every later move of ana's seat
    assert {actor for seat, _, actor in who[after:] if seat == 0} == {"robot"}


def test_bots_expert_makes_a_table_whose_robots_are_the_expert(served: str) -> None:
    """``tranca play --new --bots expert``: the new table asks for the expert
    (``TableOptions.robot_level``), the terminal says so, and the robot's seat plays
    (the server's sweeper, at the table's level: tests/server_platform/
    test_table_robot_level.py checks that those are the expert's moves)."""
    child = _play(
        served,
        "--new", "--players", "2", "--single-deal", "--seed", "4", "--bots", "expert",
        "--name", "ana",
    )  # fmt: skip
    try:
        child.expect(r"New game (?:\x1b\[[0-9;]*m)*([0-9a-f]{32})")
        game_id = child.match.group(1)
        child.expect(_words("The server's robots (the expert) play seat 1."))
        child.expect(PROMPT)
        child.sendline("quit")
        assert child.wait() == 0
    finally:
        child.kill()
    with TrancaClient(served, api_key=KEY) as app:
        view = app.get_view(game_id)
        assert view.table.robot_level == pb.ROBOT_LEVEL_EXPERT
        deadline = time.monotonic() + 60
        while not any(
            m.actor == "robot" and m.move.WhichOneof("kind")
            for m in app.get_replay(game_id).moves
            if m.seat == 1
        ):
            assert time.monotonic() < deadline, "the expert robot did not play a move"
            time.sleep(0.2)
