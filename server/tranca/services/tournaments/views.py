"""A tournament and its rounds as their organiser sees them (``TournamentView``,
``RoundView``): its events projected (the corrections' audit trail), its duplicate
decks as card texts, its seats in order, its standings with their prizes. Computed
once per version of a tournament (``tournament_view`` keeps it with the
``TournamentShown`` the use case answers again), in a worker thread for a large one.
"""

from __future__ import annotations

from tranca_rules.cards import card_text

from ...platform.tournament_events import TournamentConfig, next_due, status_of
from ...platform.tournaments import Format, Outcome, Round, Tournament
from ..compute import off_loop_if_large
from .dtos import (
    CorrectionView,
    RoundShown,
    RoundView,
    SeatView,
    StandingView,
    TableView,
    TournamentShown,
    TournamentView,
)
from .ports import GamesByTable, TokensBySeat


async def tournament_view(shown: TournamentShown) -> TournamentView:
    """``shown``'s view, computed once (in a worker thread for a large tournament: a
    thousand-entrant one is thousands of tables; a 64-entrant one's 200 take less
    than the trip)."""
    if shown.view_kept:
        return shown.view_kept[0]
    tables = sum(len(r.tables) for r in shown.tournament.rounds)
    view = await off_loop_if_large(tables, view_of, shown)
    if not shown.view_kept:
        shown.view_kept.append(view)
    return shown.view_kept[0]


def round_shown_view(r: RoundShown) -> RoundView:
    """The round StartRound answers, its new tokens shown."""
    return round_view(
        r.config,
        r.tournament,
        r.round,
        r.games,
        r.tokens,
        show_deck=r.deck_shown,
        token_expires_at=r.token_expires_at,
    )


def round_view(
    config: TournamentConfig,
    t: Tournament,
    rnd: Round,
    games: GamesByTable,
    tokens: TokensBySeat,
    *,
    show_deck: bool,
    token_expires_at: int = 0,
) -> RoundView:
    """The round as the organiser sees it; seats given a token in ``tokens`` show it
    with its expiry ``token_expires_at`` (epoch ms)."""
    dup = config.duplicate_round(rnd.number)
    deck = tuple(card_text(c) for c in dup.deck) if dup is not None and show_deck else ()
    tables = []
    for tb in rnd.tables:
        seats = []
        for seat, player_id in enumerate(config.seats(t, tb)):
            token = tokens.get((rnd.number, tb.number, seat), "")
            seats.append(SeatView(seat, player_id, token, token_expires_at if token else 0))
        tables.append(
            TableView(
                tb.number,
                tb.a,
                tb.b,
                games.get((rnd.number, tb.number), ""),
                t.result(tb),
                tuple(seats),
            )
        )
    return RoundView(rnd.number, tuple(rnd.byes), deck, tuple(tables))


def view_of(shown: TournamentShown) -> TournamentView:
    """The tournament, its rounds (the decks of ``shown.decks_shown`` only) and its
    standings."""
    row, t = shown.row, shown.tournament
    config = row.config
    corrections = tuple(
        CorrectionView(
            int(event["round"]),
            int(event["table"]),
            Outcome(previous) if (previous := event.get("previous") or "") else None,
            Outcome(event["outcome"]),
            str(event.get("reason", "")),
            int(event.get("at") or 0),
        )
        for event in row.events
        if event["type"] == "correction"
    )
    scheduled = config.scheduled
    registration = config.registration
    prizes = config.prizes
    fee = prizes.entry_fee
    return TournamentView(
        id=row.id,
        name=row.name,
        format=t.format,
        status=status_of(t),
        table_size=t.table_size,
        total_rounds=t.total_rounds,
        champion=t.champion or "",
        duplicate=config.duplicate,
        start_deadline_seconds=config.start_deadline_seconds,
        knockout_tie=(
            config.knockout_tie if t.format == Format.SINGLE_ELIMINATION or t.playoff else None
        ),
        points=config.points,
        tie_breaks=tuple(config.tie_breaks),
        playoff_size=t.playoff,
        spectators=config.spectators,
        corrections=corrections,
        swiss_rounds=t.swiss_rounds if t.format == Format.SWISS else 0,
        scheduled=scheduled,
        start_at=config.start_at if scheduled else 0,
        round_break_seconds=config.round_break_seconds if scheduled else 0,
        round_time_limit_seconds=config.round_time_limit_seconds if scheduled else 0,
        round_timeout=config.round_timeout if scheduled else None,
        next_at=(next_due(config, t, row.events) or 0) if scheduled else 0,
        registration=registration,
        max_entrants=config.max_entrants if registration else 0,
        late_registration_rounds=config.late_registration_rounds if registration else 0,
        registration_opens_at=config.registration_opens_at if registration else 0,
        registration_closes_at=config.registration_closes_at if registration else 0,
        check_in_seconds=config.check_in_seconds,
        checked_in=tuple(e for e in t.ids if e in t.checked_in),
        entrants=tuple(t.entrants[e] for e in t.ids),
        rounds=tuple(
            round_view(config, t, rnd, shown.games, {}, show_deck=rnd.number in shown.decks_shown)
            for rnd in t.rounds
        ),
        entry_fee=fee,
        payout=tuple(prizes.payout) if fee else (),
        house_percent=prizes.house_percent if fee else 0,
        prize_pool=shown.prize_pool,
        standings=tuple(StandingView(s, shown.prizes.get(s.entrant, 0)) for s in shown.standings),
        table_count=sum(len(r.tables) for r in t.rounds),
    )
