import { describe, expect, it } from 'vitest';
import { initialState } from '../state.js';
import { fitStatus, statusParts } from './StatusLine.js';

describe('the status line', () => {
  const state = { ...initialState({ model: 'openai/gpt-4o-mini', toolsEnabled: false }), balance: 1234, lastAnswer: { tokens: 812, credits: 0.42 } };

  it('is one row at any width: the facts that fit, then the hint when there is room', () => {
    for (const columns of [40, 60, 100, 200]) {
      const line = fitStatus(statusParts(state, 0), columns);
      expect(line.length).toBeLessThan(columns);
      expect(line).not.toContain('\n');
      expect(line.startsWith('openai/gpt-4o-mini')).toBe(true);
    }
    expect(fitStatus(statusParts(state, 0), 200)).toMatch(/balance 1234 · tools off +\/help · Ctrl\+D exits$/);
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
});
