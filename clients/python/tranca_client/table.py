"""The terminal table (``tranca play``): a person plays a seat, with the ``rich``
library, against the server's robots and against other people at other terminals.

The rendering functions (``render_table``, ``render_scores``, ``render_moves``...)
turn a ``GameView`` into ``rich`` renderables and do no I/O; ``Table`` is the
interactive seat: it prints what the other seats play, the table and the numbered
legal moves on the person's turn, reads a number or a move in the notation, and
explains a refused move with the server's reason code and message.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import Sequence

from rich.columns import Columns
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table as RichTable
from rich.text import Text

from .bots import side_of
from .client import AsyncTrancaClient
from .errors import InvalidRequest, RuleRejected, TrancaError
from .moves import (
    SUITS,
    MoveSyntaxError,
    card_rank,
    card_suit,
    is_wild,
    move_text,
    parse_move,
)
from .v1 import game_pb2 as pb

__all__ = [
    "Table",
    "render_hand",
    "render_match_end",
    "render_melds",
    "render_moves",
    "render_scores",
    "render_status",
    "render_table",
]

SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
PHASES = {
    pb.PHASE_UNSPECIFIED: "-",
    pb.PHASE_DRAW: "draw",
    pb.PHASE_PLAY: "play",
    pb.PHASE_OVER: "over",
}
STATUSES = {
    pb.GAME_STATUS_UNSPECIFIED: "?",
    pb.GAME_STATUS_WAITING: "waiting for players",
    pb.GAME_STATUS_PLAYING: "playing",
    pb.GAME_STATUS_FINISHED: "finished",
}
MELD_KINDS = {
    pb.MELD_KIND_UNSPECIFIED: "?",
    pb.MELD_KIND_SET: "set",
    pb.MELD_KIND_RUN: "run",
    pb.MELD_KIND_BLACK_THREES: "black 3s",
}
CANASTRAS = {
    pb.CANASTRA_KIND_CLEAN: "CLEAN CANASTRA",
    pb.CANASTRA_KIND_DIRTY: "DIRTY CANASTRA",
    pb.CANASTRA_KIND_REAL: "REAL CANASTRA",
    pb.CANASTRA_KIND_ALL_WILDS: "ALL-WILDS CANASTRA",
    pb.CANASTRA_KIND_ACE_TO_ACE: "ACE-TO-ACE CANASTRA",
}
CANASTRA_SHORT = {
    pb.CANASTRA_KIND_CLEAN: "clean",
    pb.CANASTRA_KIND_DIRTY: "dirty",
    pb.CANASTRA_KIND_REAL: "real",
    pb.CANASTRA_KIND_ALL_WILDS: "all wilds",
    pb.CANASTRA_KIND_ACE_TO_ACE: "ace to ace",
}
_RANK_ORDER = "3456789TJQKA2"  # how a hand is sorted within a suit (aces high)

HELP = """\
Type the number of a move, or a move in the notation:
  draw | take @3 | take 5H 6H | meld 4H 5H 6H | add @2 7H | replace @2 6H | discard 9C
