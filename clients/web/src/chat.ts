// Chat and its moderation (ChatService): rooms, messages sent once, edits and
// deletes, history, the stream of a room that reopens where it dropped, quick
// phrases; mutes, reports and their resolutions. Joined to TrancaClient (client.ts).
import { create } from '@bufbuild/protobuf';

import { TrancaError, required } from './errors.js';
import {
  type ChatMessage,
  ChatMessageSchema,
  type ChatReport,
  type ChatRoom,
  type ListChatMessagesResponse,
  type ListChatReportsResponse,
  type QuickPhrase,
  ReportStatus,
  type Resolution,
  RoomKind,
  type WatchChatResponse,
} from './gen/tranca/v1/chat_pb.js';
import { newRequestId, resumeStream } from './retry.js';
import type { TrancaClient } from './client.js';

/** A chat room (ChatService), by kind and id. */
export type ChatRoomRef = Pick<ChatRoom, 'kind' | 'id'>;

/** Builders of chat rooms, as ChatService's calls take them. */
export const rooms = Object.freeze({
  /** A table's players' room: its players write (their seat's token), its spectators read. */
  table: (gameId: string): ChatRoomRef => ({ kind: RoomKind.TABLE, id: gameId }),
  /** A table's spectators' room: its spectators write; its players read at a practice table, at a rated one once the match is over. */
  spectators: (gameId: string): ChatRoomRef => ({ kind: RoomKind.SPECTATORS, id: gameId }),
  /** One of the app's lobby rooms, by name ("main"), with a player's session. */
  lobby: (name: string): ChatRoomRef => ({ kind: RoomKind.LOBBY, id: name }),
  /** The conversation with a friend, by their player id, with a player's session. */
  direct: (playerId: string): ChatRoomRef => ({ kind: RoomKind.DIRECT, id: playerId }),
});

/** A message to post: free text or a quick phrase's id (one of the two). */
export interface ChatSend {
  text?: string;
  phrase?: string;
  /** The author's id of this message (default: a new UUID); every retry sends the same one. */
  clientMessageId?: string;
  signal?: AbortSignal;
}

export interface ChatWatchOptions {
  /** Reconnections in a row without a message before the error is thrown (default 8). */
  maxReconnects?: number;
  /** Stops the watch (the iterator then ends). */
  signal?: AbortSignal;
  /** Told of each reconnection: the message id it resumes after and the error that ended the stream. */
  onReconnect?: (afterId: bigint, error: TrancaError | null) => void;
}

export interface ListChatReportsOptions {
  /** Only reports in this status (the default: any). */
  status?: ReportStatus;
  /** Reports per page: 1 to 200 (0: 50). */
  pageSize?: number;
  /** The previous page's nextPageToken, exactly as it came; empty for the first page. */
  pageToken?: string;
}

export interface ResolveChatReportOptions {
  /** How long a mute (1 to 2,592,000) or a ban (0: no end) lasts, in seconds; 0 for a dismissal or a warning. */
  seconds?: bigint | number;
  /** The administrator's note, sent to the author with a warning or a sanction (at most 500 characters). */
  note?: string;
}

/** The language ListQuickPhrases is asked in: "pt-BR" is "pt", "es-AR" is "es"; others as given. */
export function phraseLocale(locale: string): string {
  const l = locale.toLowerCase();
  for (const short of ['pt', 'es', 'en']) if (l === short || l.startsWith(`${short}-`)) return short;
  return locale;
}

/** Chat and its moderation: TrancaClient's methods. */
export class ChatCalls {
  // A table's rooms with its seat's token (a player's, or a spectator's); the lobby's and
  // direct rooms with a player's session. rooms.table(gameId) and the like name them.

