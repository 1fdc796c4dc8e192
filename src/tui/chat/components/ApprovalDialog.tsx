import { Box, Text } from 'ink';
import { approvalKeyBindings } from '../keys.js';
import type { PendingApproval } from '../state.js';

/** Of a summary (a tool's arguments, as the model wrote them), what the dialog shows. */
const SUMMARY_CHARS = 2000;

/** A tool wants to change something: allow once, for this session, or deny (the keys from the key table). */
export function ApprovalDialog({ approval }: { approval: PendingApproval }) {
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1} marginTop={1}>
      <Text color="yellow">The model wants to run {approval.call.function.name}:</Text>
      <Text>{approval.summary.length > SUMMARY_CHARS ? `${approval.summary.slice(0, SUMMARY_CHARS)}…` : approval.summary}</Text>
      <Text>
        {approvalKeyBindings.map((binding, i) => (
          <Text key={binding.action}>
            {i > 0 ? '  ' : ''}
            <Text color={binding.action === 'once' || binding.action === 'session' ? 'green' : 'red'}>[{binding.keys}]</Text> {binding.description}
          </Text>
        ))}
      </Text>
    </Box>
  );
}
