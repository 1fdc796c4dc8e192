import { Box, Text } from 'ink';
import { pickerMatches, type Picker as PickerState } from '../state.js';

/** A list to pick from: what is typed narrows it, ↑ ↓ move, Enter takes, Esc closes. */
export function Picker({ picker, rows }: { picker: PickerState; rows: number }) {
  const matches = pickerMatches(picker);
  const visible = Math.max(1, rows);
  const first = Math.min(Math.max(0, picker.index - visible + 1), Math.max(0, matches.length - visible));
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text>
        <Text color="cyan">{picker.title}</Text>
        <Text dimColor> · type to filter, ↑ ↓, Enter picks, Esc closes · </Text>
        {picker.filter ? <Text>{picker.filter}</Text> : <Text dimColor>(all {picker.items.length})</Text>}
      </Text>
      {matches.length === 0 ? <Text dimColor>Nothing matches.</Text> : null}
      {matches.slice(first, first + visible).map((item, i) => (
        <Text key={item} wrap="truncate-end" {...(first + i === picker.index ? { inverse: true } : {})}>
          {first + i === picker.index ? '› ' : '  '}
          {item.replaceAll('\n', ' ⏎ ')}
        </Text>
      ))}
    </Box>
  );
}
