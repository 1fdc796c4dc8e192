import { Box, Text } from 'ink';
import { SCREENS, type ScreenId } from '../screens.js';

/** A long filter is cut in the header (the footer shows it whole while it is typed). */
const FILTER_SHOWN = 24;

/**
 * The screens as numbered tabs; under them whose data the screen shows (and in which mode) and
 * the server, with the applied filter and the auto-refresh on the right, where they stay seen.
 */
export function Header({ screen, account, serverUrl, width, filter, refresh }: {
  screen: ScreenId;
  /** "App: Shop · live" (account.ts). */
  account: string;
  serverUrl: string | undefined;
  width: number;
  /** The screen's applied `/` filter, if any. */
  filter?: string | undefined;
  /** "↻ 5s" or "↻ paused". */
  refresh: string;
}) {
  const shownFilter = filter && filter.length > FILTER_SHOWN ? `${filter.slice(0, FILTER_SHOWN - 1)}…` : filter;
  // Padded tabs when they all fit; else one space between them, so that no tab is cut off.
  const roomy = SCREENS.reduce((sum, tab, index) => sum + ` ${index + 1} ${tab.title} `.length, 0) <= width;
  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate-end">
        {SCREENS.map((tab, index) => (
          <Text key={tab.id}>
            <Text inverse={tab.id === screen} bold={tab.id === screen}>
              {roomy ? ` ${index + 1} ${tab.title} ` : `${index + 1} ${tab.title}`}
            </Text>
            {roomy || index === SCREENS.length - 1 ? '' : ' '}
          </Text>
        ))}
      </Text>
      <Box width={width}>
        <Box flexShrink={1} flexGrow={1}>
          <Text dimColor wrap="truncate-end">
            {' '}
            {account}
            {serverUrl ? ` · ${serverUrl}` : ''}
          </Text>
        </Box>
        <Box flexShrink={0}>
          <Text wrap="truncate-end">
            {filter ? (
              <Text color="yellow">
                {' '}filter /{shownFilter} <Text dimColor>(Esc clears)</Text>
              </Text>
            ) : null}
            <Text dimColor> {refresh}</Text>
          </Text>
        </Box>
      </Box>
    </Box>
  );
}
