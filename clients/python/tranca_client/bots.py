"""Bots that play through the public API, and the loop that plays a seat.

A bot sees what any client sees: its seat's ``GameView`` and the list of legal moves
from ``ListLegalMoves``. It picks one of those moves, so it never plays an illegal one.
This module needs nothing from the server's code (the expert level, in
``expert.py``, imports the rules engine's distribution when one is made), so it is a
template for a bot of your own: write a class with ``name`` and
``choose(view, moves)`` and hand it to ``run_bot``::

    async with AsyncTrancaClient(ADDRESS, token=TOKEN) as me:
        final = await run_bot(me, GAME_ID, GreedyBot(seed=1))

``play_seat`` is the loop under it, for any chooser (a bot, a person at a terminal):
it watches the game, and on the seat's turn asks for the legal moves, lets the
chooser pick, and submits, until the match is over.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

from .client import AsyncTrancaClient
from .errors import InvalidRequest, RuleRejected, VersionConflict
from .expert import ExpertBot
from .moves import RANKS, card_rank, card_suit, is_black_three, is_wild, move_kind
from .v1 import game_pb2 as pb

__all__ = [
    "BOT_LEVELS",
    "Bot",
    "Chooser",
    "ExpertBot",
    "GreedyBot",
    "RandomBot",
    "make_bot",
    "plan_turn",
    "play_seat",
    "run_bot",
    "side_of",
]


class Bot(Protocol):
    """What a bot is: a name and a choice among the legal moves."""

    name: str

    def choose(self, view: pb.GameView, moves: Sequence[pb.Move]) -> pb.Move:
        """One of ``moves`` (never empty), for the seat ``view.seat`` at
        ``view.version``."""
        ...


def side_of(view: pb.GameView, seat: int) -> int:
    """The side of a seat: partnerships 0/2 and 1/3 with four players, else the seat."""
    return seat % 2 if view.players == 4 else seat


class RandomBot:
    """Plays a uniformly random legal move."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: pb.GameView, moves: Sequence[pb.Move]) -> pb.Move:
        return moves[self.rng.randrange(len(moves))]


def _card_of(move: pb.Move) -> str:
    which = move.WhichOneof("kind")
    if which == "add_to_meld":
        return move.add_to_meld.card
    if which == "replace_wild":
        return move.replace_wild.card
    if which == "discard":
        return move.discard.card
    return ""


def _meld_of(move: pb.Move) -> int:
    which = move.WhichOneof("kind")
    if which == "add_to_meld":
        return move.add_to_meld.meld_id
    if which == "replace_wild":
        return move.replace_wild.meld_id
    return -1


class GreedyBot:
    """A simple greedy player working from its view alone:

    - draw phase: takes the discard pile when it holds 3 cards or more and a take is
      legal (onto a meld rather than into a new one), otherwise draws;
    - play phase: goes out when one card is left; adds natural cards to its melds
      (longest meld first: canastras score); lays natural melds; adds a wild only when
      it completes a canastra, and melds with a wild only with 4 cards or fewer left;
    - then discards the card it needs least: a black three first, never a wild if it
      can help it, and otherwise the card with the fewest cards of its rank and of its
      suit nearby in the hand.
    """

    name = "greedy"

    def __init__(self, seed: int | None = None, canastra_size: int = 7) -> None:
        self.rng = random.Random(seed)
        self.canastra_size = canastra_size

    def choose(self, view: pb.GameView, moves: Sequence[pb.Move]) -> pb.Move:
        by_kind: dict[str, list[pb.Move]] = {}
        for m in moves:
            by_kind.setdefault(move_kind(m), []).append(m)
        if "draw" in by_kind or "take" in by_kind:
            takes = by_kind.get("take", [])
            if takes and (view.pile_size >= 3 or "draw" not in by_kind):
                onto = [m for m in takes if m.take_pile.HasField("meld_id")]
                return (onto or takes)[0]
            return by_kind["draw"][0] if "draw" in by_kind else moves[0]
        hand = list(view.hand)
        discards = by_kind.get("discard", [])
        if len(hand) == 1 and discards:
            return discards[0]
        melds = {m.id: m for m in view.melds}
        grow = by_kind.get("replace", []) + by_kind.get("add", [])
        natural = [m for m in grow if not is_wild(_card_of(m))]
        if natural:
            return max(natural, key=lambda m: (self._size(melds, m), -_meld_of(m)))
        new_melds = by_kind.get("meld", [])
        clean = [m for m in new_melds if not any(is_wild(c) for c in m.create_meld.cards)]
        if clean:
            return clean[0]
        for m in grow:
            meld = melds.get(_meld_of(m))
            if (
                meld is not None
                and meld.kind != pb.MELD_KIND_BLACK_THREES
                and meld.canastra == pb.CANASTRA_KIND_UNSPECIFIED
                and len(meld.cards) + 1 >= self.canastra_size
            ):
                return m
        if new_melds and len(hand) <= 4:
            return new_melds[0]
        if discards:
            return min(discards, key=lambda m: self._keep_value(view, hand, _card_of(m)))
        return moves[0]

    @staticmethod
    def _size(melds: dict[int, pb.Meld], move: pb.Move) -> int:
        meld = melds.get(_meld_of(move))
        return 0 if meld is None else len(meld.cards)

    def _keep_value(self, view: pb.GameView, hand: list[str], card: str) -> tuple[int, float]:
        if is_black_three(card):
            return (0, self.rng.random())
        if is_wild(card):
            return (100, self.rng.random())
        rank, suit = card_rank(card), card_suit(card)
        counts = Counter(hand)
        same_rank = sum(n for c, n in counts.items() if card_rank(c) == rank) - 1
        pos = RANKS.index(rank)
        neighbours = sum(
            1
            for c in counts
            if c != card
            and not is_wild(c)
            and card_suit(c) == suit
            and abs(RANKS.index(card_rank(c)) - pos) <= 2
        )
        mine = side_of(view, view.seat)
        on_table = any(
            m.side == mine
            and m.kind == pb.MELD_KIND_SET
            and any(card_rank(c) == rank for c in m.cards if not is_wild(c))
            for m in view.melds
        )
        return (3 * same_rank + 2 * neighbours + 5 * on_table, self.rng.random())


