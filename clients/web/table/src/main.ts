// The web table: a reference front end of the Tranca service on the typed client,
// written as preact components (htm templates) over one typed store (store.ts). The
// actions (actions/*.ts) talk to the service; the components (components/*.ts) show
// the store; words.ts and i18n/ say everything in the player's language.
import { render } from 'preact';

import { stopChat } from './actions/chat.js';
import { followFriends, stopFollowing } from './actions/friends.js';
import { followInvitations } from './actions/invitations.js';
import { listOpenTables, resumeQuickPlay } from './actions/lobby.js';
import { LANG_KEY, loadConfig, loadProfile, savedAccount } from './actions/service.js';
import { savedSeat, sit, stopWatching } from './actions/table.js';
import { App } from './components/App.js';
import { NAME_KEY } from './components/Lobby.js';
import { html } from './html.js';
import { pickLanguage } from './i18n/index.js';
import { getState, savedSetup, update } from './store.js';

async function main(): Promise<void> {
  update({
    lang: pickLanguage(location.search, localStorage.getItem(LANG_KEY), navigator.languages),
    setup: savedSetup(),
    name: localStorage.getItem(NAME_KEY) ?? '',
  });
  render(html`<${App} />`, document.getElementById('app')!);
  update({ config: await loadConfig(), account: savedAccount() });
  void loadProfile().catch(() => undefined); // a session gone stale signs in again at the next call
  followFriends(); // the account's friends, and its events (a request from another browser shows at once)
  followInvitations(); // the invitations received and sent (their events come on the stream followFriends reads)
  const seat = savedSeat();
  if (seat) sit(seat);
  else {
    void resumeQuickPlay();
    void listOpenTables();
  }
  addEventListener('pagehide', stopWatching);
  addEventListener('pagehide', stopFollowing);
  addEventListener('pagehide', stopChat);
  // The turn's timer.
  setInterval(() => update({ now: Date.now() }), 500);
  // The lobby's list of open tables, kept fresh while the player looks at it.
  setInterval(() => {
    if (getState().screen === 'lobby' && !document.hidden) void listOpenTables();
  }, 15_000);
}

void main();
