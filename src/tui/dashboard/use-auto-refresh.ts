import { useEffect, useRef } from 'react';
import type { RefreshState } from './refresh.js';
import type { Ticker } from './ticker.js';

/**
 * Reloads the current screen at the chosen interval, unless paused. A dialog holds it back:
 * the row a form or a question is about must not change under it. A new interval, screen or
 * dialog restarts the beat, so the first reload comes a whole interval after the change.
 */
export function useAutoRefresh(options: { ticker: Ticker; refresh: RefreshState; screen: string; held: boolean; reload: () => void }) {
  const reload = useRef(options.reload);
  reload.current = options.reload;
  const { ticker, refresh, screen, held } = options;
  useEffect(() => {
    if (refresh.paused || held) return;
    return ticker.every(refresh.everyMs, () => reload.current());
  }, [ticker, refresh.everyMs, refresh.paused, screen, held]);
}
