"""``tranca admin``: the app owner's view from a terminal, through a running server
(AdminService, GameService.ListGames, SessionService.ListPlayerSessions and
RevokePlayer), with the app's API key. Each command prints one line per row (or the
answers as JSON with ``--json``); a refusal is one line on stderr with its reason,
exit status 1, as every ``tranca`` command.

    tranca admin games [--status playing] [--open]
    tranca admin game GAME_ID
    tranca admin end GAME_ID
    tranca admin remove-seat GAME_ID SEAT
    tranca admin sessions [--player ID] [--live]
    tranca admin revoke-player PLAYER_ID
    tranca admin erase-player PLAYER_ID --yes
    tranca admin merge-players MERGED_ID KEPT_ID --yes
    tranca admin audit [--after ID]
    tranca admin chat-reports [--status open|resolved]
    tranca admin resolve-report REPORT_ID dismiss|warn|mute|ban [--seconds N] [--note TEXT]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import grpc
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2

from ..command_line import REFUSED, Parser, Refusal
from ..v1 import (
    admin_pb2,
    admin_pb2_grpc,
    chat_pb2,
    chat_pb2_grpc,
    game_pb2,
    game_pb2_grpc,
    session_pb2,
    session_pb2_grpc,
)

REPORT_STATUSES: dict[str, chat_pb2.ReportStatus.ValueType] = {
    "open": chat_pb2.REPORT_STATUS_OPEN,
    "resolved": chat_pb2.REPORT_STATUS_RESOLVED,
}
RESOLUTIONS: dict[str, chat_pb2.Resolution.ValueType] = {
    "dismiss": chat_pb2.RESOLUTION_DISMISS,
    "warn": chat_pb2.RESOLUTION_WARN,
    "mute": chat_pb2.RESOLUTION_MUTE,
    "ban": chat_pb2.RESOLUTION_BAN,
}
STATUSES: dict[str, game_pb2.GameStatus.ValueType] = {
    "waiting": game_pb2.GAME_STATUS_WAITING,
    "playing": game_pb2.GAME_STATUS_PLAYING,
    "finished": game_pb2.GAME_STATUS_FINISHED,
}


def _when(ms: int) -> str:
    if not ms:
        return "-"
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S")


def _reason(e: grpc.Call) -> str:
    """The ErrorInfo reason of a refusal, or its status code's name."""
    trailers: Any = e.trailing_metadata() or ()
    for key, value in trailers:
        if key == "grpc-status-details-bin":
            status = status_pb2.Status.FromString(value)
            info = error_details_pb2.ErrorInfo()
            if status.details and status.details[0].Unpack(info):
                return str(info.reason)
    return str(e.code().name)


class Admin:
    def __init__(self, address: str, api_key: str) -> None:
        self.channel = grpc.insecure_channel(address)
        self.md = (("x-api-key", api_key),)
        self.admin = admin_pb2_grpc.AdminServiceStub(self.channel)
        self.games = game_pb2_grpc.GameServiceStub(self.channel)
        self.sessions = session_pb2_grpc.SessionServiceStub(self.channel)
        self.chat = chat_pb2_grpc.ChatServiceStub(self.channel)

    def call(self, method: Callable[..., Message], request: Message) -> Any:
        try:
            return method(request, metadata=self.md, timeout=10)
        except grpc.RpcError as e:
            assert isinstance(e, grpc.Call)  # a call's error is its call
            raise Refusal(f"refused: {_reason(e)}: {e.details()}") from None


def _games(a: Admin, args: argparse.Namespace) -> list[str]:
    request = game_pb2.ListGamesRequest(
        status=STATUSES.get(args.status, game_pb2.GAME_STATUS_UNSPECIFIED),
        open_only=args.open,
        page_size=args.limit,
    )
    answer = a.call(a.games.ListGames, request)
    if args.json:
        return [json.dumps(MessageToDict(answer))]
    lines = []
    for g in answer.games:
        status = game_pb2.GameStatus.Name(g.status).removeprefix("GAME_STATUS_").lower()
        names = ", ".join(n or "-" for n in g.player_names)
        lines.append(
            f"{g.game_id}  {status:8}  {g.preset}  {g.seats_taken}/{g.players}  "
            f"v{g.version}  [{names}]  {g.label}"
        )
    return lines or ["no games"]


