import { Box, useInput } from 'ink';
import type { ComponentType } from 'react';
import { useTerminalSize, type TerminalSize } from '../shared/use-terminal-size.js';
import { accountLine } from './account.js';
import { Footer } from './components/Footer.js';
import { Header } from './components/Header.js';
import { HelpView } from './components/HelpView.js';
import { ModalView } from './components/ModalView.js';
import { screenBindings } from './keys.js';
import { describeRefresh } from './refresh.js';
import { SCREENS, screenNamed, type ScreenId } from './screens.js';
import { AppsScreen } from './screens/AppsScreen.js';
import { BillingScreen } from './screens/BillingScreen.js';
import { CreditsScreen } from './screens/CreditsScreen.js';
import { KeysScreen } from './screens/KeysScreen.js';
import { ProvidersScreen } from './screens/ProvidersScreen.js';
import { SubscriptionScreen } from './screens/SubscriptionScreen.js';
import { UsageScreen } from './screens/UsageScreen.js';
import { UsersScreen } from './screens/UsersScreen.js';
import { describeSort, isListScreen } from './sorting.js';
import { useDashboard, type DashboardDeps, type ScreenProps } from './session.js';

const SCREEN_VIEWS: Record<ScreenId, ComponentType<ScreenProps>> = {
  apps: AppsScreen,
  keys: KeysScreen,
  users: UsersScreen,
  usage: UsageScreen,
  credits: CreditsScreen,
  subscription: SubscriptionScreen,
  billing: BillingScreen,
  providers: ProvidersScreen,
};

/** Header (2 lines) and footer (3 lines) around the screen's body. */
const CHROME_ROWS = 5;

export interface DashboardProps extends DashboardDeps {
  /** A fixed size instead of the terminal's (tests). */
  size?: TerminalSize;
}

/**
 * The dashboard: the session holds the state; this wires the keys to it and lays out the frame.
 * The frame is one row shorter than the terminal: a frame as tall as the terminal makes Ink
 * clear the whole screen at every redraw.
 */
export function DashboardApp(props: DashboardProps) {
  const { columns, rows } = useTerminalSize(props.size);
  const width = Math.max(20, columns);
  const height = Math.max(CHROME_ROWS + 3, rows - 1);
  const body = height - CHROME_ROWS;
  const session = useDashboard(props, { columns: width, rows: body });
  const { state } = session;
  useInput(session.onKey);
  const Screen = SCREEN_VIEWS[state.screen];
  const covered = state.help || state.modal !== null;
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Header
        screen={state.screen}
        account={accountLine(state.screen, state.app, session.signedIn)}
        serverUrl={session.serverUrl}
        width={width}
        filter={state.filtering ? undefined : state.filters[state.screen]}
        refresh={describeRefresh(state.refresh)}
      />
      <Box flexDirection="column" height={body} overflow="hidden">
        {/* Under a dialog or the help the screen stays mounted (its cursor and data stay), unseen. */}
        <Box display={covered ? 'none' : 'flex'} flexDirection="column">
          <Screen session={session} width={width} height={body} />
        </Box>
        {state.modal ? <ModalView modal={state.modal} width={width} height={body} /> : null}
        {state.help && !state.modal ? <HelpView screen={state.screen} width={width} height={body} offset={state.helpScroll} /> : null}
      </Box>
      <Footer
        flash={state.flash}
        bindings={screenBindings[state.screen]}
        width={width}
        dialog={state.modal !== null}
        filter={state.filters[state.screen]}
        filtering={state.filtering}
        order={isListScreen(state.screen) ? describeSort(state.screen, state.sorts[state.screen]) : ''}
        jump={state.jump === null ? null : { text: state.jump, target: SCREENS.find((screen) => screen.id === screenNamed(state.jump ?? ''))?.title ?? null }}
      />
    </Box>
  );
}
