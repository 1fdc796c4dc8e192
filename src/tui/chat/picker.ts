/**
 * A list to pick from, narrowed by what is typed: the models (/model), past conversations
 * (/resume), the input history (Ctrl+R).
 *
 * The history may hold ten thousand entries of a hundred kilobytes each, and the screen shows ten
 * rows: everything here works through the items only as far as the rows asked for, and never
 * copies, lowercases or measures a whole item (see display-line.ts for how a row is drawn).
 */
export interface PickerItem {
  /** What picking it gives (a model id, a conversation id, a past input). */
  value: string;
  /** What is shown and filtered: the value itself for the history. */
  label: string;
}

/** The items of a list, read one at a time: opening the history does not copy ten thousand entries. */
export interface PickerItems {
  readonly size: number;
  at(index: number): PickerItem;
}

export interface Picker {
  purpose: 'model' | 'history' | 'conversation';
  title: string;
  items: PickerItems;
  filter: string;
  /** The highlighted row of the filtered items. */
  index: number;
}

/**
 * How much of a long item the filter reads: its start and its end. A long input is mostly a paste
 * with what was typed around it, and reading all of ten thousand large ones at every key would
 * stall the screen.
 */
export const FILTERED_SPAN = 2000;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function filterTest(filter: string): (label: string) => boolean {
  if (!filter) return () => true;
  // A case-insensitive expression reads the label in place (lowercasing would copy it).
  const pattern = new RegExp(escapeRegExp(filter), 'i');
  return (label) =>
    label.length <= 2 * FILTERED_SPAN ? pattern.test(label) : pattern.test(label.slice(0, FILTERED_SPAN)) || pattern.test(label.slice(-FILTERED_SPAN));
}

/** The first `count` items that match the filter, each value once, in the list's order. */
export function pickerMatches(picker: Picker, count: number): PickerItem[] {
  const matches = filterTest(picker.filter);
  const seen = new Set<string>();
  const found: PickerItem[] = [];
  for (let i = 0; i < picker.items.size && found.length < count; i++) {
    const item = picker.items.at(i);
    if (seen.has(item.value) || !matches(item.label)) continue;
    seen.add(item.value);
    found.push(item);
  }
  return found;
}

/** The highlighted item, if anything matches. */
export const pickerChoice = (picker: Picker): PickerItem | undefined => pickerMatches(picker, picker.index + 1)[picker.index];

/** One row up or down, staying on the matches. */
export function movePicker(picker: Picker, step: -1 | 1): Picker {
  const index = picker.index + step;
  return index >= 0 && pickerMatches(picker, index + 1).length > index ? { ...picker, index } : picker;
}

/** The rows a window of `rows` shows, the highlighted one in it, and where they start. */
export function pickerWindow(picker: Picker, rows: number): { first: number; rows: PickerItem[] } {
  const visible = Math.max(1, rows);
  const first = Math.max(0, picker.index - visible + 1);
  return { first, rows: pickerMatches(picker, first + visible).slice(first) };
}

export const listItems = (items: readonly PickerItem[]): PickerItems => ({ size: items.length, at: (index) => items[index] as PickerItem });

/** A list of plain strings (model ids, past inputs), shown as they are; `newestFirst`: last one first. */
export function plainItems(values: readonly string[], order: 'asGiven' | 'newestFirst' = 'asGiven'): PickerItems {
  const valueAt = order === 'asGiven' ? (index: number) => values[index] as string : (index: number) => values[values.length - 1 - index] as string;
  return {
    size: values.length,
    at(index) {
      const value = valueAt(index);
      return { value, label: value };
    },
  };
}
