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
      <Text dimColor wrap="truncate-end">
        {' '}App: {app ? app.name : '(none)'}
        {serverUrl ? ` · ${serverUrl}` : ''}
      </Text>
    </Box>
  );
}
