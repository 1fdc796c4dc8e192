import wrapAnsi from 'wrap-ansi';
import { globalBindings, listBindings, screenBindings, type ListAction } from './keys.js';
import { SCREENS, type ScreenId } from './screens.js';

/**
 * The help as rows of text that fit the terminal's width: the sections (everywhere, this screen,
 * lists) flow down as many columns as the width holds, each description wrapped under itself.
 * Laid out here, not by Ink, so the help knows its height and scrolls when it is taller than
 * the screen.
 */
export interface HelpCell {
  keys: string;
  text: string;
  title: boolean;
}

/** One row of the help: a cell per column, each `width` wide. */
export interface HelpLayout {
  columnWidth: number;
  rows: HelpCell[][];
}

interface Entry {
  keys: string;
  description: string;
}

const COLUMN_MIN = 38;
const MAX_COLUMNS = 3;
const KEYS_MAX = 12;

const screenIds = new Set<string>(SCREENS.map((screen) => screen.id));

/** List keys that go in pairs share a line of the help: "↑ ↓  move up / move down". */
const PAIRS: readonly (readonly [ListAction, ListAction])[] = [
  ['up', 'down'],
  ['left', 'right'],
  ['pageUp', 'pageDown'],
  ['first', 'last'],
];

function listEntries(): Entry[] {
  const byAction = new Map(listBindings.map((binding) => [binding.action, binding]));
  const paired = new Set(PAIRS.flat());
  return [
    ...PAIRS.flatMap(([a, b]) => {
      const first = byAction.get(a);
      const second = byAction.get(b);
      return first && second ? [{ keys: `${first.keys} ${second.keys}`, description: `${first.description} / ${second.description}` }] : [];
    }),
    ...listBindings.filter((binding) => !paired.has(binding.action)),
  ];
}

function sections(screen: ScreenId): { title: string; entries: readonly Entry[] }[] {
  const everywhere: Entry[] = [
    ...globalBindings.filter((binding) => !screenIds.has(binding.action)),
    { keys: `1–${SCREENS.length}`, description: 'go to a screen' },
  ];
  const title = SCREENS.find((entry) => entry.id === screen)?.title ?? screen;
  return [
    { title: 'Everywhere', entries: everywhere },
    { title, entries: screenBindings[screen] },
    { title: 'Lists', entries: listEntries() },
  ];
}

const blank: HelpCell = { keys: '', text: '', title: false };

export function helpLayout(screen: ScreenId, width: number): HelpLayout {
  const columns = Math.max(1, Math.min(MAX_COLUMNS, Math.floor(width / COLUMN_MIN)));
  const columnWidth = Math.floor(width / columns);
  const all = sections(screen);
  const keysWidth = Math.min(KEYS_MAX, Math.max(...all.flatMap((section) => section.entries.map((entry) => entry.keys.length))) + 2);
  // One gap column between columns of the help.
  const textWidth = Math.max(8, columnWidth - keysWidth - 1);
  // Blocks that stay together: a section's title (after a blank line), an entry and its wrapped lines.
  const blocks: HelpCell[][] = all.flatMap((section, index) => [
    [...(index > 0 ? [blank] : []), { keys: '', text: section.title, title: true }],
    ...section.entries.map((entry) =>
      wrapAnsi(entry.description, textWidth, { hard: true })
        .split('\n')
        .map((text, line): HelpCell => ({ keys: line === 0 ? entry.keys : '', text, title: false })),
    ),
  ]);
  const total = blocks.reduce((sum, block) => sum + block.length, 0);
  const target = Math.ceil(total / columns);
  const filled: HelpCell[][] = [[]];
  for (const block of blocks) {
    let column = filled.at(-1) ?? [];
    if (column.length > 0 && column.length + block.length > target && filled.length < columns) {
      column = [];
      filled.push(column);
    }
    // A column does not start with the blank line that separates sections.
    column.push(...(column.length === 0 && block[0] === blank ? block.slice(1) : block));
  }
  const height = Math.max(...filled.map((column) => column.length));
  const rows = Array.from({ length: height }, (_, row) => filled.map((column) => column[row] ?? blank));
  return { columnWidth, rows: rows.map((row) => row.map((cell) => ({ ...cell, keys: cell.keys.padEnd(cell.title ? 0 : keysWidth) }))) };
}

export const helpRows = (screen: ScreenId, width: number) => helpLayout(screen, width).rows;

/** The help's room in the screen's body: the last line says how to close and scroll it. */
export const helpRoom = (view: { columns: number; rows: number }) => ({ width: view.columns, rows: Math.max(1, view.rows - 1) });
