import { Box, Text } from 'ink';
import type { PendingApproval } from '../state.js';

/** A tool wants to change something: allow once, for this session, or deny. */
export function ApprovalDialog({ approval }: { approval: PendingApproval }) {
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1} marginTop={1}>
      <Text color="yellow">The model wants to run {approval.call.function.name}:</Text>
      <Text>{approval.summary}</Text>
      <Text>
        <Text color="green">[a]</Text> allow once  <Text color="green">[s]</Text> allow for this session  <Text color="red">[d]</Text> deny
      </Text>
    </Box>
  );
}
