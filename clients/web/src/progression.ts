// Experience, levels and achievements: ProgressionService's call, joined to
// TrancaClient (client.ts).
import type { GetProgressionResponse } from './gen/tranca/v1/progression_pb.js';
import type { TrancaClient } from './client.js';

/** A player's progress: TrancaClient's methods. */
export class ProgressionCalls {
  /**
   * A player's XP, level (with the XP of this level and of the next) and every
   * achievement of the app with how far the player is towards it. With a session's
   * token and no `playerId`: its own player. Rated matches grant them once settled
   * (003: practice "no conseguirás logros y no subirás de nivel"); the unlocks and new
   * levels come as `achievement_unlocked` and `level_up` events (watchPlayerEvents).
   */
  progression(this: TrancaClient, playerId = ''): Promise<GetProgressionResponse> {
    return this.call((o) => this.progression_.getProgression({ playerId }, o), {
      retry: true,
      credential: 'player',
    });
  }
}
