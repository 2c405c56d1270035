"""What a table may be: its options checked, its rules made, a fixed deck read, and
what an app's policy lets its players' sessions play (MALFORMED_REQUEST or
PERMISSION_DENIED refusals). Shared by the tables a caller creates (services/games.py),
quick play's and a tournament's."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tranca_rules.cards import full_deck, parse_card
from tranca_rules.presets import KNOB_RANGES, Rules, make_rules

from ..platform.chat import CHAT_MODES
from ..reasons import Reason
from ..table.game import TableOptions
from .errors import Refusal, Refused, malformed
from .game_values import Joining
from .policy import AppPolicy
from .ports import SessionRecord
from .robots import ROBOT_LEVELS, level_within

FIXED_DECK = "fixed_deck"
MAX_TURN_SECONDS = 24 * 3600
MAX_STAKE = 10**12
# The highest point limit a table sets: the target_score knob's range (RULES.md).
MAX_POINT_LIMIT = KNOB_RANGES["target_score"][1]

# Builds the caller's INVALID_ARGUMENT refusal from a message (the reason differs:
# MALFORMED_REQUEST for a table, INVALID_CONFIG for a tournament's tables).
Refuse = Callable[[str], Refused]


def check_table_options(t: TableOptions) -> None:
    """Refuse incoherent table options (MALFORMED_REQUEST, whoever asks)."""
    if not 0 <= t.turn_seconds <= MAX_TURN_SECONDS:
        raise malformed(f"table.turn_seconds is 0 (no limit) to {MAX_TURN_SECONDS}")
    if not 0 <= t.robot_grace_seconds <= MAX_TURN_SECONDS:
        raise malformed(f"table.robot_grace_seconds is 0 (no robots) to {MAX_TURN_SECONDS}")
    if not 0 <= t.stake <= MAX_STAKE:
        raise malformed(f"table.stake is 0 to {MAX_STAKE}")
    if t.stake and not t.competitive:
        raise malformed("a stake needs a competitive table (003: practice plays for no chips)")
    if not 0 <= t.point_limit <= MAX_POINT_LIMIT:
        raise malformed(f"table.point_limit is 0 (the preset's) to {MAX_POINT_LIMIT}")
    if t.express and t.point_limit:
        raise malformed("an express table has no point limit (003: 'sin límite de puntos')")
    if t.robot_level and t.robot_level not in ROBOT_LEVELS:
        raise malformed(f"table.robot_level is unspecified or one of {', '.join(ROBOT_LEVELS)}")
    if t.robot_level and not t.robot_grace_seconds:
        raise malformed("table.robot_level needs a table with robots (robot_grace_seconds > 0)")
    if t.chat and t.chat not in CHAT_MODES:
        raise malformed(f"table.chat is unspecified or one of {', '.join(sorted(CHAT_MODES))}")


def robot_level_allowed(t: TableOptions, max_level: str) -> None:
    """Refuse a table whose robots would play a level above the operator's bound
    (``tranca serve --robot-max-level``): PERMISSION_DENIED, ROBOT_LEVEL_NOT_ALLOWED,
    with the bound in the metadata, so that an app can offer what the server allows.
    Refused rather than played at the bound: a player who chose "against the expert"
    would otherwise meet a weaker robot without being told."""
    if t.robot_level and not level_within(t.robot_level, max_level):
        raise Refused(
            Refusal.FORBIDDEN,
            Reason.ROBOT_LEVEL_NOT_ALLOWED,
            f"this server's robots play at most the {max_level} level",
            {"max_level": max_level},
        )


def rules_and_table(
    preset: str,
    overrides: dict[str, Any],
    players: int,
    table: TableOptions,
    refuse: Refuse,
) -> Rules:
    """The rules of a new game (CreateGame) or of every game of a tournament: the
    preset is required and must be played by ``players``; the table's options are
    checked, and set the length of the match (express, point limit). A rules error
    (an unknown preset or knob, a knob out of range) raises ``RulesError``."""
    if not preset:
        raise refuse("rules.preset is required (see ListPresets)")
    rules = make_rules(preset, overrides)
    if players not in rules.player_counts:
        allowed = ", ".join(str(n) for n in rules.player_counts)
        raise refuse(f"{rules.name} is played by {allowed} players")
    check_table_options(table)
    return make_rules(preset, table.match_overrides(overrides))


def fixed_deck(
    app_permissions: frozenset[str],
    cards: Sequence[str],
    jokers: bool,
    refuse: Refuse,
    *,
    field: str,
    wrong_cards: str,
) -> list[int]:
    """A deck order the caller fixes (``cards``: one card text each):
    FIXED_DECK_NOT_ALLOWED without the fixed_deck permission; through ``refuse`` a card
    that does not parse (``field: why``) or a deck that is not exactly the rules' deck
    (``wrong_cards``)."""
    if FIXED_DECK not in app_permissions:
        raise Refused(
            Refusal.FORBIDDEN,
            Reason.FIXED_DECK_NOT_ALLOWED,
            "this API key may not fix the deck order",
        )
    try:
        deck = [parse_card(c) for c in cards]
    except ValueError as exc:
        raise refuse(f"{field}: {exc}") from None
    if sorted(deck) != sorted(full_deck(jokers)):
        raise refuse(wrong_cards)
    return deck


def preset_not_allowed(preset: str) -> Refused:
    return Refused(
        Refusal.FORBIDDEN,
        Reason.PRESET_NOT_ALLOWED,
        f"this app's players may not play {preset or 'an unnamed preset'} (its policy)",
    )


def within_policy(policy: AppPolicy, competitive: bool, stake: int) -> None:
    """Refuse a table beyond what the app lets its players' sessions play."""
    if competitive and not policy.competitive:
        raise Refused(
            Refusal.FORBIDDEN,
            Reason.COMPETITIVE_NOT_ALLOWED,
            "this app's players may not play rated tables (its policy)",
        )
    if stake > policy.max_stake:
        raise Refused(
            Refusal.FORBIDDEN,
            Reason.STAKE_NOT_ALLOWED,
            f"this app's players may stake at most {policy.max_stake} chips (its policy)",
        )


def as_session(session: SessionRecord, wanted: Joining) -> Joining:
    """What a session asks for, as its own player: the name and id are the
    session's, never the request's; no other address than the caller's."""
    if wanted.player_id.strip() and wanted.player_id.strip() != session.player_id:
        raise Refused(
            Refusal.FORBIDDEN,
            Reason.NOT_YOUR_PLAYER,
            "a session seats its own player only (leave player_id empty)",
        )
    if wanted.address:
        raise malformed("address is the app's to give, not a session's")
    return Joining(
        seat=wanted.seat,
        player_name="" if wanted.robot else session.display_name,
        player_id="" if wanted.spectator or wanted.robot else session.player_id,
        spectator=wanted.spectator,
        robot=wanted.robot,
        invite_code=wanted.invite_code,
        token_lifetime_seconds=wanted.token_lifetime_seconds,
    )
