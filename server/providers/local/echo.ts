/**
 * `local/echo`: a deterministic, offline chat model for trying the platform and for tests. It
 * answers in markdown with the user's last message verbatim. When that message has a line
 * `!tool NAME {json}` and a tool NAME is offered, it calls the tool instead; after a tool result
 * it answers with text that contains the result.
 */
import { contentText } from '../tokens.js';

export interface EchoMessage {
  role: string;
  content?: unknown;
  tool_call_id?: string;
  tool_calls?: unknown;
}

export type EchoTurn =
  | { kind: 'text'; text: string }
  | { kind: 'tool_call'; id: string; name: string; arguments: string };

const TOOL_LINE = /^!tool\s+([a-zA-Z0-9_-]{1,64})\s*(\{.*\})?\s*$/m;

function stableId(seed: string): string {
  let hash = 0;
  for (let i = 0; i < seed.length; i++) hash = (Math.imul(hash, 31) + seed.charCodeAt(i)) >>> 0;
  return `call_${hash.toString(36)}${seed.length.toString(36)}`;
}

export function echoTurn(messages: readonly EchoMessage[], offeredTools: readonly string[]): EchoTurn {
  const last = messages.at(-1);
  if (last?.role === 'tool') {
    const call = [...messages]
      .reverse()
      .flatMap((m) => (Array.isArray(m.tool_calls) ? (m.tool_calls as { id?: string; function?: { name?: string } }[]) : []))
      .find((c) => c.id === last.tool_call_id);
    const name = call?.function?.name ?? 'the tool';
    return { kind: 'text', text: `The tool \`${name}\` returned:\n\n${contentText(last.content)}` };
  }
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const text = contentText(lastUser?.content);
  const toolLine = TOOL_LINE.exec(text);
  if (toolLine && offeredTools.includes(toolLine[1] as string)) {
    const args = toolLine[2] ?? '{}';
    return { kind: 'tool_call', id: stableId(`${messages.length}:${text}`), name: toolLine[1] as string, arguments: args };
  }
  return { kind: 'text', text: `**Echo** — you said:\n\n${text}` };
}

/** Splits an answer into stream pieces: words with their following whitespace. */
export function streamPieces(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}
