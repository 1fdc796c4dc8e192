import type { Writable } from 'node:stream';
import type { Client } from '../client/client.js';
import { runTurn, type TurnEnd } from './engine.js';
import type { ClientTool, WireMessage } from './types.js';

/**
 * `echo "question" | svc chat`: no screen; the answer streams to stdout as plain text. Tools that
 * write run only with `--yes`; otherwise they are declined and the model is told so.
 */
export async function runPipe(options: {
  client: Client;
  model: string;
  system?: string;
  question: string;
  tools: ClientTool[];
  maxToolRounds: number;
  yes: boolean;
  stdout: Writable;
  stderr: Writable;
  signal: AbortSignal;
  onMessage?(message: WireMessage): void;
}): Promise<TurnEnd> {
  let endsWithNewline = true;
  const end = await runTurn(options.client, {
    model: options.model,
    messages: [...(options.system ? [{ role: 'system' as const, content: options.system }] : []), { role: 'user', content: options.question }],
    tools: options.tools,
    maxToolRounds: options.maxToolRounds,
    signal: options.signal,
    approve: async (call) => {
      if (!options.yes) options.stderr.write(`svc: declined ${call.function.name} (it writes; pass --yes to allow)\n`);
      return options.yes;
    },
    onEvent: (event) => {
      if (event.type === 'delta') {
        options.stdout.write(event.text);
        endsWithNewline = event.text.endsWith('\n');
      } else if (event.type === 'message') {
        options.onMessage?.(event.message);
      }
    },
  });
  if (!endsWithNewline) options.stdout.write('\n');
  return end;
}
