import { Box, Text } from 'ink';
import type { Editor } from '../../shared/editor.js';

/** The prompt with its cursor; multi-line text keeps its lines. */
export function Composer({ editor, disabled, placeholder }: { editor: Editor; disabled: boolean; placeholder: string }) {
  const before = editor.text.slice(0, editor.cursor);
  const at = editor.text[editor.cursor] ?? ' ';
  const after = editor.text.slice(editor.cursor + 1);
  return (
    <Box marginTop={1}>
      <Text color={disabled ? 'gray' : 'cyan'}>› </Text>
      {editor.text === '' ? (
        <Text dimColor>
          {disabled ? '' : <Text inverse> </Text>}
          {placeholder}
        </Text>
      ) : (
        <Text>
          {before}
          {disabled ? at : <Text inverse>{at === '\n' ? ' ' : at}</Text>}
          {at === '\n' ? '\n' : ''}
          {after}
        </Text>
      )}
    </Box>
  );
}
