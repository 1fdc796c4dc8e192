import type { Key } from 'ink';
import { useCallback, useEffect, useReducer, useRef } from 'react';
import type { DashboardApi } from './api.js';
import { editLine } from '../shared/editor.js';
import { rowName } from './describe.js';
import { describeError } from './errors.js';
import { focusField, formValues } from './form.js';
import { helpRows, helpRoom } from './help.js';
import { actionIn, globalBindings, listBindings, screenBindings, type ScreenAction } from './keys.js';
import { modalKey, type Modal, type ModalNext, type ModalView } from './modal.js';
import { scrollBy } from './pager.js';
import { describeRefresh, stepRefresh, type RefreshState } from './refresh.js';
import { SCREEN_IDS, screenNamed, type ScreenId } from './screens.js';
import { isListScreen, nextSort } from './sorting.js';
import { dashboardReducer, initialState, type DashboardEvent, type DashboardState } from './state.js';
import { realTicker, type Ticker } from './ticker.js';
import { useAutoRefresh } from './use-auto-refresh.js';
import { useCheckoutWatch } from './use-checkout-watch.js';
import { useSignedIn } from './use-account.js';
import { useResource } from './use-resource.js';

export interface DashboardDeps {
  api: DashboardApi;
  initialScreen?: ScreenId;
  /** Opens a URL in the browser (the platform opener; a stub in tests). */
  openUrl(url: string): Promise<void>;
  /** How often an open checkout's session is looked up (default CHECKOUT_POLL_MS). */
  checkoutPollMs?: number;
  /** The auto-refresh at the start (default every 5 s). */
  refresh?: RefreshState;
  /** The beat of the auto-refresh and the checkout watch (a manual one in tests). */
  ticker?: Ticker;
  /** The clock the usage windows end at (the test server's clock in tests). */
  now(): Date;
  exit(): void;
  /** Shown in the header, so it is clear which server is being changed. */
  serverUrl?: string;
  /**
   * A line to print once the dashboard has closed: the addresses it showed (checkout, portal),
   * which the alternate screen would otherwise take with it. Never a secret.
   */
  keep?(line: string): void;
  /** Puts text on the clipboard (OSC 52 on the terminal; a stub in tests). */
  copy?(text: string): void;
}

/** A checkout is paid in the browser; its session is looked up this often while its dialog is open. */
const CHECKOUT_POLL_MS = 3000;

/** What the current screen does with its keys (see screenBindings) and the list keys. */
interface ScreenKeyHandler {
  screen: ScreenId;
  handle(action: string): void;
  /** The row under the cursor, for `d`. */
  selected?: () => object | undefined;
}

/** What `y` copied: the field's name and its value, both said; a secret is named, never shown. */
export type Copied = { field: string; value: string } | { secret: string; what: string };

/**
 * The dashboard's state and everything that changes it: one container; components only draw.
 * `view` is the room the screen's body has (the help and the dialogs scroll within it).
 */
