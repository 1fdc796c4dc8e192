import { Text } from 'ink';
import type { Page } from '../api.js';
import type { Resource } from '../use-resource.js';
import { Loadable } from './Loadable.js';
import { Table, type Column } from './Table.js';

/**
 * A list screen's body: a page of items as a scrolling table, with loading, error and empty
 * states. `rows` are the page's items as the screen arranged them (filtered by `filter`, sorted):
 * the same list its cursor runs over.
 */
export function PageTable<T extends object>({ resource, what, empty, columns, cells, cursor, height, width, filter, rows }: {
  resource: Resource<Page<T>>;
  what: string;
  empty: string;
  columns: readonly Column[];
  cells: (item: T) => string[];
  cursor: number;
  height: number;
  width: number;
  filter?: string;
  rows: readonly T[];
}) {
  return (
    <Loadable resource={resource} what={what} isEmpty={(page) => page.items.length === 0} empty={empty}>
      {() => {
        if (rows.length === 0) return <Text dimColor>No {what} match /{filter}. Esc clears the filter.</Text>;
        return <Table columns={columns} rows={rows.map(cells)} cursor={cursor} height={height} width={width} />;
      }}
    </Loadable>
  );
}
