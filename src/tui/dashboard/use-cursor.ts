import { useCallback, useRef, useState } from 'react';
import type { ListAction } from './keys.js';

/**
 * The selected row of a list. The position is also kept in a ref that each move updates at
 * once: a key that arrives before the screen has redrawn (↓ then Enter in one read) must act
 * on the row the earlier key moved to. The index stays inside the list when the list shrinks.
 */
export function useCursor(count: number, page: number) {
  const [raw, setRaw] = useState(0);
  const position = useRef(0);
  const last = Math.max(0, count - 1);
  const index = Math.min(raw, last);

  const set = useCallback((value: number) => {
    position.current = value;
    setRaw(value);
  }, []);

  const move = useCallback(
    (action: ListAction | string): boolean => {
      const from = Math.min(position.current, last);
      const steps: Partial<Record<string, number>> = {
        up: from - 1,
        down: from + 1,
        pageUp: from - Math.max(1, page),
        pageDown: from + Math.max(1, page),
        first: 0,
        last,
      };
      const to = steps[action];
      if (to === undefined) return false;
      set(Math.max(0, Math.min(last, to)));
      return true;
    },
    [last, page, set],
  );

  /** The row as of the latest key, drawn or not. */
  const current = useCallback(() => Math.min(position.current, last), [last]);

  return { index, move, set, current };
}
