// The account's level and XP beside its name, and its achievements (unlocked, or how
// far it is towards each) in a panel of their own: 003's "logros" and "nivel".
import { html } from '../html.js';
import { tr } from '../i18n/index.js';
import { useStore } from '../store.js';

export function ProgressPanel() {
  const { lang, progress, progressNotice, account } = useStore();
  if (!account || !progress || progress.playerId !== account.playerId) return null;
  const unlocked = progress.achievements.filter((a) => a.unlocked);
  return html`<details class="progress" data-testid="progress" data-level=${progress.level} data-xp=${progress.xp}>
    <summary data-testid="level">${tr(lang, 'playerLevel', { level: progress.level, xp: progress.xp })}</summary>
    <p data-testid="xp-to-next">${tr(lang, 'xpToNext', { xp: progress.xp, next: progress.nextLevelXp })}</p>
    ${progressNotice ? html`<p class="notice" role="status" data-testid="progress-notice">${progressNotice}</p>` : null}
    <h2 class="small">${tr(lang, 'achievements', { n: unlocked.length })}</h2>
    <ul data-testid="achievements">
      ${progress.achievements.map(
        (a) => html`<li key=${a.id} data-achievement=${a.id} data-unlocked=${a.unlocked ? 'yes' : 'no'}>
          <span>${a.unlocked ? '★ ' : ''}${a.title}</span>
          ${a.unlocked ? null : html` <span class="muted">${a.progress} / ${a.target}</span>`}
        </li>`,
      )}
    </ul>
  </details>`;
}
