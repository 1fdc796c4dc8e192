import { Box, Text } from 'ink';
import { SCREENS, type ScreenId } from '../screens.js';
import type { SelectedApp } from '../state.js';

/** The screens as numbered tabs, and which app and server the screens are about. */
export function Header({ screen, app, serverUrl, width }: {
  screen: ScreenId;
  app: SelectedApp | null;
  serverUrl: string | undefined;
  width: number;
}) {
  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate-end">
        {SCREENS.map((tab, index) => (
          <Text key={tab.id} inverse={tab.id === screen} bold={tab.id === screen}>
            {` ${index + 1} ${tab.title} `}
          </Text>
        ))}
      </Text>
      <Text dimColor wrap="truncate-end">
        {' '}App: {app ? app.name : '(none)'}
        {serverUrl ? ` · ${serverUrl}` : ''}
      </Text>
    </Box>
  );
}
