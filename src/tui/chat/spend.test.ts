import { describe, expect, it } from 'vitest';
import { addSpend, spendReport, toMicro, totalMicro, type SessionSpend } from './spend.js';

describe("a session's spend", () => {
  it('adds costs exactly, in micro-credits, by the model that answered', () => {
    let spend: SessionSpend = {};
    // 0.1 + 0.2 in floating point is 0.30000000000000004: ten thousand of them must not drift.
    for (let i = 0; i < 10_000; i++) spend = addSpend(spend, i % 2 ? 'a/one' : 'b/two', toMicro(i % 2 ? 0.1 : 0.2), 3);
    expect(totalMicro(spend)).toBe(1_500_000_000);
    expect(spend['a/one']).toEqual({ micro: 500_000_000, tokens: 15_000, requests: 5_000 });
  });

  it('/cost: by model, dearest first, with the cap and what the server says is left', () => {
    const spend = addSpend(addSpend(addSpend({}, 'paid/echo', 1_230_000, 40), 'local/echo', 0, 12), 'paid/echo', 2_000_000, 50);
    expect(spendReport(spend, { limit: 5, remaining: 1.77 })).toBe(
      [
        'Spent this session: 3.23 credits:',
        '  paid/echo   3.23 credits · 2 requests · 90 tokens',
        '  local/echo  0 credits · 1 request · 12 tokens',
        'Cap (--max-spend, kept by the server): 5 credits, 1.77 left.',
      ].join('\n'),
    );
    expect(spendReport({}, null)).toBe('Spent this session: 0 credits.');
  });
});
