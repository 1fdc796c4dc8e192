import { useCallback, useEffect, useRef, useState } from 'react';
import { describeError } from './errors.js';

/**
 * Data a screen loads: loading, ready or failed. A reload keeps the last data on screen
 * (`refreshing`) so a list does not blink, and an answer that arrives after a newer request
 * was made, or after the screen has gone, is dropped.
 */
export type Resource<T> =
  | { status: 'loading' }
  | { status: 'ready'; data: T; refreshing: boolean }
  | { status: 'error'; error: string };

export function useResource<T>(load: (() => Promise<T>) | null, deps: readonly unknown[]) {
  const [resource, setResource] = useState<Resource<T>>({ status: 'loading' });
  const latest = useRef(0);
  const loader = useRef(load);
  loader.current = load;

  const reload = useCallback(async () => {
    const run = loader.current;
    const request = ++latest.current;
    if (!run) return;
    setResource((current) => (current.status === 'ready' ? { ...current, refreshing: true } : { status: 'loading' }));
    try {
      const data = await run();
      if (request === latest.current) setResource({ status: 'ready', data, refreshing: false });
    } catch (error) {
      if (request === latest.current) setResource({ status: 'error', error: describeError(error).text });
    }
  }, []);

  useEffect(() => {
    setResource({ status: 'loading' });
    void reload();
    return () => {
      latest.current++;
    };
    // The caller names what the load depends on (reload itself never changes).
  }, [reload, ...deps]);

  return { resource, reload };
}

/** The data of a resource when it has some. */
export const dataOf = <T>(resource: Resource<T>): T | null => (resource.status === 'ready' ? resource.data : null);
