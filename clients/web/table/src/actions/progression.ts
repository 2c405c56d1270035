// The player's experience, level and achievements (ProgressionService): read when the
// account changes, and again when an "achievement_unlocked" or "level_up" event comes
// (actions/friends.ts follows the player's events), with the news told in words.
import type { PlayerEvent } from '../../../src/index.js';
import { type PlayerProgress, getState, update } from '../store.js';
import { savedSession, service, t } from './service.js';

/** The account's progress read again (nothing without a session). */
export async function loadProgression(): Promise<void> {
  const saved = savedSession();
  if (!saved) return;
  const got = await service().withToken(saved.accessToken).progression();
  if (getState().account?.playerId !== got.playerId) return; // another account since
  const progress: PlayerProgress = {
    playerId: got.playerId,
    xp: Number(got.xp),
    level: got.level,
    levelXp: Number(got.levelXp),
    nextLevelXp: Number(got.nextLevelXp),
    achievements: got.achievements.map((a) => ({
      id: a.achievement?.id ?? '',
      title: a.achievement?.title ?? '',
      progress: Number(a.progress),
      target: Number(a.achievement?.target ?? 0n),
      unlocked: a.unlocked,
    })),
  };
  update({ progress });
}

/** An achievement unlocked or a new level: told, and the progress read again. */
export function onProgressionEvent(event: PlayerEvent): void {
  try {
    const payload = JSON.parse(event.payloadJson) as { title?: string; level?: number };
    update({
      progressNotice:
        event.kind === 'level_up'
          ? t('levelUp', { level: Number(payload.level ?? 0) })
          : t('achievementUnlocked', { title: String(payload.title ?? '') }),
    });
  } catch {
    // a payload the page cannot read: the progress read again says what holds
  }
  void loadProgression().catch(() => undefined);
}
