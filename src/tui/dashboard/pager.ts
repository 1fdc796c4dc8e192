import type { ListAction } from './keys.js';

/**
 * Scrolling a text taller than its room (the help, a row's JSON): the first line shown moves
 * with ↑ ↓ PgUp PgDn Home End and never past the point where the last line reaches the bottom.
 */
export function clampScroll(offset: number, total: number, visible: number): number {
  return Math.max(0, Math.min(offset, total - Math.max(1, visible)));
}

/** The new first line after a list key, or null when the key does not scroll. */
export function scrollBy(action: ListAction | null, offset: number, total: number, visible: number): number | null {
  const page = Math.max(1, visible - 1);
  const to: Partial<Record<ListAction, number>> = {
    up: offset - 1,
    down: offset + 1,
    pageUp: offset - page,
    pageDown: offset + page,
    first: 0,
    last: total,
  };
  const next = action === null ? undefined : to[action];
  return next === undefined ? null : clampScroll(next, total, visible);
}

/** "lines 3–20 of 41 ↑ ↓", or nothing when everything fits. */
export function scrollPosition(offset: number, total: number, visible: number): string {
  if (total <= visible) return '';
  const last = Math.min(total, offset + visible);
  return `lines ${offset + 1}–${last} of ${total}${offset > 0 ? ' ↑' : ''}${last < total ? ' ↓' : ''}`;
}
