import { Box, Text } from 'ink';
import type { ChatState } from '../state.js';

const credits = (value: number) =>
  value === 0 ? '0' : value >= 100 ? value.toFixed(0) : value >= 1 ? value.toFixed(2) : String(Number(value.toPrecision(2)));

/** Model, what the last answer cost, the balance, and the keys that matter now. */
export function StatusLine({ state }: { state: ChatState }) {
  const parts = [state.model];
  if (state.lastAnswer) {
    parts.push(`${state.lastAnswer.tokens} tokens${state.lastAnswer.credits !== null ? ` · ${credits(state.lastAnswer.credits)} credits` : ''}`);
  }
  if (state.balance !== null) parts.push(`balance ${credits(state.balance)}`);
  if (!state.toolsEnabled) parts.push('tools off');
  const hint = state.busy ? 'Esc cancels' : state.exitArmed ? 'Ctrl+C again to exit' : '/help · Ctrl+D exits';
  return (
    <Box justifyContent="space-between">
      <Text dimColor>{parts.join(' · ')}</Text>
      <Text dimColor>{hint}</Text>
    </Box>
  );
}