export function useDashboard(deps: DashboardDeps, view: ModalView) {
  const { api } = deps;
  // The props object is new at every render; the callbacks below read the latest through this.
  const depsRef = useRef(deps);
  depsRef.current = deps;
  const viewRef = useRef(view);
  viewRef.current = view;
  const exit = useCallback(() => depsRef.current.exit(), []);
  const [state, enqueue] = useReducer(dashboardReducer, deps.initialScreen ?? 'apps', (screen) => initialState(screen, deps.refresh));
  const stateRef = useRef<DashboardState>(state);
  /**
   * Every change goes through here, so `stateRef` holds its result at once: a key that arrives
   * before React has drawn the previous one must see what that key did (an opened dialog).
   */
  const dispatch = useCallback((event: DashboardEvent) => {
    stateRef.current = dashboardReducer(stateRef.current, event);
    enqueue(event);
  }, []);
  const screenKeys = useRef<ScreenKeyHandler | null>(null);

  // The apps list is shared: the Apps screen shows it, the others need the selected app.
  const apps = useResource(() => api.apps(), [api]);
  // Whose credits and subscription the screens show: the key's own app, found among the apps.
  const signedIn = useSignedIn(api, apps.resource);
  useEffect(() => {
    if (apps.resource.status !== 'ready') return;
    const list = apps.resource.data.items;
    const selected = stateRef.current.app;
    const still = selected && list.find((app) => app.app_uuid === selected.app_uuid);
    const next = still ?? list[0] ?? null;
    if (next?.app_uuid !== selected?.app_uuid || next?.name !== selected?.name) {
      dispatch({ type: 'app', app: next ? { app_uuid: next.app_uuid, name: next.name } : null });
    }
  }, [apps.resource, dispatch]);

  const flash = useCallback((kind: 'info' | 'error', text: string) => dispatch({ type: 'flash', flash: { kind, text } }), [dispatch]);

  const openModal = useCallback(
    (modal: Modal | null) => {
      if (modal?.kind === 'link') depsRef.current.keep?.(`${modal.title}: ${modal.url}`);
      const previous = stateRef.current.modal;
      const leaving = previous?.kind === 'link' && !(modal?.kind === 'link' && modal.url === previous.url);
      dispatch({ type: 'modal', modal });
      if (leaving) previous.refresh?.();
    },
    [dispatch],
  );

  /**
   * Runs an action that starts without a dialog. What it says goes to the flash line, a dialog
   * it leads to (a link to open) opens, and its error goes to the flash line in red.
   */
  const act = useCallback(
    async (busyText: string, action: () => Promise<string | Modal>) => {
      dispatch({ type: 'flash', flash: { kind: 'busy', text: busyText } });
      try {
        const result = await action();
        if (typeof result === 'string') return flash('info', result);
        dispatch({ type: 'flash', flash: null });
        openModal(result);
      } catch (error) {
        flash('error', describeError(error).text);
      }
    },
    [dispatch, flash, openModal],
  );

  /** A dialog's action: on success the dialog closes (or the next one opens); an error stays in it. */
  const runModal = useCallback(
    async (modal: Modal) => {
      openModal({ ...modal, busy: true, error: null });
      try {
        const next: ModalNext =
          modal.kind === 'form' ? await modal.submit(formValues(modal.form)) : modal.kind === 'confirm' ? await modal.run() : undefined;
        openModal(next ?? null);
      } catch (error) {
        const shown = describeError(error);
        const fixed = modal.kind === 'form' ? { ...modal, form: focusField(modal.form, shown.field) } : modal;
        openModal({ ...fixed, busy: false, error: shown });
      }
    },
    [openModal],
  );

  const openLink = useCallback(
    async (url: string) => {
      const update = (opened: string) => {
        const modal = stateRef.current.modal;
        if (modal?.kind === 'link' && modal.url === url) openModal({ ...modal, opened });
      };
      try {
        await depsRef.current.openUrl(url);
        update('yes');
      } catch (error) {
        update(`Could not open a browser (${(error as Error).message}); copy the address below.`);
      }
    },
    [openModal],
  );

  /** `y`: the selected row's id (said with its field's name), or a new key's secret, to the clipboard. */
  const copy = useCallback(
    (copied: Copied) => {
      const write = depsRef.current.copy;
      if (!write) return flash('error', 'This terminal has no clipboard for svc: select the text with the mouse.');
      if ('secret' in copied) {
        write(copied.secret);
        return flash('info', `Copied ${copied.what} to the clipboard.`);
      }
      write(copied.value);
      flash('info', `Copied ${copied.field} ${copied.value} to the clipboard.`);
    },
    [flash],
  );

  const ticker = deps.ticker ?? realTicker;

  // The current screen reloads by itself (its `r`), unless a dialog is open or it is paused.
  useAutoRefresh({
    ticker,
    refresh: state.refresh,
    screen: state.screen,
    held: state.modal !== null,
    reload: () => {
      const current = stateRef.current;
      const own = screenBindings[current.screen] as readonly { action: string }[];
      if (screenKeys.current?.screen === current.screen && own.some((binding) => binding.action === 'refresh')) screenKeys.current.handle('refresh');
    },
  });

  // An open checkout is watched: it closes by itself once paid (its screen then reloads).
  useCheckoutWatch({
    ticker,
    everyMs: deps.checkoutPollMs ?? CHECKOUT_POLL_MS,
    checkoutId: state.modal?.kind === 'link' ? state.modal.checkoutId : undefined,
    billing: () => api.billing(),
    ended: (checkoutId, outcome) => {
      const modal = stateRef.current.modal;
      if (modal?.kind !== 'link' || modal.checkoutId !== checkoutId) return;
      openModal(null);
      flash(outcome.kind, outcome.text);
    },
  });

  const setRefresh = useCallback(
    (refresh: RefreshState) => {
      dispatch({ type: 'refresh', refresh });
      flash('info', refresh.paused ? 'Auto-refresh paused: Space resumes it, r reloads now.' : `Auto-refresh every ${describeRefresh(refresh).slice(2)}: - and + change it, Space pauses it.`);
    },
    [dispatch, flash],
  );

  /** `d`: the row under the cursor, all its fields, in a dialog that scrolls. */
  const describe = useCallback(() => {
    const current = stateRef.current;
    const handler = screenKeys.current;
    const row = handler?.screen === current.screen ? handler.selected?.() : undefined;
    if (!row) return flash('info', 'Nothing to describe here: d shows the selected row of a list.');
    openModal({ kind: 'describe', title: `Describe ${rowName(row)}`, value: row, offset: 0 });
  }, [flash, openModal]);

  const go = useCallback((screen: ScreenId) => dispatch({ type: 'go', screen }), [dispatch]);

  /** While filtering: letters edit the filter, Enter keeps it, Esc drops it. */
  const filterKey = useCallback(
    (text: string, input: string, key: Key) => {
      if (key.escape) return dispatch({ type: 'filter', text: '', editing: false });
      if (key.return) return dispatch({ type: 'filter', text, editing: false });
      const edited = editLine(text, input, key);
      if (edited !== text) dispatch({ type: 'filter', text: edited, editing: true });
    },
    [dispatch],
  );

  /** While typing after `:`: Enter goes to the screen named, Esc gives up. */
  const jumpKey = useCallback(
    (text: string, input: string, key: Key) => {
      if (key.escape) return dispatch({ type: 'jump', text: null });
      if (key.return) {
        const screen = screenNamed(text);
        dispatch({ type: 'jump', text: null });
        if (screen) return go(screen);
        return flash('error', `No screen is called ${JSON.stringify(text)}: ${SCREEN_IDS.join(', ')}.`);
      }
      const edited = editLine(text, input, key);
      if (edited !== text) dispatch({ type: 'jump', text: edited });
    },
    [dispatch, flash, go],
  );

  /** The one key handler: a dialog first, then the help, the global keys, the screen's keys. */
  const onKey = useCallback(
    (input: string, key: Key) => {
      const current = stateRef.current;
      if (key.ctrl && input === 'c') return exit();
      if (current.modal) {
        const step = modalKey(current.modal, input, key, viewRef.current);
        if (step.type === 'update') openModal(step.modal);
        else if (step.type === 'close') openModal(null);
        else if (step.type === 'run') void runModal(step.modal);
        else if (step.type === 'open') void openLink(step.url);
        else if (step.type === 'copy') copy({ secret: step.text, what: 'the secret' });
        return;
      }
      if (current.jump !== null) return jumpKey(current.jump, input, key);
      if (current.filtering) return filterKey(current.filters[current.screen] ?? '', input, key);
      const global = actionIn(globalBindings, input, key);
      if (current.help) {
        if (global === 'quit' || global === 'exit') return exit();
        if (global === 'help' || global === 'back') return dispatch({ type: 'help', open: false });
        const room = helpRoom(viewRef.current);
        const total = helpRows(current.screen, room.width).length;
        const offset = scrollBy(actionIn(listBindings, input, key), current.helpScroll, total, room.rows);
        if (offset !== null) dispatch({ type: 'helpScroll', offset });
        return;
      }
      const index = SCREEN_IDS.indexOf(current.screen);
      const step = (by: number) => SCREEN_IDS[(index + by + SCREEN_IDS.length) % SCREEN_IDS.length] ?? current.screen;
      switch (global) {
        case 'exit':
        case 'quit':
          return exit();
        case 'help':
          return dispatch({ type: 'help', open: true });
        case 'next':
          return go(step(1));
        case 'prev':
          return go(step(-1));
        case 'back':
          // Esc first clears a filter, then goes back.
          if (current.filters[current.screen]) return dispatch({ type: 'filter', text: '', editing: false });
          return dispatch({ type: 'back' });
        case 'jump':
          return dispatch({ type: 'jump', text: '' });
        case 'filter':
          if (isListScreen(current.screen)) dispatch({ type: 'filter', text: current.filters[current.screen] ?? '', editing: true });
          return;
        case 'sort':
          if (isListScreen(current.screen)) dispatch({ type: 'sort', sort: nextSort(current.screen, current.sorts[current.screen]) });
          return;
        case 'reverse': {
          const sort = current.sorts[current.screen];
          if (sort) dispatch({ type: 'sort', sort: { ...sort, descending: !sort.descending } });
          return;
        }
        case 'describe':
          return describe();
        case 'faster':
          return setRefresh(stepRefresh(current.refresh, -1));
        case 'slower':
          return setRefresh(stepRefresh(current.refresh, 1));
        case 'pause':
          return setRefresh({ ...current.refresh, paused: !current.refresh.paused });
        case null:
          break;
        default:
          return go(global);
      }
      const action = actionIn<string>([...listBindings, ...screenBindings[current.screen]], input, key);
      // A screen that has not drawn yet has not said what its keys do: the key is dropped.
      if (action && screenKeys.current?.screen === current.screen) screenKeys.current.handle(action);
    },
    [copy, describe, dispatch, exit, filterKey, go, jumpKey, openLink, openModal, runModal, setRefresh],
  );

  /**
   * The current screen hands over its keys at every render (the handler closes over that
   * render's data); the one input handler above calls it.
   */
  const registerKeys = useCallback(<S extends ScreenId>(screen: S, handle: (action: ScreenAction<S>) => void, selected?: () => object | undefined) => {
    // Only this screen's actions and the list's reach it (the lookup above uses its table).
    screenKeys.current = { screen, handle: handle as (action: string) => void, ...(selected ? { selected } : {}) };
  }, []);

  return { state, dispatch, apps, signedIn, go, flash, act, copy, openModal, onKey, registerKeys, api, now: deps.now, serverUrl: deps.serverUrl };
}

export type DashboardSession = ReturnType<typeof useDashboard>;

/** What every screen gets: the session, and the room it may draw in. */
export interface ScreenProps {
  session: DashboardSession;
  width: number;
  height: number;
}
