"""Fakes of the use cases' ports, one module a port family (credentials, sessions,
games, quick play, notifications, the sweeper's), joined in ``InMemoryRepository``
(which also serves the admin's reads, AdminRepository); the players' chips
(``PlayersMemory``) and the tournaments (``TournamentsMemory``) beside it; the hub's
stand-in and a resolver of the tests' own."""

from .audit import AuditMemory
from .chat import ChatMemory
from .credentials import AppsMemory
from .friends import FriendsMemory
from .games import GamesMemory
from .hub import Notes
from .identities import IdentitiesMemory
from .invitations import InvitationsMemory
from .memory import InMemoryRepository
from .moderation import ModerationMemory
from .network import FakeResolver
from .notifications import NotificationsMemory
from .played_games import PlayedGamesMemory
from .players import PlayersMemory
from .presence import PresenceMemory
from .profiles import ProfilesMemory
from .quick_play import QuickPlayMemory
from .records import MemoryState, StoredDelivery, StoredGame, StoredSession, StoredToken
from .rematch import RematchMemory
from .sessions import SessionsMemory
from .sweeper import SweeperMemory
from .tournaments import TournamentsMemory

__all__ = [
    "AppsMemory",
    "AuditMemory",
    "ChatMemory",
    "FakeResolver",
    "FriendsMemory",
    "GamesMemory",
    "IdentitiesMemory",
    "InMemoryRepository",
    "InvitationsMemory",
    "MemoryState",
    "ModerationMemory",
    "Notes",
    "NotificationsMemory",
    "PlayedGamesMemory",
    "PlayersMemory",
    "PresenceMemory",
    "ProfilesMemory",
    "QuickPlayMemory",
    "RematchMemory",
    "SessionsMemory",
    "StoredDelivery",
    "StoredGame",
    "StoredSession",
    "StoredToken",
    "SweeperMemory",
    "TournamentsMemory",
]
