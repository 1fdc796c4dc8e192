import { Text } from 'ink';
import type { Page } from '../api.js';
import { filterRows } from '../filter.js';
import type { Resource } from '../use-resource.js';
import { Loadable } from './Loadable.js';
import { Table, type Column } from './Table.js';

/**
 * A list screen's body: a page of items as a scrolling table, with loading, error and empty
 * states. `filter` is the screen's `/` text; the screen's cursor runs over the same filterRows.
 */
export function PageTable<T extends object>({ resource, what, empty, columns, cells, cursor, height, width, filter }: {
  resource: Resource<Page<T>>;
  what: string;
  empty: string;
  columns: readonly Column[];
  cells: (item: T) => string[];
  cursor: number;
  height: number;
  width: number;
  filter?: string;
}) {
  return (
    <Loadable resource={resource} what={what} isEmpty={(page) => page.items.length === 0} empty={empty}>
      {(page) => {
        const shown = filterRows(page.items, filter);
        if (shown.length === 0) return <Text dimColor>No {what} match /{filter}. Esc clears the filter.</Text>;
        return <Table columns={columns} rows={shown.map(cells)} cursor={cursor} height={height} width={width} />;
      }}
    </Loadable>
  );
}
