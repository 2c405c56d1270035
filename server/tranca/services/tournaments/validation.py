"""A new tournament's request checked into its configuration (``tournament_config``),
and an organiser's pairing checked into a round (``overridden``).
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Sequence

from ...platform.entry_fees import (
    PrizeRules,
)
from ...platform.tournament_events import (
    DEFAULT_START_DEADLINE_SECONDS,
    MAX_START_DEADLINE_SECONDS,
    TournamentConfig,
)
from ...platform.tournaments import (
    DEFAULT_TIE_BREAKS,
    Entrant,
    Format,
    Points,
    Round,
    Tournament,
)
from ...reasons import Reason
from ...table.fairness import deck_size
from ..errors import Refusal, Refused
from ..games import fixed_deck, rules_and_table
from ..player_rewrite import PSEUDONYM_PREFIX
from ..ports import AppRecord
from .dtos import NewTournament
from .errors import bad_config, refused

# A player id's length (JoinGameRequest.player_id's max_chars; Entrant's).
MAX_PLAYER_ID = 128
MAX_ENTRANTS = 1024
MAX_SWISS_ROUNDS = 64

# A scheduled tournament's limits: a round break up to a day, a round clock up to a
# week (a correspondence event).
MAX_ROUND_BREAK_SECONDS = 86_400
MAX_ROUND_TIME_LIMIT_SECONDS = 7 * 86_400


# An organiser's pairing: the tables (side A, side B) and the byes.
PairingOverride = tuple[Sequence[tuple[str, str]], Sequence[str]]


def overridden(t: Tournament, number: int, override: PairingOverride) -> Round:
    """Round ``number`` of ``t`` as the organiser paired it: a Swiss round (not a
    play-off's), every entrant still in at exactly one table or among the byes
    (BAD_PAIRING otherwise); ``t`` takes it as a stored round."""
    pairs, byes = override
    if t.format != Format.SWISS or t.is_knockout_round(number):
        raise refused(
            Reason.PAIRING_NOT_ALLOWED, "only a Swiss round takes the organiser's pairing"
        )
    named = [e for p in pairs for e in p] + list(byes)
    active = {e for e in t.ids if e not in t.withdrawn}
    if len(named) != len(set(named)) or set(named) != active:
        raise Refused(
            Refusal.MALFORMED,
            Reason.BAD_PAIRING,
            "every entrant still in, once: at a table or among the byes",
        )
    if not pairs:
        raise Refused(Refusal.MALFORMED, Reason.BAD_PAIRING, "a round has at least one table")
    return t.restore_round(number, list(pairs), list(byes))


def tournament_config(new: NewTournament, app: AppRecord) -> TournamentConfig:
    """The tournament's configuration, every refusal a MALFORMED one (BAD_TOURNAMENT,
    or INVALID_RULES for the rules) but FIXED_DECK_NOT_ALLOWED for decks without the
    permission."""
    fmt = new.format
    if fmt is None:
        raise bad_config("format is required")
    if new.table_size not in (2, 4):
        raise bad_config("table_size is 2, or 4 for partnerships")
    least = 0 if new.registration else 2
    if not least <= len(new.entrants) <= MAX_ENTRANTS:
        raise bad_config(f"a tournament has {least} to {MAX_ENTRANTS} entrants")
    if not 0 <= new.max_entrants <= MAX_ENTRANTS:
        raise bad_config(f"max_entrants is 0 (the server's {MAX_ENTRANTS}) to {MAX_ENTRANTS}")
    if new.max_entrants and len(new.entrants) > new.max_entrants:
        raise bad_config("more entrants than max_entrants")
    if not new.registration and (
        new.max_entrants
        or new.late_registration_rounds
        or new.registration_opens_at
        or new.registration_closes_at
    ):
        raise bad_config("max_entrants, late registration and its window need registration_open")
    if new.late_registration_rounds and fmt != Format.SWISS:
        raise bad_config("late registration is for a Swiss")
    if not 0 <= new.late_registration_rounds <= MAX_SWISS_ROUNDS:
        raise bad_config(f"late_registration_rounds is 0 to {MAX_SWISS_ROUNDS}")
    if new.registration_opens_at < 0 or new.registration_closes_at < 0:
        raise bad_config("registration times are epoch ms, or 0")
    if new.registration_closes_at and new.registration_closes_at <= new.registration_opens_at:
        raise bad_config("registration closes after it opens")
    if not 0 <= new.check_in_seconds <= MAX_ROUND_BREAK_SECONDS:
        raise bad_config(f"check_in_seconds is 0 to {MAX_ROUND_BREAK_SECONDS}")
    if new.check_in_seconds and not new.start_at:
        raise bad_config("check-in needs a start_at_ms")
    entrants = []
    for e in new.entrants:
        ids = tuple(p.strip() for p in e.players)
        if not e.id:
            raise bad_config(f"entrant ids are 1 to {MAX_PLAYER_ID} characters")
        if not all(ids):
            raise bad_config(f"player ids are 1 to {MAX_PLAYER_ID} characters")
        if any(p.startswith(PSEUDONYM_PREFIX) for p in ids):
            raise bad_config(f"player ids starting {PSEUDONYM_PREFIX!r} are erased players'")
        entrants.append(Entrant(e.id, ids))
    table = new.table
    rules = rules_and_table(new.preset, new.overrides(), new.table_size, table, bad_config)
    if new.duplicate and table.verifiable:
        raise bad_config("a verifiable table shuffles its own decks: no duplicate deals")
    if new.spectators and new.duplicate:
        # Every table is dealt the same cards: what a spectator sees at one table
        # (its discards and melds) is the cards still hidden at another.
        raise bad_config("no spectators at duplicate deals")
    if new.round_decks and not new.duplicate:
        raise bad_config("round_decks are for duplicate deals")
    if not 0 <= new.start_deadline_seconds <= MAX_START_DEADLINE_SECONDS:
        raise bad_config(
            f"start_deadline_seconds is 0 (the default) to {MAX_START_DEADLINE_SECONDS}"
        )
    if new.start_at < 0:
        raise bad_config("start_at_ms is an epoch time in ms, or 0 (not scheduled)")
    if not 0 <= new.round_break_seconds <= MAX_ROUND_BREAK_SECONDS:
        raise bad_config(f"round_break_seconds is 0 to {MAX_ROUND_BREAK_SECONDS}")
    if not 0 <= new.round_time_limit_seconds <= MAX_ROUND_TIME_LIMIT_SECONDS:
        raise bad_config(f"round_time_limit_seconds is 0 to {MAX_ROUND_TIME_LIMIT_SECONDS}")
    if not new.start_at and (new.round_break_seconds or new.round_time_limit_seconds):
        raise bad_config("round_break_seconds and round_time_limit_seconds need a start_at_ms")
    if None in new.tie_breaks:
        raise bad_config("tie_breaks: an unknown tie-breaker")
    tie_breaks = tuple(b for b in new.tie_breaks if b is not None) or DEFAULT_TIE_BREAKS
    if len(set(tie_breaks)) != len(tie_breaks):
        raise bad_config("tie_breaks: each tie-breaker once")
    points = new.points or Points()
    worth = (points.win, points.draw, points.loss, points.bye)
    if not all(math.isfinite(x) and 0 <= x <= 1000 for x in worth):
        raise bad_config("points are 0 to 1000")
    if not points.win >= points.draw >= points.loss:
        raise bad_config("points: a win is worth at least a draw, a draw at least a loss")
    if new.playoff and (
        fmt != Format.SWISS
        or not 2 <= new.playoff <= MAX_ENTRANTS
        or new.playoff & (new.playoff - 1)
    ):
        raise bad_config("playoff_size is 0, or a power of two from 2 after a Swiss")
    if new.playoff and not new.registration and new.playoff > len(new.entrants):
        raise bad_config("playoff_size is more than the entrants")
    if new.rounds < 0 or new.rounds > MAX_SWISS_ROUNDS:
        raise bad_config(f"rounds is 0 (the format's) to {MAX_SWISS_ROUNDS}")
    prizes = PrizeRules(
        new.entry_fee,
        tuple(new.payout) or PrizeRules().payout,
        PrizeRules().house_percent if new.house_percent is None else new.house_percent,
    )
    if (why := prizes.problem(MAX_ENTRANTS)) is not None:
        raise bad_config(why)
    if (new.payout or new.house_percent is not None) and not new.entry_fee:
        raise bad_config("payout_percents and house_percent need an entry_fee")
    decks: list[tuple[int, ...]] = []
    for number, text in enumerate(new.round_decks):
        deck = fixed_deck(
            app.permissions,
            text.replace(",", " ").split(),  # the separators of rules.cards.parse_cards
            rules.jokers,
            bad_config,
            field=f"round_decks[{number}]",
            wrong_cards=f"round_decks[{number}] must hold the {deck_size(rules.jokers)} cards",
        )
        decks.append(tuple(deck))
    config = TournamentConfig(
        fmt,
        tuple(entrants),
        new.table_size,
        new.seed or secrets.randbits(63),
        (new.rounds or None) if fmt == Format.SWISS else None,
        rules.to_dict(),
        table.to_dict(),
        new.duplicate,
        tuple(decks),
        new.knockout_tie,
        new.start_deadline_seconds or DEFAULT_START_DEADLINE_SECONDS,
        new.start_at,
        new.round_break_seconds,
        new.round_time_limit_seconds,
        new.round_timeout,
        new.registration,
        new.max_entrants,
        new.late_registration_rounds,
        new.check_in_seconds,
        new.registration_opens_at,
        new.registration_closes_at,
        points,
        tie_breaks,
        new.playoff,
        new.spectators,
        prizes,
    )
    try:
        t = config.new_tournament()
    except ValueError as exc:
        raise bad_config(str(exc)) from None
    if len(decks) > t.total_rounds:
        raise bad_config(f"round_decks: the tournament has {t.total_rounds} rounds")
    return config
