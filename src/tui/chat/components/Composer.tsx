import { Box, Text } from 'ink';
import type { Editor } from '../../shared/editor.js';
import { composerView, type ComposerRow } from '../composer-view.js';

const PROMPT = '› ';

/** A row with the cursor drawn on the character under it (a space at a row's end). */
function Row({ row, disabled }: { row: ComposerRow; disabled: boolean }) {
  if (row.cursor === null) return <Text>{row.text}</Text>;
  const at = row.text[row.cursor] ?? ' ';
  return (
    <Text>
      {row.text.slice(0, row.cursor)}
      {disabled ? at : <Text inverse>{at}</Text>}
      {row.text.slice(row.cursor + 1)}
    </Text>
  );
}

/**
 * The prompt with its cursor. The draft is cut into rows here (composer-view.ts), at most
 * `maxRows` of them around the cursor (the live region must stay shorter than the terminal); the
 * others are counted.
 */
export function Composer({ editor, disabled, placeholder, maxRows, columns }: { editor: Editor; disabled: boolean; placeholder: string; maxRows: number; columns: number }) {
  if (editor.text === '') {
    return (
      <Box marginTop={1}>
        <Text color={disabled ? 'gray' : 'cyan'}>{PROMPT}</Text>
        <Text dimColor>
          {disabled ? '' : <Text inverse> </Text>}
          {placeholder}
        </Text>
      </Box>
    );
  }
  const view = composerView(editor, columns - PROMPT.length, maxRows);
  return (
    <Box marginTop={1} flexDirection="column">
      {view.hidden > 0 ? <Text dimColor>  … {view.hidden} more line{view.hidden === 1 ? '' : 's'}</Text> : null}
      {view.rows.map((row, i) => (
        <Box key={i}>
          <Text color={disabled ? 'gray' : 'cyan'}>{i === 0 ? PROMPT : ' '.repeat(PROMPT.length)}</Text>
          <Row row={row} disabled={disabled} />
        </Box>
      ))}
    </Box>
  );
}
