import { Box, Text } from 'ink';

export interface Column {
  title: string;
  /** Fixed width; a column without one takes what the others leave. */
  width?: number;
  align?: 'left' | 'right';
}

/** First visible row: the cursor stays on screen, near the middle once the list scrolls. */
export function scrollOffset(cursor: number, count: number, visible: number): number {
  if (count <= visible) return 0;
  return Math.max(0, Math.min(cursor - Math.floor(visible / 2), count - visible));
}

const MARK = 2;
const GAP = 1;

function widths(columns: readonly Column[], width: number): number[] {
  const fixed = columns.reduce((sum, column) => sum + (column.width ?? 0) + GAP, MARK);
  const flexible = columns.filter((column) => column.width === undefined).length;
  const share = flexible > 0 ? Math.max(4, Math.floor((width - fixed) / flexible)) : 0;
  return columns.map((column) => column.width ?? share);
}

function Row({ cells, columns, sizes, mark, selected, header }: {
  cells: readonly string[];
  columns: readonly Column[];
  sizes: number[];
  mark: string;
  selected: boolean;
  header?: boolean;
}) {
  return (
    <Box>
      <Box width={MARK} flexShrink={0}>
        <Text color="cyan">{mark}</Text>
      </Box>
      {columns.map((column, index) => (
        <Box
          key={index}
          width={sizes[index]}
          flexShrink={0}
          marginRight={GAP}
          justifyContent={column.align === 'right' ? 'flex-end' : 'flex-start'}
        >
          <Text wrap="truncate-end" bold={header || selected} dimColor={header} color={selected ? 'cyan' : undefined}>
            {cells[index] ?? ''}
          </Text>
        </Box>
      ))}
    </Box>
  );
}

/**
 * A list as a table that scrolls: a header, the rows that fit in `height` with the cursor's
 * one marked, and where in the list the window is when not all rows fit.
 */
export function Table({ columns, rows, cursor, height, width }: {
  columns: readonly Column[];
  rows: readonly (readonly string[])[];
  cursor: number | null;
  height: number;
  width: number;
}) {
  const sizes = widths(columns, width);
  const scrolls = rows.length > height - 1;
  const visible = Math.max(1, height - 1 - (scrolls ? 1 : 0));
  const offset = scrollOffset(cursor ?? 0, rows.length, visible);
  const shown = rows.slice(offset, offset + visible);
  return (
    <Box flexDirection="column" width={width} overflow="hidden">
      <Row cells={columns.map((column) => column.title)} columns={columns} sizes={sizes} mark="" selected={false} header />
      {shown.map((cells, index) => {
        const selected = cursor === offset + index;
        return <Row key={offset + index} cells={cells} columns={columns} sizes={sizes} mark={selected ? '›' : ''} selected={selected} />;
      })}
      {scrolls ? (
        <Text dimColor wrap="truncate-end">
          {'  '}rows {offset + 1}–{offset + shown.length} of {rows.length}
          {offset > 0 ? ' ↑' : ''}
          {offset + shown.length < rows.length ? ' ↓' : ''}
        </Text>
      ) : null}
    </Box>
  );
}
