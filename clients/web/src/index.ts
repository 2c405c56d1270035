// The typed TypeScript client of the Tranca service: the wrapper (client.ts, with each
// service's calls in sessions.ts, social.ts, invitations.ts, events.ts, chat.ts and
// quickplay.ts, and retry.ts), its errors, card helpers, and the generated messages
// and services (./gen/...).
export {
  type SubmitOptions,
  type TableOptionsInit,
  TrancaClient,
  type TrancaClientOptions,
  type WatchOptions,
  moves,
} from './client.js';
export { DEFAULT_RETRY, type RetryPolicy, newRequestId, rateLimitWait } from './retry.js';
export {
  type ChatRoomRef,
  type ChatSend,
  type ChatWatchOptions,
  type ListChatReportsOptions,
  type ResolveChatReportOptions,
  phraseLocale,
  rooms,
} from './chat.js';
export { type FriendChange, type ListFriendsOptions, type PresenceChange } from './social.js';
export { type InvitationChange, type ListInvitationsOptions } from './invitations.js';
export { type ListTableMatchesOptions } from './tables.js';
export { type PlayerEventsOptions } from './events.js';
export { isOpen } from './quickplay.js';
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
export * from './gen/tranca/v1/tables_pb.js';
export * from './gen/tranca/v1/progression_pb.js';
export {
  NotificationService,
  type ListPlayerEventsResponse,
  type PlayerEvent,
  PlayerEventSchema,
} from './gen/tranca/v1/notifications_pb.js';
export { AdminService, type AuditEntry } from './gen/tranca/v1/admin_pb.js';
export * from './gen/tranca/v1/chat_pb.js';
export { Code, ConnectError } from '@connectrpc/connect';
