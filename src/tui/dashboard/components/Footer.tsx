import { Box, Text } from 'ink';
import { Spinner } from '../../shared/Spinner.js';
import type { Binding } from '../keys.js';
import type { Flash } from '../state.js';

/** Two lines for what the last action did or why it failed, then the keys of this screen. */
export function Footer({ flash, bindings, width, dialog, filter, filtering, jump, order }: {
  flash: Flash | null;
  /** The screen's `/` filter, and whether keys are going into it. */
  filter?: string;
  filtering?: boolean;
  /** How the rows are sorted, said in words ('' for the server's order). */
  order?: string;
  /** What was typed after `:`, and the screen it names. */
  jump?: { text: string; target: string | null } | null;
  bindings: readonly Binding<string>[];
  width: number;
  /** A dialog has the keys: its own hints are inside it. */
  dialog: boolean;
}) {
  const own = dialog ? '' : bindings.map((binding) => `${binding.keys} ${binding.description}`).join(' · ');
  return (
    <Box flexDirection="column" width={width}>
      <Box height={2} overflow="hidden">
        {jump ? (
          <Text wrap="truncate-end">
            :{jump.text}
            <Text inverse> </Text>
            <Text dimColor>  {jump.target ? `Enter → ${jump.target}` : 'type a screen name'} · Esc cancels</Text>
          </Text>
        ) : filtering ? (
          <Text wrap="truncate-start">
            /{filter}
            <Text inverse> </Text>
            <Text dimColor>  Enter keeps · Esc clears</Text>
          </Text>
        ) : order && !flash ? (
          <Text dimColor wrap="truncate-end">
            {order} · o next · O reverses
          </Text>
        ) : null}
        {filtering || jump ? null : flash?.kind === 'busy' ? <Spinner label={flash.text} /> : null}
        {!filtering && !jump && flash && flash.kind !== 'busy' ? (
          <Text color={flash.kind === 'error' ? 'red' : 'green'} wrap="wrap">
            {flash.kind === 'error' ? '✖ ' : '✓ '}
            {flash.text}
          </Text>
        ) : null}
      </Box>
      {/* The screen's keys give way to the two that always matter when the line is too short. */}
      <Box>
        <Box flexShrink={1}>
          <Text dimColor wrap="truncate-end">
            {own}
          </Text>
        </Box>
        <Box flexShrink={0}>
          {/* In a dialog q and ? are typed like any letter. */}
          <Text dimColor>{dialog ? 'Esc closes the dialog · Ctrl+C quits' : `${own ? ' · ' : ''}? help · q quit`}</Text>
        </Box>
      </Box>
    </Box>
  );
}
