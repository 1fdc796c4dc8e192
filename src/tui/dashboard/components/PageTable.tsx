import type { Page } from '../api.js';
import type { Resource } from '../use-resource.js';
import { Loadable } from './Loadable.js';
import { Table, type Column } from './Table.js';

/** A list screen's body: a page of items as a scrolling table, with loading, error and empty states. */
export function PageTable<T>({ resource, what, empty, columns, cells, cursor, height, width }: {
  resource: Resource<Page<T>>;
  what: string;
  empty: string;
  columns: readonly Column[];
  cells: (item: T) => string[];
  cursor: number;
  height: number;
  width: number;
}) {
  return (
    <Loadable resource={resource} what={what} isEmpty={(page) => page.items.length === 0} empty={empty}>
      {(page) => <Table columns={columns} rows={page.items.map(cells)} cursor={cursor} height={height} width={width} />}
    </Loadable>
  );
}
