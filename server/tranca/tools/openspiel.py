"""Tranca as an OpenSpiel game (``python_tranca``), for game-AI research.

Importing this module registers the game with OpenSpiel (the ``open_spiel`` package;
the rules engine does the rules)::

    import pyspiel
    import tranca.tools.openspiel  # registers python_tranca
    game = pyspiel.load_game("python_tranca", {"preset": "tranca-003", "players": 4})

- **Chance**: the deal. The deck's order is drawn card by card at the start (one
  chance node per card, outcomes the distinct cards left, weighted by their
  copies), then ``new_deal`` deals it; every later draw comes from that order.
- **Players**: the seats; with four, seats 0 and 2 are one side. The returns at the
  end are each seat's side's score minus the other side's (zero-sum).
- **Actions**: every atomic move of the engine (``moves.py``) has one number:
  ``draw``; ``discard C``; ``take @M``; ``take A B``; ``add @M C``;
  ``replace @M C``; ``meld A B C`` (cards by their index among the 53 distinct
  cards, melds by id, below ``MAX_MELDS``). ``action_to_move`` and
  ``move_to_action`` convert.
- **Observations** (per seat, ``observation_string`` / ``observation_tensor``): what
  the seat sees now (``information.information_of`` without memory): its hand, the
  melds, the red threes, the pile's top (all of it where the preset lays it open),
  the counts. **Information states** (``information_state_string`` / ``_tensor``):
  the string is the seat's perfect recall (its own hand after every move, and every
  public move); the tensor adds to the observation what the seat remembers of the
  public moves (the pile's cards, the cards it saw taken into each hand).
- **Resampling** (``resample_from_infostate``, for OpenSpiel's ISMCTS): a deal drawn
  from the seat's information (``information.sample_state``), the history kept.

Nothing hidden reaches a seat's strings or tensors: they are built from
``information_of`` alone (tests/openspiel/test_openspiel.py checks it).
"""

from __future__ import annotations

import copy
import random
from typing import Any

import numpy as np
import pyspiel

from tranca_rules.bots import Bot
from tranca_rules.cards import ALL_NATURAL_CARDS, JOKER, card_text, full_deck
from tranca_rules.engine import apply_unchecked, legal_moves, new_deal
from tranca_rules.information import (
    UNKNOWN,
    Information,
    Memory,
    event_after,
    event_before,
    information_of,
    sample_state,
    unseen_cards,
)
from tranca_rules.moves import ADD, DISCARD, DRAW, MELD, NO_MELD, REPLACE, TAKE, Move, move_text
from tranca_rules.presets import Rules, make_rules
from tranca_rules.scoring import score_deal
from tranca_rules.state import DealState, Phase

GAME_NAME = "python_tranca"
CARDS: tuple[int, ...] = (*sorted(ALL_NATURAL_CARDS), JOKER)
N_CARDS = len(CARDS)  # 53
INDEX = {c: i for i, c in enumerate(CARDS)}
MAX_MELDS = 48
# The action numbers: one range per kind of move.
A_DRAW = 0
A_DISCARD = 1
A_TAKE_ONTO = A_DISCARD + N_CARDS
A_TAKE_PAIR = A_TAKE_ONTO + MAX_MELDS
A_ADD = A_TAKE_PAIR + N_CARDS * N_CARDS
A_REPLACE = A_ADD + MAX_MELDS * N_CARDS
A_MELD = A_REPLACE + MAX_MELDS * N_CARDS
N_ACTIONS = A_MELD + N_CARDS**3
MAX_MOVES = 5000
MAX_SCORE = 20_000.0


def move_to_action(move: Move) -> int:
    kind, meld, cards = move.kind, move.meld, move.cards
    if kind == DRAW:
        return A_DRAW
    if kind == DISCARD:
        return A_DISCARD + INDEX[cards[0]]
    if kind == TAKE:
        if meld != NO_MELD:
            return A_TAKE_ONTO + meld
        return A_TAKE_PAIR + INDEX[cards[0]] * N_CARDS + INDEX[cards[1]]
    if kind in (ADD, REPLACE):
        base = A_ADD if kind == ADD else A_REPLACE
        return base + meld * N_CARDS + INDEX[cards[0]]
    a, b, c = (INDEX[x] for x in cards)
    return A_MELD + (a * N_CARDS + b) * N_CARDS + c


