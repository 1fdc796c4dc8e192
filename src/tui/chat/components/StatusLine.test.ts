import { describe, expect, it } from 'vitest';
import { initialState } from '../state.js';
import { fitStatus, statusParts } from './StatusLine.js';

describe('the status line', () => {
  const state = {
    ...initialState({ model: 'openai/gpt-4o-mini', toolsEnabled: false }),
    balance: 1234,
    lastAnswer: { tokens: 812, credits: 0.42, asked: 'openai/gpt-4o-mini', answeredBy: 'openai/gpt-4o-mini' },
    spend: { 'openai/gpt-4o-mini': { micro: 1_320_000, tokens: 2000, requests: 3 } },
  };

  it('is one row at any width: the facts that fit, then the hint when there is room', () => {
    for (const columns of [40, 60, 100, 200]) {
      const line = fitStatus(statusParts(state, 0), columns);
      expect(line.length).toBeLessThan(columns);
      expect(line).not.toContain('\n');
      expect(line.startsWith('openai/gpt-4o-mini')).toBe(true);
    }
    expect(fitStatus(statusParts(state, 0), 200)).toMatch(
      /^openai\/gpt-4o-mini · 812 tokens · 0\.42 credits · balance 1234 · session 1\.32 · tools off +\/help · Ctrl\+D exits$/,
    );
    expect(fitStatus(statusParts(state, 0), 40)).toBe('openai/gpt-4o-mini · 812 tokens');
  });

  it('while answering: a spinner, the time, the tokens so far and the tool running', () => {
    const busy = { ...state, busy: true, progress: { startedAt: 1_000, tokens: 57, tool: 'search_memory' } };
    expect(fitStatus(statusParts(busy, 3_400), 100)).toMatch(/^\S 2\.4s · 57 tokens · running search_memory · openai\/gpt-4o-mini +Esc cancels$/);
  });

  it('the first frame of an answer, drawn with a clock read before it started, says 0.0s with a spinner', () => {
    const busy = { ...state, busy: true, progress: { startedAt: 20_000, tokens: 0, tool: null } };
    const line = fitStatus(statusParts(busy, 8_000), 100);
    expect(line).toMatch(/^⠋ 0\.0s · 0 tokens · openai\/gpt-4o-mini +Esc cancels$/);
    expect(line).not.toContain('undefined');
  });

  it('names the model that answered when a route served another than the one asked', () => {
    const routed = { ...state, model: 'fast', lastAnswer: { ...state.lastAnswer, asked: 'fast', answeredBy: 'openai/gpt-4o-mini' } };
    expect(fitStatus(statusParts(routed, 0), 200)).toMatch(/^fast → openai\/gpt-4o-mini · 812 tokens · 0\.42 credits · balance 1234 · session 1\.32 ·/);
    // After /model, the last answer was asked of another model: no arrow, as nothing was rerouted.
    const switched = { ...routed, model: 'anthropic/claude-haiku-4-5' };
    expect(fitStatus(statusParts(switched, 0), 200)).toMatch(/^anthropic\/claude-haiku-4-5 · 812 tokens/);
  });

  it('a --max-spend session shows its spend against the cap, from the start', () => {
    const capped = initialState({ model: 'paid/echo', toolsEnabled: true, maxSpend: 5 });
    expect(fitStatus(statusParts(capped, 0), 100)).toMatch(/^paid\/echo · session 0 of max 5 +\/help/);
    const spent = { ...capped, spend: { 'paid/echo': { micro: 4_250_000, tokens: 40, requests: 2 } } };
    expect(fitStatus(statusParts(spent, 0), 100)).toMatch(/^paid\/echo · session 4\.25 of max 5 +\/help/);
  });
});
