import type { Key } from 'ink';
import { describe, expect, it } from 'vitest';
import { actionIn, globalBindings, listBindings, screenBindings } from './keys.js';
import { SCREEN_IDS } from './screens.js';
import { PLAIN_KEY } from '../shared/plain-key.js';

const key = (over: Partial<Key> = {}): Key => ({ ...PLAIN_KEY, ...over });

describe('the key tables', () => {
  it('give no screen a key that a global or list key already has, nor one key twice', () => {
    const taken = new Set([...globalBindings, ...listBindings].map((binding) => binding.keys));
    for (const screen of SCREEN_IDS) {
      const own = screenBindings[screen].map((binding) => binding.keys);
      expect(own.filter((keys) => taken.has(keys)), screen).toEqual([]);
      expect(new Set(own).size, screen).toBe(own.length);
    }
  });

  it('read the keys as a terminal sends them', () => {
    expect(actionIn(globalBindings, 'q', key())).toBe('quit');
    expect(actionIn(globalBindings, 'c', key({ ctrl: true }))).toBe('exit');
    expect(actionIn(globalBindings, '', key({ tab: true }))).toBe('next');
    expect(actionIn(globalBindings, '', key({ tab: true, shift: true }))).toBe('prev');
    expect(actionIn(globalBindings, '3', key())).toBe('users');
    expect(actionIn(globalBindings, '8', key())).toBe('providers');
    expect(actionIn(globalBindings, '9', key())).toBeNull();
    expect(actionIn(listBindings, '', key({ pageDown: true }))).toBe('pageDown');
    expect(actionIn(screenBindings.apps, 'n', key())).toBe('create');
    // Alt+n is not n.
    expect(actionIn(screenBindings.apps, 'n', key({ meta: true }))).toBeNull();
  });

  it('d describes on every screen (k9s), so deleting is Ctrl+D and withdrawing a downgrade is u', () => {
    expect(actionIn(globalBindings, 'd', key())).toBe('describe');
    expect(actionIn(screenBindings.apps, 'd', key({ ctrl: true }))).toBe('delete');
    expect(actionIn(screenBindings.keys, 'd', key({ ctrl: true }))).toBe('delete');
    expect(actionIn(screenBindings.subscription, 'u', key())).toBe('keepPlan');
    expect(actionIn(globalBindings, ' ', key())).toBe('pause');
  });
});