def action_to_move(action: int) -> Move:
    if action == A_DRAW:
        return Move(DRAW)
    if action < A_TAKE_ONTO:
        return Move(DISCARD, NO_MELD, (CARDS[action - A_DISCARD],))
    if action < A_TAKE_PAIR:
        return Move(TAKE, action - A_TAKE_ONTO, ())
    if action < A_ADD:
        a, b = divmod(action - A_TAKE_PAIR, N_CARDS)
        return Move(TAKE, NO_MELD, (CARDS[a], CARDS[b]))
    if action < A_MELD:
        kind = ADD if action < A_REPLACE else REPLACE
        meld, card = divmod(action - (A_ADD if kind == ADD else A_REPLACE), N_CARDS)
        return Move(kind, meld, (CARDS[card],))
    ab, c = divmod(action - A_MELD, N_CARDS)
    a, b = divmod(ab, N_CARDS)
    return Move(MELD, NO_MELD, (CARDS[a], CARDS[b], CARDS[c]))


GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Tranca (Brazilian rummy)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"preset": "tranca-000", "players": 2},
)


class TrancaGame(pyspiel.Game):  # type: ignore[misc]
    """``python_tranca`` with the parameters ``preset`` and ``players``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        preset = str(params.get("preset", "tranca-000"))
        players = int(params.get("players", 2))
        self.rules: Rules = make_rules(preset)
        if players not in self.rules.player_counts or players == 3:
            raise ValueError(f"{preset} is played here by 2 or 4 players, not {players}")
        self.players = players
        self.deck_size = len(full_deck(self.rules.jokers))
        info = pyspiel.GameInfo(
            num_distinct_actions=N_ACTIONS,
            max_chance_outcomes=N_CARDS,
            num_players=players,
            min_utility=-MAX_SCORE,
            max_utility=MAX_SCORE,
            utility_sum=0.0,
            max_game_length=self.deck_size + MAX_MOVES,
        )
        super().__init__(GAME_TYPE, info, {"preset": preset, "players": players})

    def new_initial_state(self) -> TrancaState:
        return TrancaState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> TrancaObserver:
        return TrancaObserver(
            self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )


class TrancaState(pyspiel.State):  # type: ignore[misc]
    """A deal: chance nodes while the deck is drawn, then the seats' moves."""

    def __init__(self, game: Any) -> None:
        super().__init__(game)
        self.game_ = game
        self.setup = _setup(game)
        self.order: list[int] = []  # the deck's order drawn so far (first dealt first)
        self.left = _counts(full_deck(self.setup.rules.jokers))
        self.deal: DealState | None = None
        self.memories = [Memory(4) for _ in range(self.setup.players)]
        # Each seat's perfect recall: its hand after each move, with the move.
        self.recall: list[list[str]] = [[] for _ in range(self.setup.players)]

    def __deepcopy__(self, memo: dict[int, Any]) -> TrancaState:
        new = TrancaState.__new__(TrancaState)
        pyspiel.State.__init__(new, self.game_)
        new.game_ = self.game_
        new.setup = self.setup
        new.order = list(self.order)
        new.left = dict(self.left)
        new.deal = None if self.deal is None else self.deal.copy()
        new.memories = [copy.deepcopy(m) for m in self.memories]
        new.recall = [list(r) for r in self.recall]
        return new

    # ----- OpenSpiel's API ------------------------------------------------------------

    def current_player(self) -> int:
        if self.deal is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.deal.is_over:  # the engine ends a deal where no move is left
            return int(pyspiel.PlayerId.TERMINAL)
        return self.deal.turn

    def _legal_actions(self, player: int) -> list[int]:
        assert self.deal is not None and player == self.deal.turn
        return sorted(move_to_action(m) for m in legal_moves(self.deal))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        total = sum(self.left.values())
        return [(INDEX[c], n / total) for c, n in sorted(self.left.items()) if n]

    def _apply_action(self, action: int) -> None:
        if self.deal is None:
            card = CARDS[action]
            self.left[card] -= 1
            self.order.append(card)
            if len(self.order) == self.setup.deck_size:
                self.deal = new_deal(self.setup.rules, self.setup.players, deck=self.order)
                self._remember("deal")
            return
        s = self.deal
        seat = s.turn
        move = action_to_move(action)
        part = event_before(s, seat, move)
        apply_unchecked(s, seat, move)
        event = event_after(part, s)
        for m in self.memories:
            m.see(event)
        self._remember(f"{seat}:{move_text(move)}")

    def _remember(self, what: str) -> None:
        """Each seat's recall grows by the move and the seat's hand after it (the rest
        of what it sees follows from the moves and the deal's start)."""
        s = self.deal
        assert s is not None
        seen = (
            f"reds {' / '.join(_cards(tuple(r)) for r in s.red_threes)} "
            f"top {card_text(s.pile[-1]) if s.pile else '-'} "
            f"mortos {[0 if m is None else len(m) for m in s.mortos]}"
        )
        for seat, recall in enumerate(self.recall):
            recall.append(f"{what}|{_cards(tuple(sorted(s.hands[seat])))}|{seen}")

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {card_text(CARDS[action])}"
        return move_text(action_to_move(action))

    def is_terminal(self) -> bool:
        return self.deal is not None and self.deal.is_over

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.setup.players
        assert self.deal is not None
        scores = [sc.total for sc in score_deal(self.deal)]
        n_sides = len(scores)
        return [
            float(scores[p % n_sides] - scores[1 - p % n_sides]) for p in range(self.setup.players)
        ]

    def resample_from_infostate(self, player: int, sampler: Any = None) -> TrancaState:
        """A deal drawn from what ``player`` knows, the histories kept: what OpenSpiel's
        ISMCTS needs. The other seats' recall becomes their sampled hands'."""
        new = copy.deepcopy(self)
        if self.deal is None:
            return new
        info = information_of(self.deal, player, self.memories[player])
        pool = list(unseen_cards(info).elements())
        seed = int(sampler.sample() * 2**31) if hasattr(sampler, "sample") else len(pool)
        random.Random(seed).shuffle(pool)
        new.deal = sample_state(info, pool)
        new.order = []
        for seat in range(self.setup.players):
            if seat != player:
                hand = tuple(sorted(new.deal.hands[seat]))
                new.recall[seat] = [f"sampled|{_cards(hand)}|{_public(info)}"]
        return new

    def __str__(self) -> str:
        if self.deal is None:
            return f"dealing: {len(self.order)} of {self.setup.deck_size} cards"
        s = self.deal
        hands = " / ".join(_cards(tuple(sorted(h))) for h in s.hands)
        return f"turn {s.turn} {s.phase}; hands {hands}; pile {_cards(tuple(s.pile))}"


