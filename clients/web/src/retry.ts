// Sending again, safely: the retry policy and its waits, the request ids that make a
// repeat harmless, the rate limit's hint, and the server streams reopened after the
// last position they delivered (a game's version, an event's or a message's id), so
// nothing is missed or repeated.
import { Code } from '@connectrpc/connect';

import { TrancaError, toTrancaError } from './errors.js';

/** How calls that are safe to repeat are retried after a transport failure. */
export interface RetryPolicy {
  /** Attempts in all, the first included (1: no retries). */
  maxAttempts: number;
  /** The wait before the first retry; it doubles each time, with jitter. */
  initialBackoffMs: number;
  /** The longest wait. */
  maxBackoffMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = Object.freeze({
  maxAttempts: 4,
  initialBackoffMs: 100,
  maxBackoffMs: 2000,
});

/** Which credential a call sends when the client holds both. */
export type Credential = 'app' | 'player';

/** How one unary call is sent (TrancaClient.call). */
export interface CallPolicy {
  /** Send again after a transport failure (reads, and calls with a request id). */
  retry: boolean;
  /** Send again after ABORTED: calls that send no expected version, which lost a race for the row and did nothing. */
  conflicts?: boolean;
  credential: Credential;
}

/** @internal Waits `ms`; rejects with the signal's reason when it aborts. */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** A random request id (a UUID v4), also where crypto.randomUUID is missing (plain http on a LAN address). */
export function newRequestId(): string {
  const c = globalThis.crypto;
  if (typeof c.randomUUID === 'function') return c.randomUUID();
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The milliseconds to wait before sending a rate-limited call again, or null. */
export function rateLimitWait(err: TrancaError): number | null {
  if (err.code !== Code.ResourceExhausted || err.reason !== 'RATE_LIMITED') return null;
  const hint = Number.parseInt(err.metadata.retry_after_ms ?? '', 10);
  return (Number.isFinite(hint) && hint > 0 ? hint : 100) + Math.floor(Math.random() * 20);
}

/** How a resumed stream's watch goes on: the options every watch takes. */
export interface ResumeOptions {
  /** Reconnections in a row without an update before the error is thrown (default 8). */
  maxReconnects?: number;
  /** Stops the watch (the iterator then ends). */
  signal?: AbortSignal;
  /** Told of each reconnection: the position it resumes from and the error that ended the stream. */
  onReconnect?: (position: bigint, error: TrancaError | null) => void;
}

/** A server stream read from a position (a version, an id), and how to read its updates. */
export interface ResumableStream<U, T> {
  /** Opens the stream at `position` (its first update comes after it, or is it). */
  open(position: bigint, signal: AbortSignal | undefined): AsyncIterable<U>;
  /** What an update delivers and its position (throws where the update lacks them). */
  read(update: U): { item: T; position: bigint };
  /** Whether the stream ends after this item, once it is delivered (default: never). */
  ends?(item: T): boolean;
  /** Whether an update at `position` was delivered already (default: position <= last). */
  delivered?(position: bigint, last: bigint): boolean;
  /** The error thrown when the stream keeps ending without one: "the chat stream kept ending". */
  endless: string;
}

/**
 * @internal The items of a server stream from `from`, in order, each once. A stream
 * that drops (a transport failure, the rate limit, or an end) is opened again from
 * the last position delivered, after a backoff (the rate limit's hint where it gave
 * one); after maxReconnects reconnections in a row without an update the error is
 * thrown, and a refusal at once. Ends after the item `ends` names, or when `signal` aborts.
 */
export async function* resumeStream<U, T>(
  client: { retries: { transient: number }; backoff(attempt: number): number },
  from: bigint,
  options: ResumeOptions,
  stream: ResumableStream<U, T>,
): AsyncGenerator<T> {
  let last = from;
  let failures = 0;
  const maxReconnects = options.maxReconnects ?? 8;
  const { signal } = options;
  const delivered = stream.delivered ?? ((position: bigint, before: bigint) => position <= before);
  for (;;) {
    let error: TrancaError | null = null;
    try {
      for await (const update of stream.open(last, signal)) {
        failures = 0;
        const { item, position } = stream.read(update);
        if (delivered(position, last)) continue; // never twice
        last = position;
        yield item;
        if (stream.ends?.(item)) return;
      }
    } catch (raw) {
      if (signal?.aborted) return;
      error = toTrancaError(raw);
      const limited = rateLimitWait(error);
      if (!error.transient && limited === null) throw error;
    }
    if (signal?.aborted) return;
    failures += 1;
    if (failures > maxReconnects) {
      throw error ?? new TrancaError(Code.Unavailable, stream.endless, null, null);
    }
    client.retries.transient += 1;
    options.onReconnect?.(last, error);
    const limited = error ? rateLimitWait(error) : null;
    try {
      await sleep(limited ?? client.backoff(failures), signal);
    } catch {
      return;
    }
  }
}
