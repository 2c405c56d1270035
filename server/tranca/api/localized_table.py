"""The refusal texts of the table's room (003): its head's options
(services/table_options.py), tables that outlive their match (services/rematch.py),
automatic mode and abandonment (services/tables.py, services/abandonment.py):
reason -> (English, Portuguese of Brazil, Spanish), taken whole into the catalogue
(``api/localized.py``)."""

from __future__ import annotations

TABLE_MESSAGES: dict[str, tuple[str, str, str]] = {
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
    "AUTOMATIC_ALREADY_ON": (
        "Automatic mode is on already: the server plays your seat.",
        "O modo automático já está ligado: o servidor joga por você.",
        "El modo automático ya está activado: el servidor juega por ti.",
    ),
    "AUTOMATIC_NOT_ON": (
        "Automatic mode is not on.",
        "O modo automático não está ligado.",
        "El modo automático no está activado.",
    ),
    "ABANDONMENT_COOLDOWN": (
        "You abandoned a rated game: quick play is open to you again in {detail}.",
        "Você abandonou uma partida valendo ranking: o jogo rápido volta em {detail}.",
        "Abandonaste una partida puntuable: podrás jugar rápido de nuevo en {detail}.",
    ),
    "NOT_TABLE_HEAD": (
        "Only the table head can change the table's options.",
        "Só o chefe da mesa pode mudar as opções da mesa.",
        "Solo el jefe de mesa puede cambiar las opciones de mesa.",
    ),
    "OPTION_FIXED": (
        "That option stays as the table was created.",
        "Essa opção fica como a mesa foi criada.",
        "Esa opción queda como se creó la mesa.",
    ),
    "CONSENT_PENDING": (
        "Every player must agree to the new stake or rated play before the game starts.",
        "Todos os jogadores devem aceitar a nova aposta ou o ranking antes do início.",
        "Todos los jugadores deben aceptar la nueva apuesta o la puntuación antes de empezar.",
    ),
    "NO_CONSENT_PENDING": (
        "There is nothing for you to agree to.",
        "Não há nada para você aceitar.",
        "No tienes nada que aceptar.",
    ),
}

__all__ = ["TABLE_MESSAGES"]
