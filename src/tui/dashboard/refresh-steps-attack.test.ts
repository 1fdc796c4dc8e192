import { describe, expect, it } from 'vitest';
import { MOST_REFRESH_SECONDS, refreshFromSeconds, stepRefresh, type RefreshState } from './refresh.js';

/**
 * `svc dashboard --refresh SECONDS` takes any whole number up to an hour, beyond the `-`/`+` steps
 * (2 s to 60 s). A step must still go the way its key says: `-` more often, `+` less often.
 */
const from = (seconds: number): RefreshState => {
  const state = refreshFromSeconds(String(seconds));
  if (!state) throw new Error(`--refresh ${seconds} was refused`);
  return state;
};

describe('stepping from an interval outside the steps', () => {
  it('between two steps, `-` goes to the step below', () => {
    expect(stepRefresh(from(3), -1).everyMs).toBe(2_000);
  });

  it('between two steps, `+` goes to the step above, not past it', () => {
    expect(stepRefresh(from(3), 1).everyMs).toBe(5_000);
  });

  it('from --refresh 1, `-` (more often) never makes it less often', () => {
    expect(stepRefresh(from(1), -1).everyMs).toBeLessThanOrEqual(1_000);
  });

  it(`from --refresh ${MOST_REFRESH_SECONDS}, \`+\` (less often) never makes it more often`, () => {
    expect(stepRefresh(from(MOST_REFRESH_SECONDS), 1).everyMs).toBeGreaterThanOrEqual(MOST_REFRESH_SECONDS * 1000);
  });
});
