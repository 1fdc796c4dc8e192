import { Box, Text } from 'ink';
import { barRows, fitBars } from '../chart.js';
import { compact } from '../format.js';

/**
 * A bar chart under a caption (what a bar counts: "requests per 3 hours" once buckets are
 * grouped to fit), with a value axis (the top and zero) and a time axis (first and last bucket).
 * It takes `rows + 3` lines and at most `width` columns.
 */
export function BarChart({ values, labels, rows, width, unit, bucket }: {
  values: readonly number[];
  /** One label per value (the bucket's start). */
  labels: readonly string[];
  rows: number;
  width: number;
  unit: string;
  bucket: string;
}) {
  const max = Math.max(0, ...values);
  const axis = Math.max(compact(max).length, 1) + 1;
  const { bars, group, barWidth } = fitBars(values, Math.max(4, width - axis - 1));
  const chartRows = barRows(bars, rows, barWidth);
  const plotted = bars.length * barWidth;
  const first = labels[0] ?? '';
  const last = labels.length > 1 ? (labels.at(-1) ?? '') : '';
  const between = Math.max(1, plotted - first.length - last.length);
  return (
    <Box flexDirection="column">
      <Text dimColor wrap="truncate-end">
        {unit} per {group > 1 ? `${group} ${bucket}s` : bucket}
      </Text>
      {chartRows.map((line, index) => (
        <Text key={index} wrap="truncate-end">
          <Text dimColor>{(index === 0 ? compact(max) : '').padStart(axis - 1)} ┤</Text>
          <Text color="green">{line}</Text>
        </Text>
      ))}
      <Text dimColor wrap="truncate-end">
        {'0'.padStart(axis - 1)} └{'─'.repeat(Math.max(1, plotted))}
      </Text>
      <Text dimColor wrap="truncate-end">
        {' '.repeat(axis + 1)}
        {first}
        {last ? `${' '.repeat(between)}${last}` : ''}
      </Text>
    </Box>
  );
}
