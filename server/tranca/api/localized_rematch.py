"""The refusal texts of tables that outlive their match (services/rematch.py):
reason -> (English, Portuguese of Brazil, Spanish), taken whole into the catalogue
(``api/localized.py``)."""

from __future__ import annotations

REMATCH_MESSAGES: dict[str, tuple[str, str, str]] = {
    "MATCH_NOT_OVER": (
        "The match is not over yet: a rematch comes after it.",
        "A partida ainda não terminou: a revanche vem depois dela.",
        "La partida todavía no terminó: la revancha viene después.",
    ),
    "REMATCH_CONFIRMED": (
        "You have already confirmed the rematch.",
        "Você já confirmou a revanche.",
        "Ya confirmaste la revancha.",
    ),
    "TOURNAMENT_TABLE": (
        "A tournament's table plays the match its round gives it, with the organiser's options.",
        "Uma mesa de torneio joga a partida que a rodada lhe dá, com as opções do organizador.",
        "Una mesa de torneo juega la partida que le da su ronda, con las opciones del organizador.",
    ),
    "SEAT_HELD": (
        "That seat is held for the player who sat there in the last match.",
        "Esse lugar está reservado para quem jogou nele na última partida.",
        "Ese asiento está reservado para quien lo ocupó en la última partida.",
    ),
}

__all__ = ["REMATCH_MESSAGES"]