def _game(a: Admin, args: argparse.Namespace) -> list[str]:
    seen = a.call(a.admin.InspectGame, admin_pb2.InspectGameRequest(game_id=args.game_id))
    if args.json:
        return [json.dumps(MessageToDict(seen))]
    g = seen.game
    status = game_pb2.GameStatus.Name(g.status).removeprefix("GAME_STATUS_").lower()
    lines = [
        f"game {g.game_id}: {status} {seen.result_reason}".rstrip(),
        f"  {g.preset}, {g.players} players, version {g.version},"
        f" timer {_when(seen.deadline_at_ms)}",
    ]
    for s in seen.seats:
        who = f"{s.player_name or '-'} ({s.player_id or 'no id'})" if s.taken else "free"
        flags = " ".join(f for f, on in (("robot", s.robot), ("resigned", s.resigned)) if on)
        lines.append(
            f"  seat {s.seat}: {who} last seen {_when(s.last_seen_at_ms)} {flags}".rstrip()
        )
    if seen.HasField("last_change"):
        c = seen.last_change
        lines.append(
            f"  last change: v{c.version} {c.kind} seat {c.seat} by {c.actor} at {_when(c.at_ms)}"
        )
    return lines


def _end(a: Admin, args: argparse.Namespace) -> list[str]:
    done = a.call(
        a.admin.EndGame, admin_pb2.EndGameRequest(game_id=args.game_id, request_id=args.request_id)
    )
    return [f"ended at version {done.version}: it counts for no one, stakes go back"]


def _remove(a: Admin, args: argparse.Namespace) -> list[str]:
    done = a.call(
        a.admin.RemoveSeat,
        admin_pb2.RemoveSeatRequest(
            game_id=args.game_id, seat=args.seat, request_id=args.request_id
        ),
    )
    return [f"seat {args.seat}: {done.outcome} (version {done.version})"]


def _sessions(a: Admin, args: argparse.Namespace) -> list[str]:
    answer = a.call(
        a.sessions.ListPlayerSessions,
        session_pb2.ListPlayerSessionsRequest(
            player_id=args.player, live_only=args.live, page_size=args.limit
        ),
    )
    if args.json:
        return [json.dumps(MessageToDict(answer))]
    lines = []
    for s in answer.sessions:
        kind = session_pb2.SessionKind.Name(s.kind).removeprefix("SESSION_KIND_").lower()
        state = "ended" if s.revoked else f"until {_when(s.refresh_expires_at_ms)}"
        lines.append(
            f"{s.session_id}  {s.player_id}  {kind}  used {_when(s.last_used_at_ms)}  {state}"
        )
    return lines or ["no sessions"]


def _revoke(a: Admin, args: argparse.Namespace) -> list[str]:
    done = a.call(
        a.sessions.RevokePlayer, session_pb2.RevokePlayerRequest(player_id=args.player_id)
    )
    return [f"ended {done.sessions_revoked} sessions and {done.seat_tokens_revoked} seat tokens"]


def _rows(rows: Any) -> str:
    return ", ".join(f"{table} {n}" for table, n in sorted(rows.items())) or "nothing held"


def _for_good(args: argparse.Namespace, what: str) -> None:
    """An action that cannot be undone is taken only when asked for with --yes."""
    if not args.yes:
        raise Refusal(f"{what} cannot be undone: add --yes to do it")


def _erase(a: Admin, args: argparse.Namespace) -> list[str]:
    _for_good(args, f"erasing {args.player_id}")
    done = a.call(a.sessions.ErasePlayer, session_pb2.ErasePlayerRequest(player_id=args.player_id))
    if args.json:
        return [json.dumps(MessageToDict(done))]
    return [f"erased: now {done.pseudonym}; rows changed: {_rows(done.rows)}"]


def _merge(a: Admin, args: argparse.Namespace) -> list[str]:
    _for_good(args, f"merging {args.merged_id} into {args.kept_id}")
    done = a.call(
        a.admin.MergePlayers,
        admin_pb2.MergePlayersRequest(merged_player_id=args.merged_id, kept_player_id=args.kept_id),
    )
    if args.json:
        return [json.dumps(MessageToDict(done))]
    return [f"{args.merged_id} merged into {args.kept_id}; rows changed: {_rows(done.rows)}"]


def _audit(a: Admin, args: argparse.Namespace) -> list[str]:
    answer = a.call(
        a.admin.ListAuditEntries,
        admin_pb2.ListAuditEntriesRequest(after_id=args.after, limit=args.limit),
    )
    if args.json:
        return [json.dumps(MessageToDict(answer))]
    return [
        f"{e.id}  {_when(e.at_ms)}  {e.action}  by {e.actor}  {e.subject}  {e.detail_json}"
        for e in answer.entries
    ] or ["no entries"]


def _report_line(r: chat_pb2.ChatReport) -> str:
    said = next((m for m in r.evidence if m.id == r.message_id), None)
    words = (said.text or said.phrase) if said is not None else "?"
    outcome = chat_pb2.Resolution.Name(r.resolution).removeprefix("RESOLUTION_").lower()
    status = "open" if r.status == chat_pb2.REPORT_STATUS_OPEN else f"resolved: {outcome}"
    return (
        f"{r.id}  {_when(r.created_at_ms)}  {r.reported_id} said {words!r}"
        f"  (reported by {r.reporter_id}: {r.reason or '-'})  {status}"
    )


