import { Box, Text } from 'ink';
import type { Editor } from '../../shared/editor.js';

/**
 * The prompt with its cursor. Multi-line text keeps its lines, at most `maxRows` of them around
 * the cursor (the live region must stay shorter than the terminal); the others are counted.
 */
export function Composer({ editor, disabled, placeholder, maxRows }: { editor: Editor; disabled: boolean; placeholder: string; maxRows: number }) {
  if (editor.text === '') {
    return (
      <Box marginTop={1}>
        <Text color={disabled ? 'gray' : 'cyan'}>› </Text>
        <Text dimColor>
          {disabled ? '' : <Text inverse> </Text>}
          {placeholder}
        </Text>
      </Box>
    );
  }
  const lines = editor.text.split('\n');
  const cursorLine = editor.text.slice(0, editor.cursor).split('\n').length - 1;
  const room = Math.max(1, maxRows - 1);
  const first = lines.length <= maxRows ? 0 : Math.min(Math.max(0, cursorLine - room + 1), lines.length - room);
  const last = lines.length <= maxRows ? lines.length : first + room;
  // Offsets of the shown window in the text, to place the cursor in it.
  const start = lines.slice(0, first).reduce((n, line) => n + line.length + 1, 0);
  const end = lines.slice(0, last).reduce((n, line) => n + line.length + 1, 0) - 1;
  const shown = editor.text.slice(start, end);
  const cursor = editor.cursor - start;
  const before = shown.slice(0, cursor);
  const at = shown[cursor] ?? ' ';
  const after = shown.slice(cursor + 1);
  const hidden = lines.length - (last - first);
  return (
    <Box marginTop={1} flexDirection="column">
      {hidden > 0 ? <Text dimColor>  … {hidden} more line{hidden === 1 ? '' : 's'}</Text> : null}
      <Box>
        <Text color={disabled ? 'gray' : 'cyan'}>› </Text>
        <Text>
          {before}
          {disabled ? at : <Text inverse>{at === '\n' ? ' ' : at}</Text>}
          {at === '\n' ? '\n' : ''}
          {after}
        </Text>
      </Box>
    </Box>
  );
}
