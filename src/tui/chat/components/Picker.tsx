import { Box, Text } from 'ink';
import { displayLine } from '../display-line.js';
import { pickerKeyBindings } from '../keys.js';
import { pickerWindow, type Picker as PickerState } from '../picker.js';

/** The keys, from the key table: "↑ previous, ↓ next, Enter picks, Esc closes". */
const HINT = pickerKeyBindings.map((binding) => `${binding.keys} ${binding.description}`).join(', ');

/** A list to pick from: what is typed narrows it; each row is cut to the width before Ink sees it. */
export function Picker({ picker, rows, width }: { picker: PickerState; rows: number; width: number }) {
  const window = pickerWindow(picker, rows);
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text wrap="truncate-end">
        <Text color="cyan">{picker.title}</Text>
        <Text dimColor> · type to filter, {HINT} · </Text>
        {picker.filter ? <Text>{displayLine(picker.filter, width)}</Text> : <Text dimColor>(all {picker.items.size})</Text>}
      </Text>
      {window.rows.length === 0 ? <Text dimColor>Nothing matches.</Text> : null}
      {window.rows.map((item, i) => {
        const highlighted = window.first + i === picker.index;
        return (
          <Text key={window.first + i} wrap="truncate-end" {...(highlighted ? { inverse: true } : {})}>
            {highlighted ? '› ' : '  '}
            {displayLine(item.label, width - 3)}
          </Text>
        );
      })}
    </Box>
  );
}