def _chat_reports(a: Admin, args: argparse.Namespace) -> list[str]:
    answer = a.call(
        a.chat.ListChatReports,
        chat_pb2.ListChatReportsRequest(
            status=REPORT_STATUSES.get(args.status, chat_pb2.REPORT_STATUS_UNSPECIFIED),
            page_size=args.limit,
        ),
    )
    if args.json:
        return [json.dumps(MessageToDict(answer))]
    return [_report_line(r) for r in answer.reports] or ["no reports"]


def _resolve_report(a: Admin, args: argparse.Namespace) -> list[str]:
    done = a.call(
        a.chat.ResolveChatReport,
        chat_pb2.ResolveChatReportRequest(
            report_id=args.report_id,
            resolution=RESOLUTIONS[args.resolution],
            seconds=args.seconds,
            note=args.note,
        ),
    )
    if args.json:
        return [json.dumps(MessageToDict(done))]
    return [_report_line(done.report)]


def parser() -> Parser:
    p = Parser(prog="tranca admin", description=__doc__.split("\n\n")[0])
    p.add_argument("--address", default=os.environ.get("TRANCA_ADDRESS", "127.0.0.1:50051"))
    p.add_argument("--api-key", default=os.environ.get("TRANCA_API_KEY", ""))
    p.add_argument("--json", action="store_true", help="print the answers as JSON")
    sub = p.add_subparsers(dest="command", required=True)
    games = sub.add_parser("games", help="the app's games, newest first")
    games.add_argument("--status", choices=sorted(STATUSES))
    games.add_argument("--open", action="store_true", help="public tables with a free seat")
    games.add_argument("--limit", type=int, default=50)
    games.set_defaults(run=_games)
    game = sub.add_parser("game", help="one game: seats, last change, timer")
    game.add_argument("game_id")
    game.set_defaults(run=_game)
    end = sub.add_parser("end", help="end a game with no result (stakes go back)")
    end.add_argument("game_id")
    end.add_argument("--request-id", default=uuid.uuid4().hex)
    end.set_defaults(run=_end)
    remove = sub.add_parser("remove-seat", help="take a player off a seat")
    remove.add_argument("game_id")
    remove.add_argument("seat", type=int)
    remove.add_argument("--request-id", default=uuid.uuid4().hex)
    remove.set_defaults(run=_remove)
    sessions = sub.add_parser("sessions", help="the app's players' sessions")
    sessions.add_argument("--player", default="")
    sessions.add_argument("--live", action="store_true", help="only sessions still usable")
    sessions.add_argument("--limit", type=int, default=50)
    sessions.set_defaults(run=_sessions)
    revoke = sub.add_parser("revoke-player", help="end every session and seat of a player")
    revoke.add_argument("player_id")
    revoke.set_defaults(run=_revoke)
    erase = sub.add_parser(
        "erase-player", help="erase a player: deleted, or kept under a pseudonym (audited)"
    )
    erase.add_argument("player_id")
    erase.add_argument("--yes", action="store_true", help="erase: it cannot be undone")
    erase.set_defaults(run=_erase)
    merge = sub.add_parser(
        "merge-players", help="fold one player's account into another's (audited)"
    )
    merge.add_argument("merged_id")
    merge.add_argument("kept_id")
    merge.add_argument("--yes", action="store_true", help="merge: it cannot be undone")
    merge.set_defaults(run=_merge)
    audit = sub.add_parser("audit", help="the app's audit log: erasures and merges")
    audit.add_argument("--after", type=int, default=0, help="entries after this id")
    audit.add_argument("--limit", type=int, default=0)
    audit.set_defaults(run=_audit)
    reports = sub.add_parser("chat-reports", help="the queue of chat reports, newest first")
    reports.add_argument("--status", choices=sorted(REPORT_STATUSES))
    reports.add_argument("--limit", type=int, default=50)
    reports.set_defaults(run=_chat_reports)
    resolve = sub.add_parser(
        "resolve-report", help="dismiss, warn, mute (--seconds) or ban a reported author"
    )
    resolve.add_argument("report_id", type=int)
    resolve.add_argument("resolution", choices=sorted(RESOLUTIONS))
    resolve.add_argument(
        "--seconds", type=int, default=0, help="a mute's length; a ban's (0: none)"
    )
    resolve.add_argument("--note", default="", help="told to the author with a warning or sanction")
    resolve.set_defaults(run=_resolve_report)
    return p


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    if not args.api_key:
        raise Refusal("an API key is needed: --api-key or TRANCA_API_KEY")
    a = Admin(args.address, args.api_key)
    try:
        for line in args.run(a, args):
            print(line)
    finally:
        a.channel.close()
    sys.stdout.flush()
    return 0


__all__ = ["REFUSED", "main"]
