"""The refusals of the social room (friends and blocks, chat and its moderation,
invitations to a table) in English, the Portuguese of Brazil and Spanish: a part of
``localized.py``'s catalogue, kept apart so that each module holds one sitting's
worth (``MESSAGES`` takes these in whole)."""

from __future__ import annotations

# reason -> (English, Portuguese of Brazil, Spanish)
ROOM_MESSAGES: dict[str, tuple[str, str, str]] = {
    "PLAYER_NOT_FOUND": (
        "There is no player with that id here.",
        "Não há jogador com esse id aqui.",
        "No hay ningún jugador con ese id aquí.",
    ),
    "PLAYER_BLOCKED": (
        "You blocked that player: unblock them first.",
        "Você bloqueou esse jogador: desbloqueie-o antes.",
        "Bloqueaste a ese jugador: desbloquéalo antes.",
    ),
    "FRIEND_REQUEST_REFUSED": (
        "That player does not take your friend requests.",
        "Esse jogador não aceita os seus pedidos de amizade.",
        "Ese jugador no acepta tus solicitudes de amistad.",
    ),
    "NO_FRIEND_REQUEST": (
        "There is no friend request to answer.",
        "Não há pedido de amizade a responder.",
        "No hay ninguna solicitud de amistad que responder.",
    ),
    "NOT_FRIENDS": (
        "That player is not your friend.",
        "Esse jogador não é seu amigo.",
        "Ese jugador no es tu amigo.",
    ),
    "FRIEND_LIMIT_REACHED": (
        "You have reached the limit of friends, requests or blocks.",
        "Você chegou ao limite de amigos, pedidos ou bloqueios.",
        "Has llegado al límite de amigos, solicitudes o bloqueos.",
    ),
    "CHAT_NOT_ALLOWED": (
        "You cannot write here.",
        "Você não pode escrever aqui.",
        "No puedes escribir aquí.",
    ),
    "CHAT_PHRASES_ONLY": (
        "This table chats with quick phrases only.",
        "Nesta mesa o chat é só com frases rápidas.",
        "En esta mesa el chat es solo con frases rápidas.",
    ),
    "CHAT_ROOM_NOT_FOUND": (
        "There is no such room.",
        "Essa sala não existe.",
        "Esa sala no existe.",
    ),
    "SPECTATOR_CHAT_HELD": (
        "The spectators' chat opens to players when the match is over.",
        "O chat dos espectadores abre para os jogadores quando a partida acabar.",
        "El chat de los espectadores se abre a los jugadores al terminar la partida.",
    ),
    "MESSAGE_NOT_FOUND": (
        "That message does not exist.",
        "Essa mensagem não existe.",
        "Ese mensaje no existe.",
    ),
    "NOT_YOUR_MESSAGE": (
        "You can only change your own messages.",
        "Você só pode alterar as suas próprias mensagens.",
        "Solo puedes cambiar tus propios mensajes.",
    ),
    "EDIT_WINDOW_PASSED": (
        "That message can no longer be changed.",
        "Essa mensagem não pode mais ser alterada.",
        "Ese mensaje ya no se puede cambiar.",
    ),
    "CHAT_MUTED": (
        "Your chat is muted for now.",
        "O seu chat está silenciado por enquanto.",
        "Tu chat está silenciado por ahora.",
    ),
    "CHAT_BANNED": (
        "Your chat has been closed by the moderators.",
        "O seu chat foi fechado pelos moderadores.",
        "Los moderadores han cerrado tu chat.",
    ),
    "REPORT_NOT_FOUND": (
        "There is no such report.",
        "Essa denúncia não existe.",
        "Esa denuncia no existe.",
    ),
    "REPORT_RESOLVED": (
        "That report was already resolved.",
        "Essa denúncia já foi resolvida.",
        "Esa denuncia ya se resolvió.",
    ),
    "MUTE_LIMIT_REACHED": (
        "You have silenced as many players as you can.",
        "Você já silenciou o máximo de jogadores.",
        "Ya has silenciado al máximo de jugadores.",
    ),
    "NOT_AT_TABLE": (
        "Only a player at the table, or its owner, can invite to it.",
        "Só quem está sentado à mesa, ou o dono dela, pode convidar.",
        "Solo quien está sentado a la mesa, o su dueño, puede invitar.",
    ),
    "INVITATION_REFUSED": (
        "That player does not take your invitations.",
        "Esse jogador não aceita os seus convites.",
        "Ese jugador no acepta tus invitaciones.",
    ),
    "INVITATION_NOT_FOUND": (
        "There is no such invitation.",
        "Esse convite não existe.",
        "Esa invitación no existe.",
    ),
    "INVITATION_EXPIRED": (
        "The invitation has expired.",
        "O convite expirou.",
        "La invitación ha caducado.",
    ),
    "INVITATION_ANSWERED": (
        "The invitation has already been answered.",
        "O convite já foi respondido.",
        "La invitación ya fue respondida.",
    ),
    "INVITATION_LIMIT_REACHED": (
        "Too many invitations are waiting for an answer.",
        "Há convites demais esperando resposta.",
        "Hay demasiadas invitaciones esperando respuesta.",
    ),
}

__all__ = ["ROOM_MESSAGES"]
