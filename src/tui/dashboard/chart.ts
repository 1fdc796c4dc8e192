/**
 * Vertical bar charts in terminal characters: eighth blocks give each row eight steps, and
 * buckets are summed into wider groups when there are more of them than columns.
 */
const EIGHTHS = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

export interface FittedBars {
  /** One value per bar (a group of `group` buckets summed). */
  bars: number[];
  group: number;
  /** Columns per bar, a gap included when there is room for one. */
  barWidth: number;
}

export function fitBars(values: readonly number[], width: number): FittedBars {
  const columns = Math.max(1, width);
  const group = Math.max(1, Math.ceil(values.length / columns));
  const bars: number[] = [];
  for (let i = 0; i < values.length; i += group) bars.push(values.slice(i, i + group).reduce((sum, value) => sum + value, 0));
  const barWidth = bars.length === 0 ? 1 : Math.max(1, Math.min(3, Math.floor(columns / bars.length)));
  return { bars, group, barWidth };
}

/** The chart's rows, top first; a non-zero value always shows at least its lowest eighth. */
export function barRows(bars: readonly number[], height: number, barWidth: number): string[] {
  const max = Math.max(0, ...bars);
  const levels = bars.map((value) => (max === 0 || value <= 0 ? 0 : Math.max(1, Math.round((value / max) * height * 8))));
  const block = barWidth > 1 ? barWidth - 1 : 1;
  const gap = barWidth > 1 ? ' ' : '';
  const rows: string[] = [];
  for (let row = height - 1; row >= 0; row--) {
    rows.push(levels.map((level) => (EIGHTHS[Math.max(0, Math.min(8, level - row * 8))] ?? ' ').repeat(block) + gap).join(''));
  }
  return rows;
}
