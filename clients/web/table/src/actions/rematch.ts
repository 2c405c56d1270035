// Tables that outlive their match (TableService): at a finished match the player
// confirms a rematch (the page then sits at the table's next match, at the same seat,
// with the seat token the answer gives), sees who confirmed and how long the others'
// seats are held, and the table's past matches. A watch stream ends with its match, so
// while the finished match is shown the page reads its view again now and then: a
// confirmation by another player, and the next match, show without a reload.
import { GameStatus, type TableMatch } from '../../../src/index.js';
import { getState, update } from '../store.js';
import { act, service } from './service.js';
import { setView, sit } from './table.js';

const FOLLOW_EVERY_MS = 2_000;

let following: ReturnType<typeof setInterval> | null = null;
let listedFor = '';

/** Confirms the rematch of the finished match the page sits at, and sits at the next match. */
export async function confirmRematch(): Promise<void> {
  const { view, seated } = getState();
  if (!view || !seated || view.status !== GameStatus.FINISHED) return;
  const out = await act('table', () => service().withToken(seated.token).rematch(view.gameId));
  if (out) sit({ gameId: out.gameId, seat: out.seat, token: out.playerToken });
}

/** The matches played at the table of `gameId`, from its first (read once per match shown). */
export async function loadTableMatches(gameId: string): Promise<void> {
  const seated = getState().seated;
  if (!seated || listedFor === gameId) return;
  listedFor = gameId;
  try {
    const page = await service().withToken(seated.token).listTableMatches(gameId, { pageSize: 50 });
    if (getState().seated?.gameId === gameId) update({ tableMatches: page.matches });
  } catch {
    listedFor = ''; // read again the next time the match is shown
  }
}

/** Keeps a finished match's view fresh while the page shows it (its watch stream has ended). */
export function followFinishedMatch(): () => void {
  following ??= setInterval(() => {
    const { view, seated } = getState();
    if (!view || !seated || view.status !== GameStatus.FINISHED || seated.gameId !== view.gameId) return;
    if (document.hidden) return;
    void service()
      .withToken(seated.token)
      .getView(view.gameId)
      .then((fresh) => {
        if (getState().seated?.gameId === fresh.gameId) setView(fresh);
      })
      .catch(() => undefined);
  }, FOLLOW_EVERY_MS);
  return () => {
    if (following !== null) clearInterval(following);
    following = null;
  };
}

/** The matches of the table as the page last read them. */
export const tableMatches = (): TableMatch[] => getState().tableMatches ?? [];
