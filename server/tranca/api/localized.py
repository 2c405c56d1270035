"""Refusals in the players' languages: the text of every reason in English, the
Portuguese of Brazil and Spanish, chosen by the call's ``accept-language`` metadata
(the standard HTTP header, which browsers and gRPC clients send as they are asked).

The reason codes stay as they are; this only words them. The server's own message
(English, with the particulars) stays the status message; the text here goes in a
``google.rpc.LocalizedMessage`` beside the ``ErrorInfo``, whose metadata carries
the refusal's particulars (the card, the meld, the seat, a limit) for an app that
writes its own text. Templates name only particulars every refusal of that reason
carries.
"""

from __future__ import annotations

from collections.abc import Mapping

from .localized_room import ROOM_MESSAGES
from .localized_table import TABLE_MESSAGES

ENGLISH, PORTUGUESE, SPANISH = "en", "pt-BR", "es"
LOCALES = (ENGLISH, PORTUGUESE, SPANISH)

# reason -> (English, Portuguese of Brazil, Spanish)
MESSAGES: dict[str, tuple[str, str, str]] = {
    # ----- the rules (tranca_rules/errors.py's Reason) -----------------------------------
    "MALFORMED_MOVE": (
        "The move cannot be read.",
        "Não foi possível ler a jogada.",
        "No se puede leer la jugada.",
    ),
    "DEAL_OVER": (
        "The deal is over.",
        "A mão já terminou.",
        "La mano ya terminó.",
    ),
    "NOT_YOUR_TURN": (
        "It is not your turn: seat {seat} is to play.",
        "Não é a sua vez: é a vez do lugar {seat}.",
        "No es tu turno: juega el asiento {seat}.",
    ),
    "MUST_DRAW_FIRST": (
        "Draw from the stock or take the discard pile first.",
        "Primeiro compre do monte ou pegue o lixo.",
        "Primero roba del mazo o toma el pozo.",
    ),
    "ALREADY_DREW": (
        "You have already drawn this turn.",
        "Você já comprou nesta vez.",
        "Ya robaste en este turno.",
    ),
    "STOCK_EMPTY": (
        "The stock is empty.",
        "O monte acabou.",
        "El mazo está vacío.",
    ),
    "DISCARD_PILE_EMPTY": (
        "The discard pile is empty.",
        "O lixo está vazio.",
        "El pozo está vacío.",
    ),
    "DISCARD_PILE_LOCKED": (
        "A black three locks the discard pile.",
        "Um três preto tranca o lixo.",
        "Un tres negro tranca el pozo.",
    ),
    "DISCARD_PILE_FROZEN": (
        "The discard pile is frozen: its top card may only go onto a natural set of its rank.",
        "O lixo está congelado: a carta de cima só pode ir para um jogo limpo do mesmo valor.",
        "El pozo está congelado: la carta de arriba solo va a un juego limpio de su valor.",
    ),
    "TOP_CARD_NOT_USED": (
        "The top card of the discard pile must be used at once.",
        "A carta de cima do lixo deve ser usada na hora.",
        "La carta de arriba del pozo debe usarse en el acto.",
    ),
    "CARD_NOT_IN_HAND": (
        "{card} is not in your hand.",
        "{card} não está na sua mão.",
        "{card} no está en tu mano.",
    ),
    "UNKNOWN_MELD": (
        "There is no meld {meld}.",
        "Não existe o jogo {meld}.",
        "No existe el juego {meld}.",
    ),
    "NOT_YOUR_MELD": (
        "Meld {meld} belongs to the other side.",
        "O jogo {meld} não é seu.",
        "El juego {meld} no es tuyo.",
    ),
    "INVALID_MELD": (
        "These cards make no meld.",
        "Essas cartas não formam um jogo.",
        "Estas cartas no forman un juego.",
    ),
    "TOO_MANY_WILDS": (
        "Too many wild cards in one meld.",
        "Coringas demais num só jogo.",
        "Demasiados comodines en un juego.",
    ),
    "TOO_FEW_NATURALS": (
        "The meld needs more natural cards.",
        "O jogo precisa de mais cartas naturais.",
        "El juego necesita más cartas naturales.",
    ),
    "MELD_KIND_NOT_ALLOWED": (
        "These rules do not allow this kind of meld.",
        "Estas regras não permitem esse tipo de jogo.",
        "Estas reglas no permiten ese tipo de juego.",
    ),
    "THREES_CANNOT_BE_MELDED": (
        "Threes cannot be melded.",
        "Os três não podem ser baixados.",
        "Los treses no se pueden bajar.",
    ),
    "BLACK_THREES_ONLY_WHEN_GOING_OUT": (
        "Black threes are melded only when going out.",
        "Três pretos só se baixam ao bater.",
        "Los treses negros solo se bajan al cerrar.",
    ),
    "CARD_DOES_NOT_FIT": (
        "The card does not fit that meld.",
        "A carta não serve nesse jogo.",
        "La carta no encaja en ese juego.",
    ),
    "WILD_REPLACEMENT_NOT_ALLOWED": (
        "These rules do not let a card take a wild card's place.",
        "Estas regras não deixam trocar um coringa.",
        "Estas reglas no permiten reemplazar un comodín.",
    ),
    "NOT_A_WILD_REPLACEMENT": (
        "The card takes no wild card's place: add it to the meld instead.",
        "A carta não substitui coringa: acrescente-a ao jogo.",
        "La carta no reemplaza ningún comodín: agrégala al juego.",
    ),
    "CANNOT_GO_OUT_WITHOUT_CLEAN_CANASTRA": (
        "You cannot go out without a clean canastra.",
        "Não pode bater sem uma canastra limpa.",
        "No puedes cerrar sin una canasta limpia.",
    ),
    "CANNOT_GO_OUT_WITHOUT_CANASTRA": (
        "You cannot go out without a canastra.",
        "Não pode bater sem uma canastra.",
        "No puedes cerrar sin una canasta.",
    ),
    "MUST_KEEP_A_CARD_TO_DISCARD": (
        "Keep a card to discard: you cannot go out yet.",
        "Guarde uma carta para descartar: ainda não pode bater.",
        "Guarda una carta para descartar: todavía no puedes cerrar.",
    ),
    "ONE_MELD_PER_TURN": (
        "These rules allow one new meld a turn: add cards to your melds instead.",
        "Estas regras permitem um jogo novo por vez: acrescente cartas aos seus jogos.",
        "Estas reglas permiten una combinación nueva por turno: agrega cartas a tus juegos.",
    ),
    # ----- requests and credentials -------------------------------------------------
    # The particulars of a malformed request are the server's text (``detail``, in
    # English), or a string's limit (VARIANTS).
    "MALFORMED_REQUEST": (
        "The request is not well formed: {detail}.",
        "A requisição está mal formada: {detail}.",
        "La solicitud está mal formada: {detail}.",
    ),
    "INVALID_RULES": (
        "These rules cannot be played.",
        "Essas regras não podem ser jogadas.",
        "Estas reglas no se pueden jugar.",
    ),
    "NO_CREDENTIALS": (
        "Sign in first.",
        "Entre primeiro.",
        "Inicia sesión primero.",
    ),
    "AMBIGUOUS_CREDENTIALS": (
        "The request carries its credentials twice.",
        "A requisição traz as credenciais duas vezes.",
        "La solicitud trae sus credenciales dos veces.",
    ),
    "BAD_API_KEY": (
        "The app's key is not valid.",
        "A chave do app não é válida.",
        "La clave de la app no es válida.",
    ),
    "BAD_TOKEN": (
        "Your seat's token is no longer valid.",
        "O token do seu lugar não vale mais.",
        "El token de tu asiento ya no es válido.",
    ),
    "BAD_SESSION": (
        "Your session has expired: sign in again.",
        "Sua sessão expirou: entre de novo.",
        "Tu sesión expiró: vuelve a iniciar sesión.",
    ),
    "BAD_REFRESH_TOKEN": (
        "Your session has ended: sign in again.",
        "Sua sessão terminou: entre de novo.",
        "Tu sesión terminó: vuelve a iniciar sesión.",
    ),
    "REFRESH_TOKEN_REUSED": (
        "Your session was ended for your safety: sign in again.",
        "Sua sessão foi encerrada por segurança: entre de novo.",
        "Tu sesión se cerró por seguridad: vuelve a iniciar sesión.",
    ),
    "APP_KEY_REQUIRED": (
        "Only the app's server may do this.",
        "Só o servidor do app pode fazer isso.",
        "Solo el servidor de la app puede hacer esto.",
    ),
    "PLAYER_TOKEN_REQUIRED": (
        "Only a seated player may do this.",
        "Só um jogador sentado pode fazer isso.",
        "Solo un jugador sentado puede hacer esto.",
    ),
    "SESSION_TOKEN_REQUIRED": (
        "Sign in to do this.",
        "Entre para fazer isso.",
        "Inicia sesión para hacer esto.",
    ),
    "SEAT_TOKEN_REQUIRED": (
        "Take a seat at the table first.",
        "Sente-se à mesa primeiro.",
        "Siéntate a la mesa primero.",
    ),
    "WRONG_GAME": (
        "Your seat is at another table.",
        "Seu lugar é em outra mesa.",
        "Tu asiento está en otra mesa.",
    ),
    "SPECTATOR": (
        "Spectators only watch.",
        "Espectadores só assistem.",
        "Los espectadores solo miran.",
    ),
    "NO_SPECTATORS": (
        "This table has no spectators.",
        "Esta mesa não aceita espectadores.",
        "Esta mesa no admite espectadores.",
    ),
    "FIXED_DECK_NOT_ALLOWED": (
        "This app may not choose the order of the cards.",
        "Este app não pode escolher a ordem das cartas.",
        "Esta app no puede elegir el orden de las cartas.",
    ),
    "GAME_NOT_FOUND": (
        "There is no such game.",
        "Esse jogo não existe.",
        "Esa partida no existe.",
    ),
    "GAME_FULL": (
        "The table is full.",
        "A mesa está cheia.",
        "La mesa está llena.",
    ),
    "INVITE_REQUIRED": (
        "This table is private: you need its invitation.",
        "Esta mesa é privada: precisa do convite.",
        "Esta mesa es privada: necesitas la invitación.",
    ),
    "REQUEST_ID_REUSED": (
        "This request was already made for something else.",
        "Esta requisição já foi usada para outra coisa.",
        "Esta solicitud ya se usó para otra cosa.",
    ),
    "VERSION_CONFLICT": (
        "The game has moved on: look at the table again.",
        "O jogo andou: olhe a mesa de novo.",
        "La partida avanzó: vuelve a mirar la mesa.",
    ),
    "RATE_LIMITED": (
        "Too many requests: wait a moment.",
        "Pedidos demais: espere um instante.",
        "Demasiadas solicitudes: espera un momento.",
    ),
    "TOO_MANY_WATCHES": (
        "Too many open views of the table.",
        "Visualizações da mesa demais abertas.",
        "Demasiadas vistas de la mesa abiertas.",
    ),
    "DATABASE_UNAVAILABLE": (
        "The server is busy: try again in a moment.",
        "O servidor está ocupado: tente de novo em instantes.",
        "El servidor está ocupado: inténtalo de nuevo en un momento.",
    ),
    "INTERNAL": (
        "Something went wrong on the server.",
        "Algo deu errado no servidor.",
        "Algo salió mal en el servidor.",
    ),
    # ----- the game's state ----------------------------------------------------------
    "SEAT_TAKEN": (
        "That seat is taken.",
        "Esse lugar está ocupado.",
        "Ese asiento está ocupado.",
    ),
    "SEATS_FREE": (
        "Not every seat is taken yet.",
        "Ainda há lugares vagos.",
        "Todavía hay asientos libres.",
    ),
    "GAME_STARTED": (
        "The game has already started.",
        "O jogo já começou.",
        "La partida ya empezó.",
    ),
    "GAME_NOT_STARTED": (
        "The game has not started yet.",
        "O jogo ainda não começou.",
        "La partida todavía no empezó.",
    ),
    "GAME_OVER": (
        "The game is over.",
        "O jogo terminou.",
        "La partida terminó.",
    ),
    "NO_SUCH_SEAT": (
        "There is no such seat.",
        "Esse lugar não existe.",
        "Ese asiento no existe.",
    ),
    "PLAYER_SEATED": (
        "You already have a seat at this table.",
        "Você já tem um lugar nesta mesa.",
        "Ya tienes un asiento en esta mesa.",
    ),
    "PLAYER_ID_REQUIRED": (
        "A rated table needs every player's identity.",
        "Uma mesa valendo ranking precisa da identidade de cada jogador.",
        "Una mesa puntuable necesita la identidad de cada jugador.",
    ),
    "ROBOT_SEATED": (
        "A robot plays this seat: take it back first.",
        "Um robô joga neste lugar: retome-o primeiro.",
        "Un robot juega este asiento: recupéralo primero.",
    ),
    "NOT_A_ROBOT_SEAT": (
        "No robot plays this seat.",
        "Nenhum robô joga neste lugar.",
        "Ningún robot juega este asiento.",
    ),
    "NO_ROBOTS": (
        "This table has no robots.",
        "Esta mesa não tem robôs.",
        "Esta mesa no tiene robots.",
    ),
    "ROBOT_LEVEL_NOT_ALLOWED": (
        "This server's robots do not play at that level: choose an easier one.",
        "Os robôs deste servidor não jogam nesse nível: escolha um mais fácil.",
        "Los robots de este servidor no juegan a ese nivel: elige uno más fácil.",
    ),
    "COMPETITIVE_TABLE": (
        "Robots do not sit at rated tables.",
        "Robôs não se sentam em mesas valendo ranking.",
        "Los robots no se sientan en mesas puntuables.",
    ),
    "SEAT_NOT_HELD": (
        "No robot holds this seat.",
        "Nenhum robô ocupa este lugar.",
        "Ningún robot ocupa este asiento.",
    ),
    "SEAT_FREE": (
        "That seat is free.",
        "Esse lugar está vago.",
        "Ese asiento está libre.",
    ),
    "REMOVED_FROM_GAME": (
        "You were removed from this game and cannot return to it.",
        "Você foi removido desta partida e não pode voltar a ela.",
        "Fuiste retirado de esta partida y no puedes volver a ella.",
    ),
    "ANNULMENT_NOT_ALLOWED": (
        "This table does not allow annulling the game.",
        "Esta mesa não permite anular a partida.",
        "Esta mesa no permite anular la partida.",
    ),
    "ALREADY_VOTED": (
        "You have already voted.",
        "Você já votou.",
        "Ya votaste.",
    ),
    "NOT_VERIFIABLE": (
        "This table's deals are not verifiable.",
        "As mãos desta mesa não são verificáveis.",
        "Las manos de esta mesa no son verificables.",
    ),
    "BAD_ENTROPY": (
        "That entropy cannot be used.",
        "Essa entropia não pode ser usada.",
        "Esa entropía no se puede usar.",
    ),
    "TOO_MUCH_ENTROPY": (
        "Enough entropy has been added.",
        "Já foi adicionada entropia suficiente.",
        "Ya se añadió suficiente entropía.",
    ),
    "INSUFFICIENT_CHIPS": (
        "Not enough chips to cover the stake or the entry fee.",
        "Fichas insuficientes para cobrir a aposta ou a inscrição.",
        "No hay fichas suficientes para cubrir la apuesta o la inscripción.",
    ),
    "PLATFORM_NOT_ENABLED": (
        "This server does not offer that yet.",
        "Este servidor ainda não oferece isso.",
        "Este servidor todavía no ofrece eso.",
    ),
    # ----- players, sessions, the lobby and quick play ------------------------------
    "APP_NOT_FOUND": (
        "There is no such app.",
        "Esse app não existe.",
        "Esa app no existe.",
    ),
    "DEVICE_SIGN_IN_DISABLED": (
        "This app does not let devices sign in.",
        "Este app não permite entrar pelo aparelho.",
        "Esta app no permite iniciar sesión con el dispositivo.",
    ),
    "IDENTITY_SIGN_IN_DISABLED": (
        "This app does not let players sign in with an account they already have.",
        "Este app não permite entrar com uma conta que você já tem.",
        "Esta app no permite iniciar sesión con una cuenta que ya tienes.",
    ),
    "IDENTITY_PROVIDER_UNKNOWN": (
        "This app does not accept sign-in with that provider.",
        "Este app não aceita entrar por esse provedor.",
        "Esta app no acepta iniciar sesión con ese proveedor.",
    ),
    "ID_TOKEN_INVALID": (
        "The sign-in could not be verified: {detail}",
        "Não foi possível verificar a entrada: {detail}",
        "No se pudo verificar el inicio de sesión: {detail}",
    ),
    "ID_TOKEN_REPLAYED": (
        "This sign-in was already used: sign in again.",
        "Esta entrada já foi usada: entre de novo.",
        "Este inicio de sesión ya se usó: vuelve a iniciar sesión.",
    ),
    "IDENTITY_KEYS_UNAVAILABLE": (
        "The sign-in provider cannot be reached right now: try again in a moment.",
        "Não foi possível falar com o provedor de entrada agora: tente de novo em instantes.",
        "No se puede contactar ahora con el proveedor de inicio de sesión:"
        " inténtalo en un momento.",
    ),
    "IDENTITY_ALREADY_LINKED": (
        "This account already belongs to another player: sign in with it instead.",
        "Esta conta já pertence a outro jogador: entre com ela.",
        "Esta cuenta ya pertenece a otro jugador: inicia sesión con ella.",
    ),
    "IDENTITY_NOT_LINKED": (
        "That account is not linked to this player.",
        "Essa conta não está vinculada a este jogador.",
        "Esa cuenta no está vinculada a este jugador.",
    ),
    "LAST_IDENTITY": (
        "This is the only way to sign in to this player: link another account first.",
        "Esta é a única forma de entrar com este jogador: vincule outra conta antes.",
        "Es la única forma de entrar con este jugador: vincula otra cuenta antes.",
    ),
    "DISPLAY_NAME_TAKEN": (
        "Another player already has that name: choose another.",
        "Outro jogador já tem esse nome: escolha outro.",
        "Otro jugador ya tiene ese nombre: elige otro.",
    ),
    "AVATAR_HOST_NOT_ALLOWED": (
        "This app does not take avatars from that site.",
        "Este app não aceita avatares desse site.",
        "Esta app no acepta avatares de ese sitio.",
    ),
    "AVATAR_INVALID": (
        "That picture cannot be used: send a PNG, JPEG, WebP or GIF of at most 200 KB.",
        "Essa imagem não pode ser usada: envie um PNG, JPEG, WebP ou GIF de até 200 KB.",
        "Esa imagen no se puede usar: envía un PNG, JPEG, WebP o GIF de hasta 200 KB.",
    ),
    "PROFILE_NOT_FOUND": (
        "That player has no profile.",
        "Esse jogador não tem perfil.",
        "Ese jugador no tiene perfil.",
    ),
    "NOT_YOUR_DATA": (
        "You can only download your own data.",
        "Você só pode baixar os seus próprios dados.",
        "Solo puedes descargar tus propios datos.",
    ),
    "DATA_RIGHTS_DISABLED": (
        "This app provides a copy of your data through its support.",
        "Este app fornece uma cópia dos seus dados pelo suporte.",
        "Esta app entrega una copia de tus datos a través de su soporte.",
    ),
    "PLAYER_STILL_PLAYING": (
        "Leave your tables, tournaments and queues first; then your data can be erased.",
        "Saia das suas mesas, torneios e filas primeiro; depois seus dados podem ser apagados.",
        "Sal primero de tus mesas, torneos y colas; después se podrán borrar tus datos.",
    ),
    "ACCOUNTS_SHARED_A_TABLE": (
        "These two accounts played at the same table or tournament, so they cannot be merged.",
        "Essas duas contas jogaram na mesma mesa ou torneio, então não podem ser unidas.",
        "Estas dos cuentas jugaron en la misma mesa o torneo, así que no se pueden unir.",
    ),
    "GUEST_SIGN_IN_DISABLED": (
        "This app does not let guests play.",
        "Este app não permite jogar como convidado.",
        "Esta app no permite jugar como invitado.",
    ),
    "BAD_PAIRING": (
        "The pairing must seat every entrant still in exactly once, at a table or with a bye.",
        "O emparceiramento deve pôr cada participante ainda no torneio uma única vez, numa "
        "mesa ou de folga.",
        "El emparejamiento debe ubicar a cada participante que sigue en el torneo una sola "
        "vez, en una mesa o con descanso.",
    ),
    "ENTRANT_EXISTS": (
        "This player is already registered in the tournament.",
        "Este jogador já está inscrito no torneio.",
        "Este jugador ya está inscrito en el torneo.",
    ),
    "NO_RESULT_YET": (
        "This table has no result to correct yet.",
        "Esta mesa ainda não tem resultado para corrigir.",
        "Esta mesa todavía no tiene resultado para corregir.",
    ),
    "PAIRING_NOT_ALLOWED": (
        "Only a Swiss round takes the organiser's own pairing.",
        "Só uma rodada suíça aceita o emparceiramento do organizador.",
        "Solo una ronda suiza acepta el emparejamiento del organizador.",
    ),
    "PRIZES_PAID": (
        "The prizes of this tournament are paid: its results are final.",
        "Os prêmios deste torneio já foram pagos: os resultados são definitivos.",
        "Los premios de este torneo ya se pagaron: los resultados son definitivos.",
    ),
    "RESULT_FIXED": (
        "This knockout result cannot be corrected so (it needs a winner, and is fixed once "
        "the next round is paired).",
        "Este resultado do mata-mata não pode ser corrigido assim (precisa de um vencedor e "
        "fica fixo depois que a próxima rodada é emparceirada).",
        "Este resultado de la eliminatoria no se puede corregir así (necesita un ganador y "
        "queda fijo cuando la siguiente ronda ya está emparejada).",
    ),
    "ROUND_NOT_PLAYED": (
        "That round has not been played yet.",
        "Essa rodada ainda não foi jogada.",
        "Esa ronda todavía no se jugó.",
    ),
    "ORIGIN_NOT_ALLOWED": (
        "This app does not accept calls from this web page.",
        "Este app não aceita chamadas desta página da web.",
        "Esta app no acepta llamadas desde esta página web.",
    ),
    "PLAYERS_MAY_NOT_CREATE_TABLES": (
        "Players may not create tables here: join one or use quick play.",
        "Aqui os jogadores não criam mesas: entre numa ou use o jogo rápido.",
        "Aquí los jugadores no crean mesas: únete a una o usa el juego rápido.",
    ),
    "PRESET_NOT_ALLOWED": (
        "These rules are not offered here.",
        "Estas regras não são oferecidas aqui.",
        "Estas reglas no se ofrecen aquí.",
    ),
    "COMPETITIVE_NOT_ALLOWED": (
        "Rated tables are not offered here.",
        "Mesas valendo ranking não são oferecidas aqui.",
        "Aquí no se ofrecen mesas puntuables.",
    ),
    "STAKE_NOT_ALLOWED": (
        "That stake is above what is allowed here.",
        "Essa aposta passa do permitido aqui.",
        "Esa apuesta supera lo permitido aquí.",
    ),
    # The social room's refusals (friends, chat, moderation, invitations):
    **ROOM_MESSAGES,
    **TABLE_MESSAGES,
    "NOT_YOUR_PLAYER": (
        "You can only act for yourself.",
        "Você só pode agir por si mesmo.",
        "Solo puedes actuar por ti.",
    ),
    "TICKET_NOT_FOUND": (
        "There is no such place in the queue.",
        "Esse lugar na fila não existe.",
        "Ese lugar en la cola no existe.",
    ),
    "ALREADY_WAITING": (
        "You are already waiting for a table.",
        "Você já está esperando uma mesa.",
        "Ya estás esperando una mesa.",
    ),
    "PARTY_NOT_FORMING": (
        "This invitation is no longer open.",
        "Este convite não está mais aberto.",
        "Esta invitación ya no está abierta.",
    ),
    "GRANT_ID_REUSED": (
        "This grant was already made for something else.",
        "Este crédito já foi usado para outra coisa.",
        "Esta concesión ya se usó para otra cosa.",
    ),
    "UNKNOWN_EVENT_KIND": (
        "There is no such kind of event.",
        "Esse tipo de evento não existe.",
        "Ese tipo de evento no existe.",
    ),
    "BAD_WEBHOOK_URL": (
        "That webhook address cannot be used.",
        "Esse endereço de webhook não pode ser usado.",
        "Esa dirección de webhook no se puede usar.",
    ),
    "WEBHOOK_URL_FORBIDDEN": (
        "That webhook address points into a private network: use a public address.",
        "Esse endereço de webhook aponta para uma rede privada: use um endereço público.",
        "Esa dirección de webhook apunta a una red privada: usa una dirección pública.",
    ),
    "WEBHOOK_URL_UNRESOLVED": (
        "The webhook address's host name cannot be found.",
        "O nome do servidor do endereço de webhook não foi encontrado.",
        "No se encuentra el nombre del servidor de la dirección de webhook.",
    ),
    "WEBHOOK_NOT_FOUND": (
        "The app has no webhook.",
        "O app não tem webhook.",
        "La app no tiene webhook.",
    ),
    "NO_WEBHOOK": (
        "The app has no webhook.",
        "O app não tem webhook.",
        "La app no tiene webhook.",
    ),
    "DELIVERY_NOT_FOUND": (
        "There is no such delivery.",
        "Essa entrega não existe.",
        "Esa entrega no existe.",
    ),
    "DELIVERY_NOT_FAILED": (
        "Only failed deliveries are sent again.",
        "Só entregas que falharam são reenviadas.",
        "Solo se reenvían las entregas fallidas.",
    ),
    # ----- tournaments ----------------------------------------------------------------
    "BAD_TOURNAMENT": (
        "This tournament cannot be set up that way.",
        "Este torneio não pode ser montado assim.",
        "Este torneo no se puede armar así.",
    ),
    "TOURNAMENT_NOT_FOUND": (
        "There is no such tournament.",
        "Esse torneio não existe.",
        "Ese torneo no existe.",
    ),
    "TOURNAMENT_OVER": (
        "The tournament is over.",
        "O torneio terminou.",
        "El torneo terminó.",
    ),
    "TOURNAMENT_CONFLICT": (
        "The tournament kept changing: try again.",
        "O torneio mudou enquanto isso: tente de novo.",
        "El torneo cambió mientras tanto: inténtalo de nuevo.",
    ),
    "REGISTRATION_CLOSED": (
        "Registration for this tournament is closed.",
        "As inscrições deste torneio estão encerradas.",
        "La inscripción a este torneo está cerrada.",
    ),
    "TOURNAMENT_FULL": (
        "The tournament is full.",
        "O torneio está lotado.",
        "El torneo está completo.",
    ),
    "NO_CHECK_IN": (
        "This tournament has no check-in.",
        "Este torneio não tem confirmação de presença.",
        "Este torneo no tiene confirmación de asistencia.",
    ),
    "CHECK_IN_CLOSED": (
        "Check-in is not open now.",
        "A confirmação de presença não está aberta agora.",
        "La confirmación de asistencia no está abierta ahora.",
    ),
    "ENTRANT_NOT_FOUND": (
        "There is no such entrant.",
        "Esse participante não existe.",
        "Ese participante no existe.",
    ),
    "NOT_ENOUGH_ENTRANTS": (
        "Not enough entrants for a round.",
        "Participantes insuficientes para uma rodada.",
        "No hay participantes suficientes para una ronda.",
    ),
    "ROUND_NOT_COMPLETE": (
        "The round still has tables without a result.",
        "A rodada ainda tem mesas sem resultado.",
        "La ronda todavía tiene mesas sin resultado.",
    ),
    "ROUND_NOT_CURRENT": (
        "That is not the current round.",
        "Essa não é a rodada atual.",
        "Esa no es la ronda actual.",
    ),
    "TABLE_DECIDED": (
        "That table already has its game's result: a forfeit can no longer change it.",
        "Essa mesa já tem o resultado da sua partida: um W.O. não pode mais mudá-lo.",
        "Esa mesa ya tiene el resultado de su partida: una incomparecencia ya no puede cambiarlo.",
    ),
    "ROUND_OUT_OF_ORDER": (
        "Rounds start in order.",
        "As rodadas começam em ordem.",
        "Las rondas empiezan en orden.",
    ),
}


