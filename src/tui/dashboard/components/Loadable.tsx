import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { Spinner } from '../../shared/Spinner.js';
import type { Resource } from '../use-resource.js';

/** What a screen shows while its data loads, when loading failed, or when there is none. */
export function Loadable<T>({ resource, what, isEmpty, empty, children }: {
  resource: Resource<T>;
  /** "apps", "keys": for the spinner. */
  what: string;
  isEmpty?: (data: T) => boolean;
  /** The empty state: what there would be, and how to make some. */
  empty?: string;
  children: (data: T) => ReactNode;
}) {
  if (resource.status === 'loading') return <Spinner label={`Loading ${what}…`} />;
  if (resource.status === 'error') {
    return (
      <Box flexDirection="column">
        <Text color="red" wrap="wrap">
          ✖ Could not load {what}: {resource.error}
        </Text>
        <Text dimColor>r tries again.</Text>
      </Box>
    );
  }
  if (isEmpty?.(resource.data)) return <Text dimColor wrap="wrap">{empty}</Text>;
  return <>{children(resource.data)}</>;
}