  /**
   * Posts a message (free text, or a quick phrase's id) to a room; the message as kept.
   * Every attempt carries the same client message id (a new UUID unless given), so a
   * message whose answer was lost is sent again and kept once: the retry is answered
   * with the message already kept. Refusals: CHAT_PHRASES_ONLY (free text at a table
   * of quick phrases), CHAT_NOT_ALLOWED, SPECTATOR_CHAT_HELD, NOT_FRIENDS,
   * RATE_LIMITED (sent again after the server's hint, up to the retry policy's
   * attempts), MALFORMED_REQUEST.
   */
  async sendChatMessage(this: TrancaClient, room: ChatRoomRef, message: ChatSend): Promise<ChatMessage> {
    const request = {
      room: { kind: room.kind, id: room.id },
      text: message.text ?? '',
      phrase: message.phrase ?? '',
      clientMessageId: message.clientMessageId || newRequestId(),
    };
    const out = await this.call((o) => this.chat.sendChatMessage(request, o), {
      retry: true,
      credential: 'player',
    }, message.signal);
    return required(out.message);
  }

  /**
   * Changes the text of one's own message, within 5 minutes of posting it; the
   * amendment (kind "edit") the room's readers receive. Retried after a transport
   * failure: a repeat leaves the same text. EDIT_WINDOW_PASSED, NOT_YOUR_MESSAGE,
   * MESSAGE_NOT_FOUND.
   */
  async editChatMessage(
    this: TrancaClient,
    room: ChatRoomRef,
    messageId: bigint | number,
    text: string,
  ): Promise<ChatMessage> {
    const request = { room: { kind: room.kind, id: room.id }, messageId: BigInt(messageId), text };
    const out = await this.call((o) => this.chat.editChatMessage(request, o), {
      retry: true,
      credential: 'player',
    });
    return required(out.amendment);
  }

  /**
   * Deletes one's own message, within 5 minutes; the amendment (kind "delete") the
   * room's readers receive. Retried after a transport failure; a retry answered
   * MESSAGE_NOT_FOUND found the message deleted by the attempt whose answer was lost,
   * and returns an amendment of its own making (id 0).
   */
  async deleteChatMessage(
    this: TrancaClient,
    room: ChatRoomRef,
    messageId: bigint | number,
  ): Promise<ChatMessage> {
    const request = { room: { kind: room.kind, id: room.id }, messageId: BigInt(messageId) };
    const before = this.retries.transient;
    try {
      const out = await this.call((o) => this.chat.deleteChatMessage(request, o), {
        retry: true,
        credential: 'player',
      });
      return required(out.amendment);
    } catch (err) {
      if (err instanceof TrancaError && err.reason === 'MESSAGE_NOT_FOUND' && this.retries.transient > before) {
        return create(ChatMessageSchema, { kind: 'delete', targetId: request.messageId, deleted: true });
      }
      throw err;
    }
  }

  /**
   * A page of a room's history as it is now (edited texts, deleted messages without
   * their text), oldest first: the newest page below `beforeId` (0: the newest);
   * `nextBeforeId` is where the older page starts (0: none). pageSize 1 to 200 (0: 50).
   */
  listChatMessages(
    this: TrancaClient,
    room: ChatRoomRef,
    request: { beforeId?: bigint | number; pageSize?: number } = {},
  ): Promise<ListChatMessagesResponse> {
    const full = {
      room: { kind: room.kind, id: room.id },
      beforeId: BigInt(request.beforeId ?? 0n),
      pageSize: request.pageSize ?? 0,
    };
    return this.call((o) => this.chat.listChatMessages(full, o), { retry: true, credential: 'player' });
  }

  /**
   * A room's messages and amendments (kind "edit" or "delete", naming the message in
   * targetId) after `afterId` (0: from the oldest kept), in order, then each new one as
   * it is posted. A stream that drops is opened again after the last message delivered,
   * after a backoff; after maxReconnects reconnections in a row without a message the
   * error is thrown (a refusal, SPECTATOR_CHAT_HELD say, at once). Ends when `signal`
   * aborts.
   */
  async *watchChat(
    this: TrancaClient,
    room: ChatRoomRef,
    afterId: bigint | number = 0n,
    options: ChatWatchOptions = {},
  ): AsyncGenerator<ChatMessage> {
    yield* resumeStream(this, BigInt(afterId), options, {
      open: (after, signal) =>
        this.chat.watchChat(
          { room: { kind: room.kind, id: room.id }, afterId: after },
          { headers: this.headers('player'), signal },
        ),
      read: (update: WatchChatResponse) => {
        const message = required(update.message);
        return { item: message, position: message.id };
      },
      endless: 'the chat stream kept ending',
    });
  }

