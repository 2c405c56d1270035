// A player's presence in words (SocialService's Presence): the status, how long ago
// they were last seen (Intl.RelativeTimeFormat, in the page's language), and the
// tables they sit at. Pure: the component shows what this says.
import { type Presence, PresenceStatus } from '../../src/index.js';
import { type Lang, tr } from './i18n/index.js';

/** A status as the page's attributes name it ("hidden": the player's choice hides it). */
export type StatusName = 'online' | 'away' | 'offline' | 'hidden';

export function statusName(p: Presence | undefined): StatusName {
  if (!p?.visible) return 'hidden';
  switch (p.status) {
    case PresenceStatus.ONLINE:
      return 'online';
    case PresenceStatus.AWAY:
      return 'away';
    default:
      return 'offline';
  }
}

/** "5 minutes ago", "2 hours ago", "yesterday": how long ago `ms` was, `now` being now. */
export function ago(lang: Lang, ms: number, now: number): string {
  const words = new Intl.RelativeTimeFormat(lang, { numeric: 'auto' });
  const minutes = Math.round((ms - now) / 60_000);
  if (minutes > -60) return words.format(Math.min(0, minutes), 'minute');
  const hours = Math.round(minutes / 60);
  if (hours > -24) return words.format(hours, 'hour');
  return words.format(Math.round(hours / 24), 'day');
}

/** The presence in words: "Online", "Away, seen 5 minutes ago", "Offline, seen yesterday", then the table. */
export function presenceWords(lang: Lang, p: Presence, now: number): string {
  const name = statusName(p);
  if (name === 'hidden') return '';
  const parts = [tr(lang, name === 'online' ? 'presenceOnline' : name === 'away' ? 'presenceAway' : 'presenceOffline')];
  const seen = Number(p.lastSeenMs);
  if (name !== 'online' && seen > 0) parts[0] += `, ${tr(lang, 'presenceSeen', { when: ago(lang, seen, now) })}`;
  const table = p.tables[0];
  if (table) {
    const where = tr(lang, table.playing ? 'presencePlaying' : 'presenceWaiting');
    parts.push(table.spectatorsAllowed ? `${where} (${tr(lang, 'presenceWatchable')})` : where);
  }
  return parts.join(' · ');
}
