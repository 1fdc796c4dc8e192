import { APP_SCREENS, type ScreenId } from './screens.js';
import type { SelectedApp } from './state.js';

/**
 * Whose data each screen shows, said in the header: the developer's (every app), the selected
 * app's, or the key's own app's (credits and the subscription are the account the key pays
 * from, whichever app is selected); and in which mode (a test key sees only play money).
 */
export interface SignedIn {
  /** The app the key in use belongs to, once found; null when it could not be. */
  app: SelectedApp | null;
  /** false for a test key; null until known. */
  livemode: boolean | null;
}

const KEY_APP_SCREENS: readonly ScreenId[] = ['credits', 'subscription'];
const DEVELOPER_SCREENS: readonly ScreenId[] = ['apps', 'billing'];

export function accountLine(screen: ScreenId, selected: SelectedApp | null, signedIn: SignedIn | null): string {
  const mode = signedIn?.livemode === false ? 'test mode' : signedIn?.livemode ? 'live' : '';
  let account = '';
  if (APP_SCREENS.includes(screen)) account = `App: ${selected ? selected.name : '(none)'}`;
  else if (KEY_APP_SCREENS.includes(screen)) account = `App: ${signedIn?.app ? `${signedIn.app.name} (the key’s own)` : 'the key’s own'}`;
  else if (DEVELOPER_SCREENS.includes(screen)) account = 'Account: your developer account, every app';
  else return 'Server';
  return mode ? `${account} · ${mode}` : account;
}