Other commands: t (show the table again), help, quit (leave this terminal; the seat
stays yours, and at a table with robots a robot plays it while you are away),
resign (your side gives up the match)."""


# ----- rendering -------------------------------------------------------------------------


def card_style(card: str) -> str:
    if is_wild(card):
        return "bold magenta"
    return "bold red" if card_suit(card) in "DH" else "bold"


def card_text(card: str) -> Text:
    return Text(card, style=card_style(card))


def cards_text(cards: Sequence[str]) -> Text:
    return Text(" ").join(card_text(c) for c in cards) if cards else Text("-", style="dim")


def render_hand(hand: Sequence[str]) -> Text:
    """The hand grouped by suit, sorted by rank (aces high), wilds (2s, jokers) apart."""
    out = Text()
    wilds = sorted((c for c in hand if is_wild(c)), key=lambda c: (c == "JK", c))
    for suit in SUITS:
        cards = sorted(
            (c for c in hand if not is_wild(c) and card_suit(c) == suit),
            key=lambda c: _RANK_ORDER.index(card_rank(c)),
        )
        if cards:
            out.append(f"{SUIT_NAMES[suit]}: ", style="dim")
            out.append_text(cards_text(cards))
            out.append("   ")
    if wilds:
        out.append("wild: ", style="dim")
        out.append_text(cards_text(wilds))
    if not hand:
        out.append("(empty)", style="dim")
    return out


def _side_name(view: pb.GameView, side: int) -> str:
    if view.seat >= 0 and side == side_of(view, view.seat):
        return "us"
    if view.seat >= 0 and view.players == 4:
        return "them"
    names = [s.player_name or f"seat {s.seat}" for s in view.seats if side_of(view, s.seat) == side]
    return "/".join(names) or f"side {side}"


def _sides(view: pb.GameView) -> list[int]:
    n = 2 if view.players == 4 else view.players
    sides = list(range(n))
    if view.seat >= 0:
        mine = side_of(view, view.seat)
        sides.sort(key=lambda s: s != mine)
    return sides


def render_melds(view: pb.GameView) -> RenderableType:
    """The melds of every side, ours first, with their canastra marks."""
    table = RichTable(box=None, show_header=True, header_style="dim", pad_edge=False)
    table.add_column("side")
    table.add_column("meld")
    table.add_column("kind")
    table.add_column("cards")
    table.add_column("")
    for side in _sides(view):
        melds = [m for m in view.melds if m.side == side]
        reds = [r for r in view.red_threes if r.side == side and r.cards]
        if not melds and not reds:
            table.add_row(_side_name(view, side), "", "", Text("no melds", style="dim"), "")
        for m in melds:
            mark = Text()
            if m.canastra:
                mark.append(f"*** {CANASTRAS.get(m.canastra, 'CANASTRA')} ***", style="bold green")
            table.add_row(
                _side_name(view, side),
                f"@{m.id}",
                MELD_KINDS.get(m.kind, "?"),
                cards_text(list(m.cards)),
                mark,
            )
        for r in reds:
            table.add_row(_side_name(view, side), "", "red 3s", cards_text(list(r.cards)), "")
    return table


def _seat_label(view: pb.GameView, seat: int) -> str:
    s = view.seats[seat] if 0 <= seat < len(view.seats) else None
    name = (s.player_name if s is not None else "") or f"seat {seat}"
    if seat != view.seat or name.lower() == "you":
        return name
    return f"{name} (you)"


def render_status(view: pb.GameView) -> RenderableType:
    """Deal, turn and phase, the pile, stock and mortos, the seats and the totals."""
    lines: list[Text] = []
    head = Text()
    head.append(f"Game {view.game_id}", style="bold")
    head.append(f"  v{view.version}  {view.rules.preset}  ", style="dim")
    head.append(STATUSES.get(view.status, "?"))
    if view.status == pb.GAME_STATUS_PLAYING:
        head.append(f"  deal {view.deal_number}, dealer {_seat_label(view, view.dealer)}")
    lines.append(head)
    if view.status == pb.GAME_STATUS_PLAYING:
        turn = Text("Turn: ")
        turn.append(
            _seat_label(view, view.turn),
            style="bold reverse" if view.turn == view.seat else "bold",
        )
        turn.append(f"   phase: {PHASES.get(view.phase, '?')}")
        lines.append(turn)
        pile = Text("Discard pile: ")
        pile.append_text(card_text(view.pile_top) if view.pile_top else Text("empty", style="dim"))
        pile.append(f" ({view.pile_size} cards)")
        if view.pile_frozen:
            pile.append("  FROZEN", style="bold cyan")
        if view.pile_locked:
            pile.append("  LOCKED by a black 3", style="bold cyan")
        pile.append(f"    Stock: {view.stock_size}")
        lines.append(pile)
        if view.pile:
            lines.append(Text("Whole pile: ").append_text(cards_text(list(view.pile))))
        mortos = Text("Morto: ")
        for m in sorted(view.mortos, key=lambda m: _sides(view).index(m.side)):
            state = "taken" if m.taken else f"{m.size} cards"
            mortos.append(f"{_side_name(view, m.side)} {state}   ")
        lines.append(mortos)
    seats = Text("Seats: ")
    for s in view.seats:
        label = _seat_label(view, s.seat) if s.taken else f"seat {s.seat} free"
        seats.append(label, style="dim" if not s.taken else "")
        if s.head:
            seats.append(" ★", style="bold yellow")  # 003: the head's star
        if s.consent_pending:
            seats.append(" (to agree to the stake)", style="yellow")
        if view.status == pb.GAME_STATUS_PLAYING:
            seats.append(f" [{s.hand_size} cards]")
        if s.resigned:
            seats.append(" resigned", style="red")
        seats.append("   ")
    lines.append(seats)
    if view.match_totals:
        totals = Text("Match totals: ")
        for side in _sides(view):
            if side < len(view.match_totals):
                totals.append(f"{_side_name(view, side)} {view.match_totals[side]}   ")
        lines.append(totals)
    return Group(*lines)


def render_table(view: pb.GameView) -> RenderableType:
    """The whole table as the reader of ``view`` sees it."""
    parts: list[RenderableType] = [render_status(view), Text()]
    parts.append(Text("Melds", style="bold underline"))
    parts.append(render_melds(view))
    if view.seat >= 0 and view.status == pb.GAME_STATUS_PLAYING:
        parts.append(Text())
        parts.append(Text(f"Your hand ({len(view.hand)})", style="bold underline"))
        parts.append(render_hand(list(view.hand)))
    return Panel(Group(*parts), title="Tranca", title_align="left")


def render_moves(moves: Sequence[pb.Move]) -> RenderableType:
    """The legal moves, numbered from 1."""
    items = [Text(f"{i:>3}) {move_text(m)}") for i, m in enumerate(moves, start=1)]
    return Columns(items, padding=(0, 3), equal=True)


def render_scores(view: pb.GameView, result: pb.DealResult) -> RenderableType:
    """A deal's score breakdown by side, and the match totals."""
    how = {"batida": "someone went out", "stock_out": "the stock ran out"}.get(
        result.end_reason, result.end_reason.replace("_", " ")
    )
    title = f"Deal {result.deal_number} over: {how}"
    if result.went_out_seat >= 0:
        title += f" ({_seat_label(view, result.went_out_seat)} went out)"
    table = RichTable(show_lines=False)
    table.add_column("score")
    scores = sorted(result.scores, key=lambda s: _sides(view).index(s.side))
    for s in scores:
        table.add_column(_side_name(view, s.side), justify="right")
    table.add_row("table cards", *(str(s.table_cards) for s in scores))
    kinds = sorted({c.kind for s in scores for c in s.canastras})
    for kind in kinds:
        cells = []
        for s in scores:
            c = next((c for c in s.canastras if c.kind == kind), None)
            cells.append(f"{c.count} = {c.points}" if c is not None and c.count else "0")
        table.add_row(f"canastras, {CANASTRA_SHORT.get(kind, '?')}", *cells)
    table.add_row("batida", *(str(s.batida) for s in scores))
    table.add_row("red threes", *(str(s.red_threes) for s in scores))
    table.add_row("morto", *(str(s.morto_penalty) for s in scores))
    table.add_row("cards in hand", *(str(s.hand_cards) for s in scores))
    if any(s.untaken_morto_cards for s in scores):
        table.add_row("untaken morto", *(str(s.untaken_morto_cards) for s in scores))
    table.add_row(Text("deal total", style="bold"), *(Text(str(s.total), "bold") for s in scores))
    if view.match_totals:
        table.add_row(
            Text("match total", style="bold"),
            *(
                Text(str(view.match_totals[s.side]), "bold")
                if s.side < len(view.match_totals)
                else Text("")
                for s in scores
            ),
        )
    return Group(Text(title, style="bold"), table)


