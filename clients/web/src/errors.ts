// Typed errors: a failed call as the service describes it (google.rpc.ErrorInfo and
// google.rpc.LocalizedMessage in the error details), whichever protocol carried it.
import { Code, ConnectError } from '@connectrpc/connect';

import { ErrorInfoSchema, LocalizedMessageSchema } from './gen/google/rpc/error_details_pb.js';

/** The ErrorInfo domain of the service's own refusals. */
export const ERROR_DOMAIN = 'tranca.v1';

/** A refusal worded for a player: google.rpc.LocalizedMessage. */
export interface Localized {
  /** The language it is in ("pt-BR", "es", "en"). */
  locale: string;
  /** The text. */
  message: string;
}

/**
 * A failed call. `reason` is the service's stable machine code ("NOT_YOUR_TURN",
 * "VERSION_CONFLICT", ...; "" for a transport failure), `metadata` the refusal's
 * particulars ("seat", "card", "meld", "current_version", "retry_after_ms"), and
 * `localized` the refusal in the language the client asked for (its `language`
 * option), when the service sent one. `message` is the localized text when there is
 * one, else the service's English message.
 */
export class TrancaError extends Error {
  override readonly name = 'TrancaError';
  /** The status code (Code.FailedPrecondition, ...). */
  readonly code: Code;
  /** The code's name, as gRPC spells it ("FAILED_PRECONDITION"). */
  readonly codeName: string;
  /** ErrorInfo.reason of the domain "tranca.v1", or "". */
  readonly reason: string;
  /** ErrorInfo.domain, or "". */
  readonly domain: string;
  /** ErrorInfo.metadata. */
  readonly metadata: Readonly<Record<string, string>>;
  /** The LocalizedMessage, or null. */
  readonly localized: Localized | null;
  /** The service's own (English) message. */
  readonly rawMessage: string;

  constructor(
    code: Code,
    rawMessage: string,
    info: { reason: string; domain: string; metadata: Record<string, string> } | null,
    localized: Localized | null,
    options?: { cause?: unknown },
  ) {
    super(localized?.message || rawMessage, options);
    this.code = code;
    this.codeName = codeName(code);
    this.reason = info && info.domain === ERROR_DOMAIN ? info.reason : '';
    this.domain = info?.domain ?? '';
    this.metadata = Object.freeze({ ...(info?.metadata ?? {}) });
    this.localized = localized;
    this.rawMessage = rawMessage;
  }

  /** True for a failure of the way there, not a refusal: worth sending again when the call is safe to repeat. */
  get transient(): boolean {
    if (this.code === Code.Unavailable || this.code === Code.DeadlineExceeded) return true;
    // A fetch that failed (connection refused or dropped) is Unknown with no details.
    return this.code === Code.Unknown && this.domain === '';
  }

  /** "FAILED_PRECONDITION/NOT_YOUR_TURN: ..." */
  describe(): string {
    return `${this.codeName}${this.reason ? `/${this.reason}` : ''}: ${this.rawMessage}`;
  }
}

/** gRPC's name of a code: Code.FailedPrecondition -> "FAILED_PRECONDITION". */
export function codeName(code: Code): string {
  const name = Code[code] as string | undefined;
  return name ? name.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase() : String(code);
}

/** Any error thrown by a call, as a TrancaError (the ConnectError's details read). */
export function toTrancaError(err: unknown): TrancaError {
  if (err instanceof TrancaError) return err;
  const ce = ConnectError.from(err);
  const info = ce.findDetails(ErrorInfoSchema)[0];
  const text = ce.findDetails(LocalizedMessageSchema)[0];
  return new TrancaError(
    ce.code,
    ce.rawMessage,
    info ? { reason: info.reason, domain: info.domain, metadata: { ...info.metadata } } : null,
    text ? { locale: text.locale, message: text.message } : null,
    { cause: err },
  );
}

/**
 * The ticket an ALREADY_WAITING refusal names (ErrorInfo metadata "ticket_id"), to
 * follow or cancel; null for another refusal, or when the player who waits is a
 * session's partner rather than its own player.
 */
export function waitingTicketId(err: unknown): string | null {
  if (!(err instanceof TrancaError) || err.reason !== 'ALREADY_WAITING') return null;
  return err.metadata['ticket_id'] || null;
}

/** @internal A field the contract promises in an answer; an Error where the answer lacks it. */
export function required<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('the answer lacks a field the contract promises');
  return value;
}
