import { describe, expect, it } from 'vitest';
import { dashboardReducer, initialState, type DashboardEvent } from './state.js';

const run = (...events: DashboardEvent[]) => events.reduce(dashboardReducer, initialState('apps'));

describe('the dashboard state', () => {
  it('remembers the screens visited, and Esc walks back through them', () => {
    let state = run({ type: 'go', screen: 'keys' }, { type: 'go', screen: 'usage' });
    expect(state).toMatchObject({ screen: 'usage', history: ['apps', 'keys'] });
    state = dashboardReducer(state, { type: 'back' });
    expect(state).toMatchObject({ screen: 'keys', history: ['apps'] });
    state = dashboardReducer(dashboardReducer(state, { type: 'back' }), { type: 'back' });
    expect(state).toMatchObject({ screen: 'apps', history: [] });
  });

  it('going to the screen already shown adds nothing to the history', () => {
    expect(run({ type: 'go', screen: 'apps' }).history).toEqual([]);
  });

  it('keeps the history short', () => {
    const events: DashboardEvent[] = Array.from({ length: 50 }, (_, i) => ({ type: 'go', screen: i % 2 ? 'apps' : 'keys' }));
    expect(run(...events).history).toHaveLength(20);
  });

  it('a new screen starts without the last one’s message, and closes the help', () => {
    const state = run({ type: 'flash', flash: { kind: 'error', text: 'no' } }, { type: 'help', open: true }, { type: 'go', screen: 'credits' });
    expect(state).toMatchObject({ flash: null, help: false });
  });

  it('keeps a filter per screen; leaving a screen stops typing into its filter but keeps it', () => {
    const state = run({ type: 'filter', text: 'shop', editing: true }, { type: 'go', screen: 'keys' });
    expect(state).toMatchObject({ filters: { apps: 'shop' }, filtering: false, screen: 'keys' });
    const keys = dashboardReducer(state, { type: 'filter', text: 'ci', editing: false });
    expect(keys.filters).toEqual({ apps: 'shop', keys: 'ci' });
  });

  it('opens the help at its top; keeps the auto-refresh chosen across screens', () => {
    const state = run({ type: 'help', open: true }, { type: 'helpScroll', offset: 7 }, { type: 'help', open: false }, { type: 'help', open: true });
    expect(state.helpScroll).toBe(0);
    const paused = run({ type: 'refresh', refresh: { everyMs: 2_000, paused: true } }, { type: 'go', screen: 'keys' });
    expect(paused.refresh).toEqual({ everyMs: 2_000, paused: true });
    expect(initialState('apps').refresh).toEqual({ everyMs: 5_000, paused: false });
  });
});
