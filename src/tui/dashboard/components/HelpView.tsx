import { Box, Text } from 'ink';
import { helpLayout, helpRoom } from '../help.js';
import { clampScroll, scrollPosition } from '../pager.js';
import type { ScreenId } from '../screens.js';

/**
 * Every key, from the same tables the keys are handled by, wrapped to the width; taller than
 * the screen it scrolls with the list keys.
 */
export function HelpView({ screen, width, height, offset }: { screen: ScreenId; width: number; height: number; offset: number }) {
  const room = helpRoom({ columns: width, rows: height });
  const { columnWidth, rows } = helpLayout(screen, room.width);
  const first = clampScroll(offset, rows.length, room.rows);
  const position = scrollPosition(first, rows.length, room.rows);
  return (
    <Box flexDirection="column" width={width}>
      {rows.slice(first, first + room.rows).map((row, index) => (
        <Box key={first + index}>
          {row.map((cell, column) => (
            <Box key={column} width={columnWidth} flexShrink={0}>
              <Text wrap="truncate-end" bold={cell.title}>
                <Text color="cyan">{cell.keys}</Text>
                {cell.text}
              </Text>
            </Box>
          ))}
        </Box>
      ))}
      <Text dimColor wrap="truncate-end">
        {position ? `${position} · ↑ ↓ PgUp PgDn scroll · Esc or ? closes` : 'Esc or ? closes this help.'}
      </Text>
    </Box>
  );
}
