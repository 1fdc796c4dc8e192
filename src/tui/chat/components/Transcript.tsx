import { Box, Static, Text } from 'ink';
import { renderUnprinted } from '../live-split.js';
import type { TranscriptItem } from '../state.js';

/** One finished entry: drawn once into the scrollback, never redrawn. */
export function TranscriptLine({ item, width }: { item: TranscriptItem; width: number }) {
  switch (item.kind) {
    case 'user':
      return (
        <Box marginTop={1}>
          <Text color="cyan">› </Text>
          <Text>{item.text}</Text>
        </Box>
      );
    case 'command':
      return (
        <Box marginTop={1}>
          <Text dimColor>› {item.text}</Text>
        </Box>
      );
    case 'assistant':
      return (
        <Box flexDirection="column" marginTop={item.continued && !item.gap ? 0 : 1}>
          <Text>{renderUnprinted(item.text, item.printed ?? '', width, { open: item.open ?? false, continuesItem: item.continuesItem ?? false })}</Text>
          {item.cancelled ? <Text dimColor>(cancelled)</Text> : null}
        </Box>
      );
    case 'tool':
      return <Text dimColor>{item.text}</Text>;
    case 'notice':
      return <Text color="yellow">{item.text}</Text>;
    case 'error':
      return <Text color="red">✖ {item.text}</Text>;
  }
}

/** The scrollback: Ink's <Static> prints each item once, so finished messages never flicker. */
export function Transcript({ items, width }: { items: TranscriptItem[]; width: number }) {
  return <Static items={items}>{(item) => <TranscriptLine key={item.id} item={item} width={width} />}</Static>;
}