def render_match_end(view: pb.GameView) -> RenderableType:
    r = view.match_result
    how = {
        "target_reached": "the target score was reached",
        "single_deal": "a single-deal match",
        "tie_break": "decided by the tie-break",
        "resignation": "by resignation",
    }.get(r.reason, r.reason)
    if r.winner_side < 0:
        text = Text(f"Match over: a draw ({how}).", style="bold")
    else:
        winner = _side_name(view, r.winner_side)
        verdict = "You win" if winner == "us" else f"{winner} wins"
        text = Text(f"Match over: {verdict} ({how}).", style="bold")
    return Panel(text)


# ----- the interactive seat --------------------------------------------------------------


class LineReader:
    """Lines of standard input, read by a daemon thread so the event loop keeps
    running (updates arrive, the watch stream says the person is there) while the
    person types."""

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        threading.Thread(target=self._read, name="tranca-stdin", daemon=True).start()

    def _put(self, line: str | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody is listening
            self._loop.call_soon_threadsafe(self._queue.put_nowait, line)

    def _read(self) -> None:
        while True:
            line = sys.stdin.readline()
            if not line:
                self._put(None)
                return
            self._put(line.rstrip("\r\n"))

    async def readline(self) -> str | None:
        """The next line, or ``None`` at the end of input."""
        return await self._queue.get()


class Table:
    """A person's seat at the table: prints the game, reads moves, explains refusals."""

    def __init__(
        self,
        console: Console,
        client: AsyncTrancaClient,
        game_id: str,
        reader: LineReader,
    ) -> None:
        self.console = console
        self.client = client
        self.game_id = game_id
        self.reader = reader
        self.shown_deal = 0  # the last deal whose score breakdown was printed
        self.shown_end = False
        # The version and hand of the last table printed.
        self.shown_version: tuple[int, tuple[str, ...]] = (-1, ())
        self.resigned = False
        self.view: pb.GameView | None = None

    # Callbacks of play_seat.

    async def on_update(self, update: pb.WatchGameResponse) -> None:
        view = update.view
        if self.view is None:
            self.shown_deal = view.last_deal.deal_number  # deals over before we came
        if update.HasField("move"):
            self._log_move(view, update.move)
        self.note(view)

    async def on_rejected(self, err: RuleRejected | InvalidRequest) -> None:
        if err.reason == "ROBOT_SEATED":
            # Silent too long (the terminal asleep, the connection lost): a robot took
            # the seat meanwhile. The person is back: the seat is theirs again.
            try:
                await self.client.reclaim_seat(self.game_id)
            except RuleRejected as exc:
                if exc.reason != "SEAT_NOT_HELD":  # another device of theirs took it back
                    raise
            self.console.print("A robot played your seat while you were away; it is yours again.")
            return
        self.console.print(
            Text.assemble(
                ("Refused: ", "bold red"),
                (err.reason or err.code.name, "bold"),
                f" - {err.message}",
            )
        )

    async def choose(self, view: pb.GameView, moves: list[pb.Move]) -> pb.Move | None:
        self.note(view)
        # A new version, or the hand as the turn planned so far leaves it (play_seat
        # sends the rest of a turn after its draw in one call): not after a refusal.
        shown = (view.version, tuple(view.hand))
        if shown != self.shown_version:
            self.shown_version = shown
            self.console.print(render_table(view))
            self.console.print(Text("Your moves:", style="bold underline"))
            self.console.print(render_moves(moves))
        while True:
            self.console.print(
                Text(f"Your move (1-{len(moves)}, a move, or help): ", style="bold"), end=""
            )
            line = await self.reader.readline()
            if line is None:
                return None
            line = line.strip()
            if not line:
                continue
            word = line.lower()
            if word.isdigit():
                n = int(word)
                if 1 <= n <= len(moves):
                    return moves[n - 1]
                self.console.print(f"There is no move {n}: pick 1 to {len(moves)}.")
                continue
            if word in ("help", "?", "h"):
                self.console.print(HELP)
                continue
            if word in ("t", "table"):
                self.console.print(render_table(view))
                self.console.print(render_moves(moves))
                continue
            if word in ("quit", "exit", "q"):
                return None
            if word == "resign":
                self.console.print("Resign the match for your side? Type yes to confirm: ", end="")
                if ((await self.reader.readline()) or "").strip().lower() in ("y", "yes"):
                    await self.resign()
                    return None
                continue
            try:
                return parse_move(line)
            except MoveSyntaxError as exc:
                self.console.print(Text.assemble(("Not a move: ", "bold red"), str(exc)))

    async def resign(self) -> None:
        try:
            await self.client.leave_game(self.game_id)
            self.resigned = True
            self.console.print("You resigned: your side gives up the match.")
        except TrancaError as exc:
            self.console.print(f"Could not resign: {exc}")

    # Output.

    def _log_move(self, view: pb.GameView, logged: pb.LoggedMove) -> None:
        who = _seat_label(view, logged.seat) if logged.seat >= 0 else "the table"
        text = move_text(logged.move)
        if logged.seat == view.seat and text not in ("join", "start", "leave", "resign"):
            return  # our own moves: their results are shown on our turn
        if text == "join":
            self.console.print(Text(f"  {who} sat down at seat {logged.seat}", style="dim"))
        elif text == "start":
            self.console.print(Text("  The game starts.", style="bold"))
        elif text in ("leave", "resign"):
            self.console.print(Text(f"  {who}: {text}", style="yellow"))
        else:
            self.console.print(Text(f"  {who}: ", style="dim").append(text, style="cyan"))

    def note(self, view: pb.GameView) -> None:
        """Print what a new view brings: a deal's scores, the end of the match."""
        self.view = view
        if view.last_deal.deal_number > self.shown_deal:
            self.shown_deal = view.last_deal.deal_number
            self.console.print(render_scores(view, view.last_deal))
        if view.status == pb.GAME_STATUS_FINISHED and not self.shown_end:
            self.shown_end = True
            self.console.print(render_match_end(view))
