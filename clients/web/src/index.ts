// The typed TypeScript client of the Tranca service: the wrapper (client.ts), its
// errors, card helpers, and the generated messages and services (./gen/...).
export {
  type ChatRoomRef,
  type ChatSend,
  type ChatWatchOptions,
  DEFAULT_RETRY,
  type FriendChange,
  type InvitationChange,
  type ListChatReportsOptions,
  type ListInvitationsOptions,
  type ListFriendsOptions,
  type PlayerEventsOptions,
  type PresenceChange,
  type ResolveChatReportOptions,
  type RetryPolicy,
  type SubmitOptions,
  TrancaClient,
  type TrancaClientOptions,
  type WatchOptions,
  isOpen,
  moves,
  newRequestId,
  phraseLocale,
  rateLimitWait,
  rooms,
} from './client.js';
export {
  ERROR_DOMAIN,
  type Localized,
  TrancaError,
  codeName,
  toTrancaError,
  waitingTicketId,
} from './errors.js';
export { RANKS, SUITS, type Suit, groupBySuit, rankIndex, suitOf } from './cards.js';
export * from './gen/tranca/v1/game_pb.js';
export * from './gen/tranca/v1/session_pb.js';
export * from './gen/tranca/v1/quick_play_pb.js';
export * from './gen/tranca/v1/social_pb.js';
export * from './gen/tranca/v1/invitations_pb.js';
export {
  NotificationService,
  type ListPlayerEventsResponse,
  type PlayerEvent,
  PlayerEventSchema,
} from './gen/tranca/v1/notifications_pb.js';
export { AdminService, type AuditEntry } from './gen/tranca/v1/admin_pb.js';
export * from './gen/tranca/v1/chat_pb.js';
export { Code, ConnectError } from '@connectrpc/connect';