class TrancaObserver:
    """Strings and tensors for one seat (OpenSpiel's PyObserver interface)."""

    def __init__(self, game: Any, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.public = bool(iig_obs_type.public_info)
        n, sides = _setup(game).players, 2
        pieces: list[tuple[str, int, tuple[int, ...]]] = []
        if self.public:
            pieces += [
                ("seat", n, (n,)),
                ("turn", n, (n,)),
                ("phase", 2, (2,)),
                ("hand_sizes", n, (n,)),
                ("melds", sides * N_CARDS, (sides, N_CARDS)),
                ("red_threes", sides * N_CARDS, (sides, N_CARDS)),
                ("pile_top", N_CARDS, (N_CARDS,)),
                ("pile_seen", N_CARDS, (N_CARDS,)),
                ("counts", 2 + sides, (2 + sides,)),  # pile, stock, each morto
                ("morto_taken", sides, (sides,)),
            ]
            if self.perfect_recall:
                pieces.append(("known_in_hands", n * N_CARDS, (n, N_CARDS)))
        if self.private:
            pieces.append(("hand", N_CARDS, (N_CARDS,)))
        size = sum(p[1] for p in pieces)
        self.tensor = np.zeros(size, np.float32)
        self.dict: dict[str, Any] = {}
        at = 0
        for name, length, shape in pieces:
            self.dict[name] = self.tensor[at : at + length].reshape(shape)
            at += length

    def _information(self, state: TrancaState, player: int) -> Information | None:
        if state.deal is None:
            return None
        memory = state.memories[player] if self.perfect_recall else None
        return information_of(state.deal, player, memory)

    def set_from(self, state: TrancaState, player: int) -> None:
        self.tensor.fill(0)
        info = self._information(state, player)
        d = self.dict
        if "seat" in d:
            d["seat"][player] = 1
        if info is None:
            return
        if self.public:
            d["turn"][info.turn] = 1
            d["phase"][0 if info.phase == Phase.DRAW else 1] = 1 if info.phase != Phase.OVER else 0
            d["hand_sizes"][:] = info.hand_sizes
            for m in info.melds:
                for c in m.cards:
                    d["melds"][m.side % 2, INDEX[c]] += 1
            for side, reds in enumerate(info.red_threes):
                for c in reds:
                    d["red_threes"][side % 2, INDEX[c]] += 1
            if info.pile:
                d["pile_top"][INDEX[info.pile[-1]]] = 1
            for c in info.pile:
                if c != UNKNOWN:
                    d["pile_seen"][INDEX[c]] += 1
            d["counts"][:] = [len(info.pile), info.stock_size, *info.morto_sizes[:2]]
            d["morto_taken"][:] = info.morto_taken[:2]
            if "known_in_hands" in d:
                for seat, cards in enumerate(info.known):
                    for c in cards:
                        d["known_in_hands"][seat, INDEX[c]] += 1
        if self.private:
            for c in info.hand:
                d["hand"][INDEX[c]] += 1

    def string_from(self, state: TrancaState, player: int) -> str:
        if self.perfect_recall:
            if not self.private:
                return "\n".join(r.split("|", 1)[0] for r in state.recall[player])
            return f"seat {player}\n" + "\n".join(state.recall[player])
        info = self._information(state, player)
        if info is None:
            return f"seat {player} dealing {len(state.order)}"
        hand = _cards(info.hand) if self.private else "-"
        return f"seat {player} hand {hand} | {_public(info)}"


class _Setup:
    __slots__ = ("deck_size", "players", "rules")

    def __init__(self, rules: Rules, players: int) -> None:
        self.rules = rules
        self.players = players
        self.deck_size = len(full_deck(rules.jokers))


_SETUPS: dict[tuple[str, int], _Setup] = {}


def _setup(game: Any) -> _Setup:
    """A game's rules and sizes, from its parameters (the object OpenSpiel hands a
    state need not be the Python game that made it)."""
    params = game.get_parameters()
    key = (str(params["preset"]), int(params["players"]))
    if key not in _SETUPS:
        _SETUPS[key] = _Setup(make_rules(key[0]), key[1])
    return _SETUPS[key]


def _counts(cards: list[int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for c in cards:
        out[c] = out.get(c, 0) + 1
    return out


def _cards(cards: tuple[int, ...]) -> str:
    return " ".join(card_text(c) for c in cards)


def _public(info: Information) -> str:
    melds = "; ".join(f"@{m.id}s{m.side} {_cards(tuple(sorted(m.cards)))}" for m in info.melds)
    reds = " / ".join(_cards(r) for r in info.red_threes)
    top = card_text(info.pile[-1]) if info.pile else "-"
    return (
        f"turn {info.turn} {info.phase} | sizes {list(info.hand_sizes)} | melds {melds} | "
        f"reds {reds} | pile {len(info.pile)} top {top} | stock {info.stock_size} | "
        f"mortos {list(info.morto_sizes)} taken {list(info.morto_taken)}"
    )


pyspiel.register_game(GAME_TYPE, TrancaGame)


class OpenSpielISMCTS:
    """OpenSpiel's own (Python) ISMCTS bot, with random rollouts, as a ``bots.Bot``
    for the arena: it is given an OpenSpiel state rebuilt from what its seat knows
    (the deal resampled from its information: it never sees the real hidden cards)."""

    name = "openspiel-ismcts"

    def __init__(self, rules: Rules, players: int, seed: int, simulations: int) -> None:
        from open_spiel.python.algorithms import ismcts, mcts

        self.game = pyspiel.load_game(GAME_NAME, {"preset": rules.name, "players": players})
        rng = np.random.RandomState(seed % 2**32)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
        self.bot = ismcts.ISMCTSBot(
            self.game,
            evaluator,
            uct_c=2.0,
            max_simulations=simulations,
            random_state=rng,
            allow_inconsistent_action_sets=True,
        )
        self.memory: Memory | None = None
        self.seed = seed

    def observe(self, event: Any) -> None:
        if self.memory is None:
            self.memory = Memory(4)
        self.memory.see(event)

    def choose(self, s: DealState, moves: list[Move]) -> Move:
        if len(moves) == 1:
            return moves[0]
        state = self.game.new_initial_state()
        info = information_of(s, s.turn, self.memory)
        pool = list(unseen_cards(info).elements())
        random.Random(self.seed + s.move_count).shuffle(pool)
        state.deal = sample_state(info, pool)
        state.memories = [Memory(4) for _ in range(s.n_players)]
        if self.memory is not None:
            state.memories[s.turn] = copy.deepcopy(self.memory)
        hand = _cards(info.hand)
        state.recall = [[f"now|{hand}|{_public(info)}"] for _ in range(s.n_players)]
        action = self.bot.step(state)
        move = action_to_move(int(action))
        return move if move in moves else moves[0]


def ismcts_bot(rules: Rules, players: int, seed: int, simulations: int) -> Bot:
    return OpenSpielISMCTS(rules, players, seed, simulations)


__all__ = [
    "GAME_NAME",
    "N_ACTIONS",
    "OpenSpielISMCTS",
    "TrancaGame",
    "TrancaObserver",
    "TrancaState",
    "action_to_move",
    "ismcts_bot",
    "move_to_action",
]