  /**
   * The quick phrases, with their words in `locale` ("en", "pt", "es"; "pt-BR" is
   * Portuguese; empty: the client's language, else English).
   */
  async listQuickPhrases(this: TrancaClient, locale = ''): Promise<QuickPhrase[]> {
    const out = await this.call(
      (o) => this.chat.listQuickPhrases({ locale: phraseLocale(locale || this.language) }, o),
      { retry: true, credential: 'player' },
    );
    return out.phrases;
  }

  // ----- chat's moderation ----------------------------------------------------------------
  //
  // A player's session mutes players (their messages hidden from it in every room) and
  // reports messages; the app's key pages the reports and resolves them. Muting,
  // unmuting and reporting are idempotent (again: changed = false, or the same report),
  // so they are retried after a transport failure; a resolution is not.

  /**
   * Hides a player's messages from the session's player in every room (at most 1,000
   * players: MUTE_LIMIT_REACHED). Whether anything changed (false: muted already).
   */
  async muteChatPlayer(this: TrancaClient, playerId: string): Promise<boolean> {
    const out = await this.call((o) => this.chat.muteChatPlayer({ playerId }, o), {
      retry: true,
      credential: 'player',
    });
    return out.changed;
  }

  /** Shows a muted player's messages again. Whether anything changed (false: not muted). */
  async unmuteChatPlayer(this: TrancaClient, playerId: string): Promise<boolean> {
    const out = await this.call((o) => this.chat.unmuteChatPlayer({ playerId }, o), {
      retry: true,
      credential: 'player',
    });
    return out.changed;
  }

  /** The ids of the players the session's player muted, in order. */
  async listMutedChatPlayers(this: TrancaClient): Promise<string[]> {
    const out = await this.call((o) => this.chat.listMutedChatPlayers({}, o), {
      retry: true,
      credential: 'player',
    });
    return out.playerIds;
  }

  /**
   * Reports another player's message of a room the caller reads, with a reason (at
   * most 500 characters; may be empty), into the app's queue; the report, with the
   * messages around it as they are now. A message is reported once by a player: again
   * (a retry after a lost answer) is the same report. MESSAGE_NOT_FOUND,
   * CHAT_NOT_ALLOWED (a room the caller does not read), MALFORMED_REQUEST (the caller's own message).
   */
  async reportChatMessage(
    this: TrancaClient,
    room: ChatRoomRef,
    messageId: bigint | number,
    reason = '',
  ): Promise<ChatReport> {
    const request = { room: { kind: room.kind, id: room.id }, messageId: BigInt(messageId), reason };
    const out = await this.call((o) => this.chat.reportChatMessage(request, o), {
      retry: true,
      credential: 'player',
    });
    return required(out.report);
  }

  /** A page of the app's queue of reports, newest first (the app's key only: APP_KEY_REQUIRED). */
  listChatReports(
    this: TrancaClient,
    options: ListChatReportsOptions = {},
  ): Promise<ListChatReportsResponse> {
    const request = {
      status: options.status ?? ReportStatus.UNSPECIFIED,
      pageSize: options.pageSize ?? 0,
      pageToken: options.pageToken ?? '',
    };
    return this.call((o) => this.chat.listChatReports(request, o), { retry: true, credential: 'app' });
  }

  /**
   * Resolves an open report (the app's key only): dismiss, warn the author (a
   * "chat_warning" event), mute their chat for `seconds` or ban it (0: no end; a
   * "chat_sanction" event, and their messages refused CHAT_MUTED or CHAT_BANNED until
   * it ends). The report resolved. Not retried after a transport failure: a report is
   * resolved once, and a repeat answers REPORT_RESOLVED (listChatReports tells whether
   * a lost answer's resolution was made).
   */
  async resolveChatReport(
    this: TrancaClient,
    reportId: bigint | number,
    resolution: Resolution,
    options: ResolveChatReportOptions = {},
  ): Promise<ChatReport> {
    const request = {
      reportId: BigInt(reportId),
      resolution,
      seconds: BigInt(options.seconds ?? 0n),
      note: options.note ?? '',
    };
    const out = await this.call((o) => this.chat.resolveChatReport(request, o), {
      retry: false,
      credential: 'app',
    });
    return required(out.report);
  }
}