BOT_LEVELS: dict[str, Callable[[int | None], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "expert": ExpertBot,
}
"""The built-in bots by level name. The expert needs the rules engine installed (the
extra ``expert``, ``tranca_client.expert``); making one without it raises
``ExpertUnavailable``."""


def make_bot(level: str, seed: int | None = None) -> Bot:
    """A built-in bot: ``"random"``, ``"greedy"`` or ``"expert"`` (with its default
    budget; ``ExpertBot`` takes another)."""
    try:
        return BOT_LEVELS[level](seed)
    except KeyError:
        raise ValueError(f"unknown bot level {level!r}; known: {', '.join(BOT_LEVELS)}") from None


Chooser = Callable[[pb.GameView, list[pb.Move]], Awaitable[pb.Move | None]]
"""Picks a move for a view and its legal moves; ``None`` stops ``play_seat``."""

# The most moves a turn sent in one call may hold (SubmitTurnRequest.moves).
MAX_TURN_MOVES = 64


def _cards_of(move: pb.Move) -> list[str]:
    which = move.WhichOneof("kind")
    if which == "create_meld":
        return list(move.create_meld.cards)
    if which == "take_pile":
        return list(move.take_pile.cards)
    card = _card_of(move)
    return [card] if card else []


async def plan_turn(
    choose: Chooser, view: pb.GameView, moves: list[pb.Move]
) -> list[pb.Move] | None:
    """The rest of a turn after its draw, chosen by ``choose`` move after move from
    the turn's legal moves ``moves``, to be sent in one ``submit_turn``. The chooser
    sees the hand without the cards already planned and the legal moves still open:
    those whose cards are still in the hand, at most one move on each meld (a second
    one may not be legal once the first is played; a move typed in the notation is
    taken as it is). The plan ends with a discard, or when nothing is left to choose;
    None if the chooser stopped."""
    hand = Counter(view.hand)
    touched: set[int] = set()
    planned = pb.GameView()
    planned.CopyFrom(view)
    plan: list[pb.Move] = []
    while len(plan) < MAX_TURN_MOVES:
        open_moves = [
            m
            for m in moves
            if move_kind(m) not in ("draw", "take")
            and _meld_of(m) not in touched
            and all(hand[c] >= n for c, n in Counter(_cards_of(m)).items())
        ]
        if not open_moves:
            break
        move = await choose(planned, open_moves)
        if move is None:
            return None
        plan.append(move)
        hand.subtract(_cards_of(move))
        del planned.hand[:]
        planned.hand.extend(sorted(hand.elements()))
        if _meld_of(move) >= 0:
            touched.add(_meld_of(move))
        if move_kind(move) == "discard":
            break
    return plan


def _all_seated(view: pb.GameView) -> bool:
    return bool(view.seats) and all(s.taken for s in view.seats)


async def play_seat(
    client: AsyncTrancaClient,
    game_id: str,
    choose: Chooser,
    *,
    on_update: Callable[[pb.WatchGameResponse], Awaitable[None]] | None = None,
    on_rejected: Callable[[RuleRejected | InvalidRequest], Awaitable[None]] | None = None,
    autostart: bool = True,
    whole_turns: bool = True,
) -> pb.GameView:
    """Play the seat of ``client``'s token until the match is over (or ``choose``
    returns ``None``); returns the last view.

    With ``whole_turns`` (the default) a turn costs two calls: its draw (or pile
    take), then the rest of it, planned by ``choose`` move after move
    (``plan_turn``), in one ``submit_turn``. If the service refuses a planned move,
    the moves before it are played and the rest of that turn goes move by move
    (the refusal goes to ``on_rejected`` if given, and is never raised: the plan, not
    the chooser, made the move that could not follow).

    The game is watched (``client.watch_updates``, which resumes broken streams);
    ``on_update`` sees every update. On the seat's turn the legal moves are fetched
    and ``choose`` picks one, which is submitted against the view's version; the
    turn's moves follow each other from the submit answers. A ``VersionConflict``
    resumes from its fresh view. A refused move goes to ``on_rejected`` (and the
    seat chooses again), or is raised when there is none. With ``autostart``, the
    game is started once every seat is taken (a race with another starter is fine).
    """
    last: pb.GameView | None = None
    acted = 0  # the version made by the seat's last move
    async for update in client.watch_updates(game_id):
        if on_update is not None:
            await on_update(update)
        view = update.view
        last = view
        if view.version < acted:
            continue  # the seat's own moves, already seen in the submit answers
        if autostart and view.status == pb.GAME_STATUS_WAITING and _all_seated(view):
            try:
                await client.start_game(game_id)
            except VersionConflict:
                pass  # another seat's start got in first: the watch brings the deal
            except RuleRejected as exc:
                if exc.reason not in ("GAME_STARTED", "SEATS_FREE"):
                    raise
        one_by_one = not whole_turns  # after a refused plan: the rest move by move
        while view.status == pb.GAME_STATUS_PLAYING and view.turn == view.seat:
            legal = await client.legal_moves(game_id)
            if legal.version != view.version:
                view = await client.get_view(game_id)
                continue
            if not legal.moves:
                break
            if not one_by_one and view.phase != pb.PHASE_DRAW:
                plan = await plan_turn(choose, view, list(legal.moves))
                if plan is None:
                    return view
                if plan:
                    try:
                        turn = await client.submit_turn(
                            game_id, plan, expected_version=view.version
                        )
                    except VersionConflict as exc:
                        view = exc.view if exc.view is not None else await client.get_view(game_id)
                        continue
                    except (RuleRejected, InvalidRequest) as exc:
                        if exc.reason == "GAME_OVER":
                            view = await client.get_view(game_id)
                            continue
                        # A plan is chosen ahead from the turn's first legal moves, so
                        # a later move of it may be refused (a meld that keeps no card
                        # to discard, say): not the seat's mistake but the plan's, so
                        # it is never raised; the turn goes on move by move.
                        if on_rejected is not None:
                            await on_rejected(exc)
                        one_by_one = True
                        k = exc.move_index or 1
                        if k == 1:
                            continue
                        # The moves before the refused one are legal: played together.
                        turn = await client.submit_turn(
                            game_id, plan[: k - 1], expected_version=view.version
                        )
                    view = turn.view
                    acted = turn.version
                    continue
            move = await choose(view, list(legal.moves))
            if move is None:
                return view
            try:
                done = await client.submit_move(game_id, move, expected_version=view.version)
            except VersionConflict as exc:
                view = exc.view if exc.view is not None else await client.get_view(game_id)
                continue
            except (RuleRejected, InvalidRequest) as exc:
                if exc.reason == "GAME_OVER":
                    view = await client.get_view(game_id)
                    continue
                if on_rejected is None:
                    raise
                await on_rejected(exc)
                continue
            view = done.view
            acted = done.version
        last = view
        if view.status == pb.GAME_STATUS_FINISHED:
            return view
    if last is None:
        last = await client.get_view(game_id)
    return last


async def run_bot(
    client: AsyncTrancaClient,
    game_id: str,
    bot: Bot,
    *,
    delay: float = 0.0,
    on_update: Callable[[pb.WatchGameResponse], Awaitable[None]] | None = None,
    autostart: bool = True,
    whole_turns: bool = True,
) -> pb.GameView:
    """Play ``bot`` on the seat of ``client``'s token to the end of the match, waiting
    ``delay`` seconds before each move; returns the final view. With ``whole_turns``
    the rest of each turn after its draw goes in one call (``play_seat``), unless the
    bot says it plays move by move (a ``whole_turns`` attribute False, as the
    expert's: it reads the whole table, which a turn planned ahead does not update)."""
    whole_turns = whole_turns and getattr(bot, "whole_turns", True)

    async def choose(view: pb.GameView, moves: list[pb.Move]) -> pb.Move:
        if delay:
            await asyncio.sleep(delay)
        return bot.choose(view, moves)

    return await play_seat(
        client,
        game_id,
        choose,
        on_update=on_update,
        autostart=autostart,
        whole_turns=whole_turns,
    )