# Texts of a reason by its ``problem`` particular, where the refusal says which
# limit it broke: reason -> problem -> (English, Portuguese of Brazil, Spanish). A
# refusal without that particular, or with another value, takes MESSAGES' text.
VARIANTS: dict[str, dict[str, tuple[str, str, str]]] = {
    "MALFORMED_REQUEST": {
        "too_long": (
            "{field} is too long: at most {max_chars} characters.",
            "{field} é longo demais: no máximo {max_chars} caracteres.",
            "{field} es demasiado largo: como máximo {max_chars} caracteres.",
        ),
        "control_character": (
            "{field} holds a control character, which is not allowed.",
            "{field} contém um caractere de controle, o que não é permitido.",
            "{field} contiene un carácter de control, que no está permitido.",
        ),
    },
}


def negotiate(accept_language: str) -> str:
    """The locale to answer in for an ``accept-language`` value: the first of its
    languages, by quality, that is Portuguese (the Portuguese of Brazil), Spanish or
    English; English when none is."""
    wanted: list[tuple[float, int, str]] = []
    for index, part in enumerate(accept_language.split(",")):
        tag, _, rest = part.strip().partition(";")
        quality = 1.0
        if rest.strip().startswith("q="):
            try:
                quality = float(rest.strip()[2:])
            except ValueError:
                quality = 0.0
        if tag and quality > 0:
            wanted.append((-quality, index, tag.lower()))
    for _, _, tag in sorted(wanted):
        language = tag.split("-")[0]
        if language == "pt":
            return PORTUGUESE
        if language == "es":
            return SPANISH
        if language == "en":
            return ENGLISH
    return ENGLISH


class _Particulars(dict[str, str]):
    """A template's particulars; one missing (a refusal raised without it) shows as
    an empty mark rather than failing the refusal."""

    def __missing__(self, key: str) -> str:
        return "?"


def localized(reason: str, locale: str, params: Mapping[str, str]) -> str | None:
    """The reason's text in ``locale`` with its particulars; None for a reason this
    catalogue does not word (the English status message then stands alone)."""
    texts = MESSAGES.get(reason)
    if texts is None:
        return None
    texts = VARIANTS.get(reason, {}).get(params.get("problem", ""), texts)
    template = texts[LOCALES.index(locale)] if locale in LOCALES else texts[0]
    return template.format_map(_Particulars(params))


__all__ = ["LOCALES", "MESSAGES", "VARIANTS", "localized", "negotiate"]
