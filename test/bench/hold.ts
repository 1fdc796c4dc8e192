import { boundsOf, estimateChatInputTokens, inputBoundOf, type InputBounds } from '../../server/providers/tokens.js';
import type { ChatBody } from '../../server/providers/types.js';
import { formatMs, median } from './lib/stats.js';
import { printTable } from './lib/table.js';

/** Target (issue 23): the hold of a 100k-token conversation is computed within this. */
const TARGET_MS = 5;
const RUNS = 20;

/** A conversation of about 100k o200k tokens: 200 turns of mixed prose, code, numbers and CJK. */
function conversation(seed: string): ChatBody['messages'] {
  const turn = (i: number) =>
    `${seed} turn ${i}: the quick brown fox jumps over the lazy dog, ${i * 7919} apples; ` +
    'function add(a, b) { return a + b; } // 東京の天気は晴れ 🌤️ '.repeat(10) +
    'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor. '.repeat(15);
  return Array.from({ length: 200 }, (_, i) => ({ role: i % 2 ? ('assistant' as const) : ('user' as const), content: turn(i) }));
}

const time = (run: () => unknown) => {
  const started = performance.now();
  run();
  return performance.now() - started;
};

/** `npm run bench hold`: how long the input bound of a hold takes, by counting. */
export async function hold(): Promise<void> {
  const gpt = boundsOf({ provider: 'openai', model: 'gpt-4o', imageTokens: undefined, contextLength: null });
  const claude = boundsOf({ provider: 'anthropic', model: 'claude-sonnet-4-5', imageTokens: 1_600, contextLength: null });
  const rows: string[][] = [];
  /** What a hold computes first (`held`), or the tokenizer's exact bound it falls back to when that hold is refused. */
  const measure = (name: string, bounds: InputBounds, body: () => Pick<ChatBody, 'messages' | 'tools'>, exact = false) => {
    const times: number[] = [];
    let tokens = 0;
    for (let i = 0; i < RUNS; i++) {
      const request = body();
      times.push(
        time(() => {
          const input = inputBoundOf((b) => estimateChatInputTokens(request, b), bounds);
          tokens = exact ? input.exact() : input.held;
        }),
      );
    }
    const ms = median(times);
    // The exact count runs only for a refused hold (then the request is answered 402 or held again): no target.
    rows.push([name, String(tokens), formatMs(ms), exact ? '(no target)' : ms <= TARGET_MS ? 'yes' : 'no']);
  };

  // Each run a conversation never seen: the hold takes its bytes bound, nothing is tokenized.
  let fresh = 0;
  measure('gpt-4o (o200k), first sight, held by bytes', gpt, () => ({ messages: conversation(`fresh ${fresh++}`) }));
  // The next turn of a conversation: its history as the last turn sent it, and one new message.
  const history = conversation('ongoing');
  inputBoundOf((b) => estimateChatInputTokens({ messages: history }, b), gpt).exact();
  let next = 0;
  measure('gpt-4o exact, next turn (history cached)', gpt, () => ({ messages: [...history, { role: 'user', content: `and now ${next++}?` }] }), true);
  measure('claude (UTF-8 bytes)', claude, () => ({ messages: conversation(`bytes ${fresh++}`) }));
  measure('gpt-4o exact, first sight (a refused hold)', gpt, () => ({ messages: conversation(`exact ${fresh++}`) }), true);

  printTable(`hold: input bound of a ~100k-token conversation (median of ${RUNS}; target ${TARGET_MS} ms)`, ['counting', 'input tokens held', 'time', 'within'], rows);
}
