import type { Modal } from './modal.js';
import { DEFAULT_REFRESH_MS, type RefreshState } from './refresh.js';
import type { ScreenId } from './screens.js';
import type { SortState } from './sorting.js';

/** The app the Keys, Users and Usage screens show. */
export interface SelectedApp {
  app_uuid: string;
  name: string;
}

/** A line under the screen: what an action did, what failed, or what is under way. */
export interface Flash {
  kind: 'info' | 'error' | 'busy';
  text: string;
}

/** What the whole dashboard shares; each screen keeps its own cursor and data. */
export interface DashboardState {
  screen: ScreenId;
  /** Screens visited before this one, for Esc. */
  history: ScreenId[];
  help: boolean;
  /** How far the help is scrolled (a narrow terminal does not hold all of it). */
  helpScroll: number;
  app: SelectedApp | null;
  modal: Modal | null;
  flash: Flash | null;
  /** What `/` typed on each list screen; the rows shown are the ones that match. */
  filters: Partial<Record<ScreenId, string>>;
  /** Keys go into the current screen's filter until Enter or Esc. */
  filtering: boolean;
  /** The order `o` / `O` chose on each list screen; none: the server's. */
  sorts: Partial<Record<ScreenId, SortState>>;
  /** What was typed after `:` (jump to a screen by name), while it is being typed. */
  jump: string | null;
  /** How often the current screen reloads by itself. */
  refresh: RefreshState;
}

export type DashboardEvent =
  | { type: 'go'; screen: ScreenId }
  | { type: 'back' }
  | { type: 'help'; open: boolean }
  | { type: 'helpScroll'; offset: number }
  | { type: 'refresh'; refresh: RefreshState }
  | { type: 'app'; app: SelectedApp | null }
  | { type: 'modal'; modal: Modal | null }
  | { type: 'flash'; flash: Flash | null }
  | { type: 'filter'; text: string; editing: boolean }
  | { type: 'jump'; text: string | null }
  | { type: 'sort'; sort: SortState | undefined };

const HISTORY_LIMIT = 20;

export function initialState(screen: ScreenId, refresh: RefreshState = { everyMs: DEFAULT_REFRESH_MS, paused: false }): DashboardState {
  return { screen, history: [], help: false, helpScroll: 0, app: null, modal: null, flash: null, filters: {}, filtering: false, jump: null, sorts: {}, refresh };
}

export function dashboardReducer(state: DashboardState, event: DashboardEvent): DashboardState {
  switch (event.type) {
    case 'go':
      if (event.screen === state.screen) return { ...state, help: false };
      return {
        ...state,
        screen: event.screen,
        history: [...state.history, state.screen].slice(-HISTORY_LIMIT),
        help: false,
        flash: null,
        filtering: false,
        jump: null,
      };
    case 'back': {
      const previous = state.history.at(-1);
      if (!previous) return state;
      return { ...state, screen: previous, history: state.history.slice(0, -1), flash: null, filtering: false };
    }
    case 'help':
      return { ...state, help: event.open, helpScroll: 0 };
    case 'helpScroll':
      return { ...state, helpScroll: event.offset };
    case 'refresh':
      return { ...state, refresh: event.refresh };
    case 'app':
      return { ...state, app: event.app };
    case 'modal':
      return { ...state, modal: event.modal };
    case 'flash':
      return { ...state, flash: event.flash };
    case 'sort':
      return { ...state, sorts: { ...state.sorts, [state.screen]: event.sort } };
    case 'jump':
      return { ...state, jump: event.text };
    case 'filter':
      return { ...state, filters: { ...state.filters, [state.screen]: event.text }, filtering: event.editing };
  }
}
