import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Bot } from './bot.js';
import { parseIncoming } from './incoming.js';
import { Problem } from './problem.js';

const MAX_BODY_BYTES = 64 * 1024;

function send(res: ServerResponse, status: number, body: object): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** The body as text, or null when it is larger than the limit (read to the end either way, so an answer can still be sent). */
async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  return size <= MAX_BODY_BYTES ? Buffer.concat(chunks).toString('utf8') : null;
}

async function handle(bot: Bot, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.url !== '/messages') return send(res, 404, { error: 'Not found: messages go to POST /messages.' });
  if (req.method !== 'POST') return send(res, 405, { error: 'Use POST.' });
  const body = await readBody(req);
  if (body === null) return send(res, 413, { error: `The body is larger than ${MAX_BODY_BYTES} bytes.` });
  const message = parseIncoming(body);
  if (!message) return send(res, 400, { error: 'Expected JSON {"sender": "…", "text": "…"}.' });
  send(res, 200, { reply: await bot.reply(message.sender, message.text) });
}

/**
 * `POST /messages` takes one incoming message and answers `{"reply": "…"}`. `explain` turns a
 * failure the user can fix into a Problem, whose message is logged and sent back; anything else
 * is a bug, logged with its stack.
 */
export function createMessageServer(bot: Bot, explain: (error: unknown) => unknown): Server {
  return createServer((req, res) => {
    handle(bot, req, res).catch((error: unknown) => {
      const problem = explain(error);
      console.error(problem instanceof Problem ? problem.message : problem);
      if (res.headersSent) return;
      if (problem instanceof Problem) send(res, 502, { error: problem.message });
      else send(res, 500, { error: 'The bot failed; see its log.' });
    });
  });
}
