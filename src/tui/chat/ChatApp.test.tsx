import { cleanup, render } from 'ink-testing-library';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { useMemoryFiles } from '../../../test/memory/helpers.js';
import { createOwnerApp } from '../../../test/helpers/api.js';
import { pricedProvider, stallingAdapter } from '../../../test/helpers/providers.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { adminTools } from '../../chat/admin-tools.js';
import { chatMemory } from '../../chat/memory-adapter.js';
import type { ChatMemory } from '../../chat/memory-port.js';
import type { ClientTool } from '../../chat/types.js';
import { createClient, type Client } from '../../client/client.js';
import { createSessionKey } from '../../cli/commands/chat-max-spend.js';
import { buildManifest } from '../../contract/manifest.js';
import { ChatApp } from './ChatApp.js';
import type { ChatSettings, InputHistory } from './session.js';
import { fileHistory } from '../../chat/input-history.js';
import { expandHome } from './path-complete.js';
import { BRACKETED_PASTE_OFF, BRACKETED_PASTE_ON } from './paste.js';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The chat screen as a user meets it: keys into stdin, the drawn frame out, against the real
 * server and its offline `local/echo` model (which echoes the question, and calls a tool for a
 * `!tool NAME {json}` line).
 */

const KEY = {
  enter: '\r',
  esc: '\u001b',
  ctrlC: '\u0003',
  ctrlD: '\u0004',
  up: '\u001b[A',
  down: '\u001b[B',
  left: '\u001b[D',
  right: '\u001b[C',
  tab: '\t',
  ctrlJ: '\n',
  ctrlA: '\u0001',
  ctrlE: '\u0005',
  ctrlK: '\u000b',
  ctrlU: '\u0015',
  ctrlW: '\u0017',
  ctrlG: '\u0007',
  ctrlR: '\u0012',
  ctrlX: '\u0018',
  altB: '\u001bb',
  altF: '\u001bf',
  altLeft: '\u001b[1;3D',
  altRight: '\u001b[1;3C',
  pasteStart: '\u001b[200~',
  pasteEnd: '\u001b[201~',
};
const PLACEHOLDER = 'Ask anything';
const SETTINGS: ChatSettings = {
  model: 'local/echo',
  toolsEnabled: true,
  maxToolRounds: 8,
  contextMessages: 40,
  maxFileBytes: 64 * 1024,
  liveRows: 40,
  redrawMs: 0,
};
const GREEN = 'my favourite colour is green';
/** How long a wait for the screen may take: generous, for a loaded CI machine (a wait ends as soon as its condition holds). */
const WAIT_MS = 10_000;
/** A question that makes `local/echo` call the vault save tool, when it is offered. */
const saveRequest = (content: string) => `!tool memory_vault_save {"content":"${content}"}`;

let server: TestServer;
let stalling: TestServer;
beforeAll(async () => {
  [server, stalling] = await Promise.all([startTestServer(), startTestServer({ providers: [pricedProvider(stallingAdapter(['partial ', 'answer ']))] })]);
});
afterAll(() => Promise.all([server.close(), stalling.close()]));
afterEach(() => cleanup());

const memoryFiles = useMemoryFiles();
/** A real client-side memory in a temp file, embedding with a deterministic bag of words. */
const openChatMemory = (): ChatMemory => chatMemory(memoryFiles.open().memory);

function openChat(
  options: {
    on?: TestServer;
    apiKey?: string;
    memory?: ChatMemory;
    settings?: Partial<ChatSettings>;
    extraTools?: ClientTool[];
    history?: InputHistory;
    resume?: string;
    /** The chat's client (a session key's); else one with `apiKey` on `on`. */
    client?: Client;
    maxSpend?: number;
  } = {},
) {
  const on = options.on ?? server;
  const exit = vi.fn();
  /** What the chat writes straight to the terminal, and when Ink takes or leaves raw mode, in order. */
  const terminalLog: string[] = [];
  const app = render(
    <ChatApp
      client={options.client ?? createClient({ baseUrl: on.url, apiKey: options.apiKey ?? on.liveKey })}
      {...(options.maxSpend !== undefined ? { maxSpend: options.maxSpend } : {})}
      memory={options.memory ?? null}
      settings={{ ...SETTINGS, ...options.settings }}
      extraTools={options.extraTools ?? []}
      {...(options.history ? { history: options.history } : {})}
      {...(options.resume ? { resume: options.resume } : {})}
      exit={exit}
      writeRaw={(text) => terminalLog.push(text)}
    />,
  );
  Object.assign(app.stdin, { setRawMode: (on: boolean) => terminalLog.push(`raw mode ${on ? 'on' : 'off'}`) });
  const screen = () => stripVTControlCharacters(app.lastFrame() ?? '');
  const lines = () => screen().split('\n');
  /** Waits until the screen shows `expected` (drawing happens after the key, not during it). */
  const shows = (expected: string | RegExp) =>
    vi.waitFor(() => (typeof expected === 'string' ? expect(screen()).toContain(expected) : expect(screen()).toMatch(expected)), { timeout: WAIT_MS });
  const press = (...keys: string[]) => keys.forEach((key) => app.stdin.write(key));
  /** Types `text`, then Enter as a key of its own. */
  const send = (text: string) => press(text, KEY.enter);
  return {
    exit,
    terminalLog,
    screen,
    /** Where the frames drawn from now on start, for `drawnSince`. */
    mark: () => app.frames.length,
    /** What the frames since `mark` drew (a dialog that came and went is in there). */
    drawnSince: (mark: number) => stripVTControlCharacters(app.frames.slice(mark).join('\n')),
    shows,
    press,
    send,
    /** The bottom line: model, tokens, balance, hint. */
    status: () => lines().filter((line) => line.trim()).at(-1) ?? '',
    /** The composer: the last line that starts with the prompt sign. */
    prompt: () => lines().findLast((line) => line.startsWith('› ')) ?? '',
    /** Waits until the prompt takes a question again. */
    idle() {
      return vi.waitFor(() => expect(this.prompt()).toContain(PLACEHOLDER), { timeout: WAIT_MS });
    },
    /** Sends a question and waits for its echo and for the prompt to be back. */
    async ask(question: string) {
      send(question);
      await shows(`you said:\n\n${question}`);
      await this.idle();
    },
  };
}

type Chat = ReturnType<typeof openChat>;

/** Asks for a vault save and waits for the approval dialog. */
async function saveAsked(chat: Chat, content: string) {
  chat.send(saveRequest(content));
  await chat.shows('The model wants to run memory_vault_save:');
  expect(chat.screen()).toContain(`Save to the vault [private]: ${content}`);
  expect(chat.screen()).toContain('[a] allow once');
}

/** With tools off, a `!tool` line is no call: it comes back as text, and no dialog asks. */
async function echoedAsText(chat: Chat) {
  await vi.waitFor(() => expect(chat.status()).toContain('tools off'));
  const mark = chat.mark();
  await chat.ask(saveRequest(GREEN));
  expect(chat.drawnSince(mark)).not.toContain('wants to run');
}

describe('the chat screen', () => {
  it('streams an answer; the status line shows its tokens and the balance', async () => {
    const chat = openChat();
    await chat.shows(PLACEHOLDER);
    await chat.shows('balance 100');
    await chat.ask('what is the capital of France?');
    expect(chat.screen()).toContain('› what is the capital of France?');
    expect(chat.screen()).toContain('Echo — you said:');
    await vi.waitFor(() => expect(chat.status()).toMatch(/^local\/echo · [1-9]\d* tokens · 0 credits · balance 100 · session 0\b/));
  });

  it('a chunk that ends in Enter is typing, then Enter', async () => {
    const chat = openChat();
    chat.press('typed in one go\r');
    await chat.shows('you said:\n\ntyped in one go');
  });

  it('keys that come faster than the screen redraws build on each other', async () => {
    const chat = openChat();
    chat.press('ac', KEY.left, 'b', KEY.right, 'd', KEY.enter);
    await chat.shows('you said:\n\nabcd');
  });

  it('a pasted block with line breaks stays one message', async () => {
    const chat = openChat();
    chat.press('line one\rline two\r\nline three');
    await vi.waitFor(() => expect(chat.screen()).toContain('line three'));
    expect(chat.screen()).not.toContain('you said');
    chat.press(KEY.enter);
    await chat.shows(/you said:\n\nline one\s+line two\s+line three/);
    expect(chat.screen().match(/you said/g)).toHaveLength(1);
  });

  it('walks the input history with ↑ and ↓', async () => {
    const chat = openChat();
    await chat.ask('first question');
    await chat.ask('second question');
    chat.press('draft');
    chat.press(KEY.up);
    await vi.waitFor(() => expect(chat.prompt()).toBe('› second question'));
    chat.press(KEY.up);
    await vi.waitFor(() => expect(chat.prompt()).toBe('› first question'));
    chat.press(KEY.down);
    await vi.waitFor(() => expect(chat.prompt()).toBe('› second question'));
    chat.press(KEY.down);
    await vi.waitFor(() => expect(chat.prompt()).toBe('› draft'));
  });
});

describe('cancelling and leaving', () => {
  /** A question to `paid/echo`, whose stream says "partial answer" and then stalls: drawn as it streams. */
  async function stalled() {
    const chat = openChat({ on: stalling, settings: { model: 'paid/echo' } });
    chat.send('tell me everything');
    await chat.shows(/partial answer[\s\S]*Esc cancels/);
    return chat;
  }

  /** The partial answer stays, marked, and the prompt takes the next question. */
  async function expectCancelled(chat: Chat) {
    await chat.shows(/partial answer\n\(cancelled\)/);
    await chat.idle();
    chat.send('/model local/echo');
    await chat.shows('Model: local/echo');
    await chat.ask('still here?');
    expect(chat.exit).not.toHaveBeenCalled();
  }

  it('Esc cancels a slow answer', async () => {
    const chat = await stalled();
    chat.press(KEY.esc);
    await expectCancelled(chat);
  });

  it('after a cancel, the status line shows what was really charged and the balance, not the hold', async () => {
    const balanceOf = async () => (await stalling.call('GET', '/api/v1/credits/balance')).body as { credits: number; held_credits: number };
    const chat = openChat({ on: stalling, settings: { model: 'paid/echo' } });
    await vi.waitFor(() => expect(chat.status()).toMatch(/balance \d/));
    const before = (await balanceOf()).credits;
    chat.send('tell me everything');
    await chat.shows(/partial answer[\s\S]*Esc cancels/);
    chat.press(KEY.esc);
    await chat.shows(/\(cancelled\)/);
    await vi.waitFor(() => expect(chat.status()).toMatch(/credits · balance [\d.]+ · session [\d.]+/));
    const after = await balanceOf();
    expect(after.held_credits).toBe(0);
    const charged = Number(/tokens · ([\d.]+) credits/.exec(chat.status())?.[1]);
    // A cancelled answer reports no usage: what the balance lost is what the session counts.
    expect(Number(/session ([\d.]+)/.exec(chat.status())?.[1])).toBe(charged);
    const shownBalance = Number(/balance ([\d.]+)/.exec(chat.status())?.[1]);
    expect(charged).toBeCloseTo(before - after.credits, 1);
    // paid/echo holds 100 output tokens (20 credits) on top of the input; what is charged is the
    // input (bounded by its UTF-8 bytes: paid/echo has no known tokenizer) and the few tokens produced.
    expect(charged).toBeGreaterThan(0);
    expect(charged).toBeLessThan(20);
    expect(shownBalance).toBeCloseTo(after.credits, 0);
  });

  it('Ctrl+C cancels a slow answer too', async () => {
    const chat = await stalled();
    chat.press(KEY.ctrlC);
    await expectCancelled(chat);
  });

  it('Ctrl+C twice on an empty prompt exits; once only warns', async () => {
    const chat = openChat();
    await chat.shows(PLACEHOLDER);
    chat.press('some text', KEY.ctrlC);
    await chat.idle();
    expect(chat.exit).not.toHaveBeenCalled();
    chat.press(KEY.ctrlC);
    await vi.waitFor(() => expect(chat.status()).toContain('Ctrl+C again to exit'));
    expect(chat.exit).not.toHaveBeenCalled();
    chat.press(KEY.ctrlC);
    expect(chat.exit).toHaveBeenCalledTimes(1);
  });

  it('Ctrl+D exits on an empty prompt, and not while there is text', async () => {
    const chat = openChat();
    await chat.shows(PLACEHOLDER);
    chat.press('unsent', KEY.ctrlD);
    expect(chat.exit).not.toHaveBeenCalled();
    chat.press(KEY.ctrlC, KEY.ctrlD);
    expect(chat.exit).toHaveBeenCalledTimes(1);
  });
});

describe('errors', () => {
  it('/model checks the id against the server at once: an unknown model or provider is an error, and nothing changes', async () => {
    const chat = openChat();
    chat.send('/model nope/x');
    await chat.shows(/✖ No provider 'nope' is configured on this server \(it has local\)\.\s+\/model lists the models\./);
    chat.send('/model local/nothing');
    await chat.shows(/✖ This server has no chat model 'local\/nothing'\./);
    // An embeddings model is no chat model either.
    chat.send('/model local/embed');
    await chat.shows(/✖ This server has no chat model 'local\/embed'\./);
    expect(chat.status()).toMatch(/^local\/echo\b/);
    await chat.ask('and now?');
  });
});

describe('slash commands', () => {
  it('/help lists the commands and the keys', async () => {
    const chat = openChat();
    chat.send('/help');
    await chat.shows('Commands:');
    for (const text of ['/model', '/tools on|off', '/memory <query>', 'Keys:', 'Esc — cancel the answer', 'Ctrl+D — exit']) {
      expect(chat.screen()).toContain(text);
    }
  });

  it('Tab completes a command', async () => {
    const chat = openChat();
    chat.press('/he');
    await chat.shows('/help — commands and keys');
    chat.press(KEY.tab);
    await vi.waitFor(() => expect(chat.prompt()).toBe('› /help'));
    chat.press(KEY.enter);
    await chat.shows('Commands:');
  });

  it('/model opens a picker: typing filters, ↑ ↓ move, Enter switches, Esc closes; /model <id> switches', async () => {
    const chat = openChat({ on: stalling });
    chat.send('/model');
    await chat.shows(/Model · type to filter/);
    expect(chat.screen()).toMatch(/› local\/echo/);
    expect(chat.screen()).toContain('paid/echo');
    chat.press('pai');
    await chat.shows(/Model · type to filter.*pai/);
    await vi.waitFor(() => expect(chat.screen()).not.toMatch(/^(› | {2})local\/echo/m));
    chat.press(KEY.enter);
    await chat.shows('Model: paid/echo');
    await vi.waitFor(() => expect(chat.status()).toMatch(/^paid\/echo · balance/));
    chat.send('/model');
    await chat.shows(/Model · type to filter/);
    chat.press(KEY.esc);
    await vi.waitFor(() => expect(chat.screen()).not.toMatch(/Model · type to filter/));
    expect(chat.status()).toMatch(/^paid\/echo\b/);
    chat.send('/model local/echo');
    await chat.shows('Model: local/echo');
  });

  it('/tools off stops offering tools, /tools on offers them again', async () => {
    const chat = openChat({ memory: openChatMemory() });
    chat.send('/tools off');
    await chat.shows('Tools off.');
    await echoedAsText(chat);
    chat.send('/tools on');
    await chat.shows('Tools on.');
    await vi.waitFor(() => expect(chat.status()).not.toContain('tools off'));
    await saveAsked(chat, GREEN);
  });

  it('/new starts a new conversation; an unknown command says so', async () => {
    const chat = openChat();
    chat.send('/new');
    await chat.shows('New conversation.');
    chat.send('/frobnicate now');
    await chat.shows('Unknown command /frobnicate. /help lists them.');
  });

  it('/memory finds a message of an earlier conversation', async () => {
    const memory = openChatMemory();
    const earlier = memory.startConversation('local/echo');
    memory.append(earlier, { role: 'user', content: 'my cat is called Miso and she loves tuna' });
    const chat = openChat({ memory });
    chat.send('/memory what is my cat called');
    await chat.shows('Memory:');
    expect(chat.screen()).toMatch(/0\.\d\d .*my cat is called Miso and she loves tuna/);
  });
});

describe('approval of a tool that writes', () => {
  /** A chat with a fresh memory that asks to save GREEN; the dialog gets `key`, and `shown` follows. */
  async function answered(key: string, shown: string) {
    const chat = openChat({ memory: openChatMemory() });
    await saveAsked(chat, GREEN);
    chat.press(key);
    await chat.shows(shown);
    expect(chat.screen()).not.toContain('[a] allow once');
    await chat.idle();
    return chat;
  }

  it('a allows once: the vault has the entry', async () => {
    const chat = await answered('a', 'The tool memory_vault_save returned:');
    chat.send('/vault');
    await chat.shows(new RegExp(`Vault:\n {2}vlt_\\S+ \\[private\\] ${GREEN}`));
  });

  it('d denies: nothing is saved, and the transcript says it was declined', async () => {
    const chat = await answered('d', 'The user declined this save');
    chat.send('/vault');
    await chat.shows('The vault is empty.');
  });

  it('s allows for the session: the next save does not ask', async () => {
    const chat = await answered('s', 'The tool memory_vault_save returned:');
    const mark = chat.mark();
    chat.send(saveRequest('my favourite fruit is a mango'));
    await vi.waitFor(() => expect(chat.screen().match(/The tool memory_vault_save returned:/g)).toHaveLength(2));
    expect(chat.drawnSince(mark)).not.toContain('wants to run');
    await chat.idle();
    chat.send('/vault');
    await chat.shows('Vault:');
    expect(chat.screen()).toContain(GREEN);
    expect(chat.screen()).toContain('my favourite fruit is a mango');
  });

  it('with tools off (--no-tools) the model is not offered the tool: the line comes back as text', async () => {
    const chat = openChat({ memory: openChatMemory(), settings: { toolsEnabled: false } });
    await echoedAsText(chat);
    chat.send('/vault');
    await chat.shows('The vault is empty.');
  });
});

describe('admin tools (--admin-tools)', () => {
  const openAdminChat = () => openChat({ extraTools: adminTools(buildManifest(), createClient({ baseUrl: server.url, apiKey: server.liveKey })) });
  const appNames = async (): Promise<string[]> =>
    (await server.call('GET', '/api/v1/developer/apps')).body.data.map((app: { name: string }) => app.name);

  /** Asks to create an app named `name`; the dialog shows the request, gets `key`, and `shown` follows. */
  async function createAnswered(name: string, key: string, shown: string) {
    const chat = openAdminChat();
    chat.send(`!tool svc_api_developer_apps_create {"name":"${name}"}`);
    await chat.shows('The model wants to run svc_api_developer_apps_create:');
    expect(chat.screen()).toContain(`POST /api/v1/developer/apps {"name":"${name}"}`);
    chat.press(key);
    await chat.shows(shown);
    await chat.idle();
  }

  it('a read runs without asking, and the answer shows its JSON', async () => {
    const chat = openAdminChat();
    const mark = chat.mark();
    chat.send(`!tool svc_api_developer_apps_get {"app_uuid":"${server.appUuid}"}`);
    await chat.shows('The tool svc_api_developer_apps_get returned:');
    await chat.shows(server.appUuid);
    expect(chat.drawnSince(mark)).not.toContain('wants to run');
  });

  it('a write asks first; d denies and nothing is created', async () => {
    await createAnswered('Denied app', 'd', 'Declined svc_api_developer_apps_create.');
    expect(await appNames()).not.toContain('Denied app');
  });

  it('a allows it once: the app is created', async () => {
    await createAnswered('Allowed app', 'a', 'The tool svc_api_developer_apps_create returned:');
    expect(await appNames()).toContain('Allowed app');
  });
});

describe('input: attachments, pastes, history', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-chat-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('/attach attaches a file to the next question, not at once; Tab completes its path', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'notes'));
    writeFileSync(join(dir, 'notes', 'plan.txt'), 'step one: tests');
    writeFileSync(join(dir, 'notes', 'pictures.txt'), 'none');
    const chat = openChat();
    await chat.shows(PLACEHOLDER);
    chat.press(`/attach ${dir}/no`, KEY.tab);
    await vi.waitFor(() => expect(chat.prompt()).toContain(`/attach ${dir}/notes/`));
    chat.press('p', KEY.tab);
    await chat.shows(/pictures\.txt {2}plan\.txt/);
    chat.press('l', KEY.tab);
    await vi.waitFor(() => expect(chat.prompt()).toContain(`/attach ${dir}/notes/plan.txt`));
    chat.press(KEY.enter);
    await chat.shows(`Attached ${dir}/notes/plan.txt (15 bytes): it goes with your next question.`);
    expect(chat.screen()).toContain(`attached for the next question: ${dir}/notes/plan.txt`);
    // Nothing was asked yet: the file goes with the question that comes next.
    expect(chat.screen()).not.toContain('you said');
    chat.send('what is the plan?');
    await chat.shows(/you said:[\s\S]*step one: tests[\s\S]*what is the plan\?/);
    await chat.idle();
    expect(chat.screen()).not.toContain('attached for the next question');
    chat.send('/attach /no/such/file');
    await chat.shows('Cannot read /no/such/file: no such file');
  });

  it('~ in a path is the home directory', () => {
    expect(expandHome('~/notes.txt')).toBe(join(homedir(), 'notes.txt'));
    expect(expandHome('~')).toBe(homedir());
    expect(expandHome('/abs/~x')).toBe('/abs/~x');
  });

  it('a long paste collapses to one line in the composer and is sent whole', async () => {
    const chat = openChat();
    await chat.shows(PLACEHOLDER);
    const pasted = Array.from({ length: 12 }, (_, i) => `pasted line ${i}`).join('\n');
    chat.press('look: ');
    chat.press(pasted);
    await vi.waitFor(() => expect(chat.prompt()).toContain('look: [Pasted text #1: 12 lines]'));
    expect(chat.screen()).not.toContain('pasted line 5');
    chat.press(KEY.enter);
    await chat.shows(/you said:[\s\S]*look: pasted line 0[\s\S]*pasted line 11/);
  });

  it('keeps the input history across sessions; Ctrl+R searches it', async () => {
    const history = fileHistory(join(tempDir(), 'chat_history.jsonl'));
    const first = openChat({ history });
    await first.ask('how do holds work?');
    await first.ask('what is a ledger?');
    cleanup();
    const second = openChat({ history });
    await second.shows(PLACEHOLDER);
    second.press(KEY.up);
    await vi.waitFor(() => expect(second.prompt()).toContain('what is a ledger?'));
    second.press(KEY.down, '\u0012');
    await second.shows(/History · type to filter/);
    second.press('holds');
    await vi.waitFor(() => expect(second.screen()).not.toMatch(/^(› | {2})what is a ledger\?/m));
    second.press(KEY.enter);
    await vi.waitFor(() => expect(second.prompt()).toContain('how do holds work?'));
  });

  it('/resume and --continue go on with the conversation\'s model', async () => {
    const memory = openChatMemory();
    const id = memory.startConversation('local/echo');
    memory.append(id, { role: 'user', content: 'earlier question' });
    memory.setModel(id, 'paid/echo');
    const chat = openChat({ on: stalling, memory, resume: id });
    await chat.shows(`Resumed conversation ${id}.`);
    await vi.waitFor(() => expect(chat.status()).toMatch(/^paid\/echo\b/));
  });
});


describe('an editor worth typing in', () => {
  const numbered = (n: number) => Array.from({ length: n }, (_, i) => `pasted line ${i}`).join('\n');
  /** Hands `text` over as a terminal does: in reads of `size` characters. */
  const inReads = (chat: Chat, text: string, size: number) => {
    for (let at = 0; at < text.length; at += size) chat.press(text.slice(at, at + size));
  };

  it('one placeholder per paste, however many reads the terminal takes to hand it over; the transcript shows a long one collapsed', async () => {
    const chat = openChat();
    await chat.shows(PLACEHOLDER);
    expect(chat.terminalLog).toContain(BRACKETED_PASTE_ON);
    chat.press('look: ');
    inReads(chat, `${KEY.pasteStart}${numbered(1200)}${KEY.pasteEnd}`, 4096);
    await vi.waitFor(() => expect(chat.prompt()).toBe('› look: [Pasted text #1: 1200 lines]'));
    chat.press(' and this', KEY.enter);
    await chat.shows(/you said:\s+look: pasted line 0\s+pasted line 1\s[\s\S]*pasted line 1199 and this/);
    // The question is more than the transcript shows whole: it shows as it was typed.
    expect(chat.screen()).toContain('› look: [Pasted text #1: 1200 lines] and this');
  });

  it('a terminal that does not mark pastes: the reads of one paste still make one placeholder', async () => {
    const chat = openChat();
    await chat.shows(PLACEHOLDER);
    inReads(chat, numbered(300), 1000);
    await vi.waitFor(() => expect(chat.prompt()).toBe('› [Pasted text #1: 300 lines]'));
    // Typing after it is typing again; Backspace takes the placeholder whole.
    chat.press('!');
    await vi.waitFor(() => expect(chat.prompt()).toBe('› [Pasted text #1: 300 lines]!'));
    chat.press('\u007f', '\u007f');
    await vi.waitFor(() => expect(chat.prompt()).toContain(PLACEHOLDER));
  });

  it('↑ and ↓ move between the lines of a draft; the history only from its first and last line', async () => {
    const chat = openChat();
    await chat.ask('earlier question');
    chat.press('line one', KEY.ctrlJ, 'line two');
    await chat.shows('› line one\n  line two');
    chat.press(KEY.up, 'X');
    await chat.shows('› line oneX\n  line two');
    chat.press(KEY.up);
    await vi.waitFor(() => expect(chat.prompt()).toBe('› earlier question'));
    chat.press(KEY.down);
    await chat.shows('› line oneX\n  line two');
    chat.press(KEY.down, KEY.down, 'Y');
    await chat.shows('› line oneX\n  line twoY');
  });

  it('one read of text and keys (typing under load) is the text, then each key, in order', async () => {
    const chat = openChat();
    await chat.shows(PLACEHOLDER);
    const promptIs = (text: string) => vi.waitFor(() => expect(chat.prompt()).toBe(`› ${text}`));
    chat.press(`one two${KEY.ctrlW}three${KEY.ctrlA}<${KEY.ctrlE}>`);
    await promptIs('<one three>');
    chat.press(`${KEY.ctrlU}hello${KEY.enter}`);
    await chat.shows('you said:\n\nhello');
    // A line break inside a read is a pasted line, not Enter: one message.
    chat.press('first line\rsecond line');
    await chat.shows('› first line\n  second line');
  });

  it('words, line ends and kills: Alt+B/F, Alt+←/→, Ctrl+W, Ctrl+A/E/K/U', async () => {
    const chat = openChat();
    await chat.shows(PLACEHOLDER);
    const promptIs = (text: string) => vi.waitFor(() => expect(chat.prompt()).toBe(`› ${text}`));
    chat.press('one two three', KEY.altB, 'X');
    await promptIs('one two Xthree');
    chat.press(KEY.altLeft, KEY.altLeft, KEY.ctrlW);
    await promptIs('two Xthree');
    chat.press(KEY.altF, KEY.ctrlK);
    await promptIs('two');
    chat.press(KEY.ctrlA, '<', KEY.ctrlE, '>');
    await promptIs('<two>');
    chat.press(KEY.altLeft, KEY.altRight, '!');
    await promptIs('<two!>');
    chat.press(KEY.left, KEY.ctrlU);
    await promptIs('!>');
    chat.press(KEY.enter);
    await chat.shows('you said:\n\n!>');
  });

  describe('Ctrl+G: the draft in $VISUAL', () => {
    const dirs: string[] = [];
    afterEach(() => {
      vi.unstubAllEnvs();
      dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true }));
    });

    /** An editor script that records the file's and its directory's modes, and what it was given, then rewrites it. */
    function fakeEditor(body: string) {
      const dir = mkdtempSync(join(tmpdir(), 'svc-editor-'));
      dirs.push(dir);
      const script = join(dir, 'fake-editor');
      writeFileSync(
        script,
        `#!/bin/sh\nstat -c '%a' "$1" > '${dir}/file-mode'\nstat -c '%a' "$(dirname "$1")" > '${dir}/dir-mode'\ncp "$1" '${dir}/given'\n${body}\n`,
      );
      chmodSync(script, 0o755);
      vi.stubEnv('VISUAL', script);
      const read = (name: string) => readFileSync(join(dir, name), 'utf8');
      return { read };
    }

    it('writes the draft (pastes expanded) to a private file, hands the terminal over, and takes back what was saved', async () => {
      const editor = fakeEditor(`printf 'rewritten in the editor\\nsecond line\\n' > "$1"`);
      const chat = openChat();
      await chat.shows(PLACEHOLDER);
      chat.press('draft: ', `${KEY.pasteStart}${numbered(5)}${KEY.pasteEnd}`);
      await vi.waitFor(() => expect(chat.prompt()).toBe('› draft: [Pasted text #1: 5 lines]'));
      const mark = chat.terminalLog.length;
      chat.press(KEY.ctrlG);
      await chat.shows('› rewritten in the editor\n  second line');
      expect(editor.read('given')).toBe(`draft: ${numbered(5)}`);
      expect(editor.read('file-mode').trim()).toBe('600');
      expect(editor.read('dir-mode').trim()).toBe('700');
      // Raw mode off and pastes unmarked while the editor runs; back after.
      await vi.waitFor(() =>
        expect(chat.terminalLog.slice(mark)).toEqual(['raw mode off', `${BRACKETED_PASTE_OFF}\u001b[?25h`, `${BRACKETED_PASTE_ON}\u001b[?25l`, 'raw mode on']),
      );
      chat.press(KEY.enter);
      await chat.shows(/you said:\s+rewritten in the editor\s+second line/);
    });

    it('text and Ctrl+G in one read (typed under load, or a paste and the key at once): the text is the draft the editor gets', async () => {
      const editor = fakeEditor(`printf 'edited' > "$1"`);
      const chat = openChat();
      await chat.shows(PLACEHOLDER);
      chat.press(`my draft${KEY.ctrlG}`);
      await vi.waitFor(() => expect(chat.prompt()).toBe('› edited'));
      expect(editor.read('given')).toBe('my draft');
      chat.press(`${KEY.pasteStart}pasted${KEY.pasteEnd}${KEY.ctrlG}`);
      await vi.waitFor(() => expect(editor.read('given')).toBe('editedpasted'));
    });

    it('Ctrl+X Ctrl+E does the same; an editor that fails leaves the draft as it was', async () => {
      fakeEditor(`printf 'from the chord' > "$1"`);
      const chat = openChat();
      await chat.shows(PLACEHOLDER);
      chat.press('first', KEY.ctrlX, KEY.ctrlE);
      await vi.waitFor(() => expect(chat.prompt()).toBe('› from the chord'));
      fakeEditor('exit 3');
      chat.press(KEY.ctrlG);
      await chat.shows(/ended with 3; the draft is as it was\./);
      expect(chat.prompt()).toBe('› from the chord');
    });
  });
});

describe('nothing can hang the chat', () => {
  it('Ctrl+R over 10,000 inputs, some of 100 KB, opens at once; rows are cut to the width; the pick comes back collapsed', async () => {
    const big = (n: number) => `look at this log ${n}: ${'0123456789 '.repeat(9_000)} why does it fail ${n}?`;
    const entries = Array.from({ length: 10_000 }, (_, i) => (i % 100 === 0 ? big(i) : `question number ${i}`));
    entries.push(big(10_000));
    const chat = openChat({ history: { entries: () => entries, add: () => {} } });
    await chat.shows(PLACEHOLDER);
    chat.press(KEY.ctrlR);
    await chat.shows(/History · type to filter/);
    const rows = chat.screen().split('\n');
    expect(rows.find((row) => row.startsWith('› '))).toMatch(/^› look at this log 10000: 0123456789 0123456789 .*…$/);
    expect(Math.max(...rows.map((row) => row.length))).toBeLessThanOrEqual(100);
    chat.press('fail 9900');
    await vi.waitFor(() => expect(chat.screen()).toMatch(/^› look at this log 9900: /m));
    chat.press(KEY.enter);
    await vi.waitFor(() => expect(chat.prompt()).toBe(`› [Pasted text #1: ${big(9900).length} characters]`));
    // Ctrl+C still works: it clears the prompt, and closes a list.
    chat.press(KEY.ctrlC);
    await chat.idle();
    chat.press(KEY.ctrlR);
    await chat.shows(/History · type to filter/);
    chat.press(KEY.ctrlC);
    await vi.waitFor(() => expect(chat.screen()).not.toContain('History · type to filter'));
  });

  it('Ctrl+C in an approval dialog denies it and cancels the answer', async () => {
    const chat = openChat({ memory: openChatMemory() });
    await saveAsked(chat, GREEN);
    chat.press(KEY.ctrlC);
    await chat.idle();
    expect(chat.screen()).not.toContain('[a] allow once');
    chat.send('/vault');
    await chat.shows('The vault is empty.');
  });
});

describe('past conversations and memory', () => {
  it('/resume without an id picks from the recent conversations; a cancelled answer keeps its mark', async () => {
    const memory = openChatMemory();
    const cats = memory.startConversation('local/echo');
    memory.append(cats, { role: 'user', content: 'about cats' });
    const ledgers = memory.startConversation('local/echo');
    memory.append(ledgers, { role: 'user', content: 'explain ledgers' });
    memory.append(ledgers, { role: 'assistant', content: 'a ledger is a partial answer' }, { cancelled: true });
    const chat = openChat({ memory });
    chat.send('/resume');
    await chat.shows(/Resume · type to filter/);
    expect(chat.screen()).toMatch(/explain ledgers[\s\S]*about cats/);
    chat.press('ledg', KEY.enter);
    await chat.shows(`Resumed conversation ${ledgers}.`);
    await chat.shows(/a ledger is a partial answer\n\(cancelled\)/);
  });

  it('an answer cancelled in this chat is resumed with its mark', async () => {
    const memory = openChatMemory();
    // No tools offered: their definitions would make the hold larger than what other tests left of the balance.
    const first = openChat({ on: stalling, memory, settings: { model: 'paid/echo', toolsEnabled: false } });
    first.send('tell me everything');
    await first.shows(/partial answer[\s\S]*Esc cancels/);
    first.press(KEY.esc);
    await first.shows(/partial answer\n\(cancelled\)/);
    await first.idle();
    const id = memory.latest() as string;
    cleanup();
    const second = openChat({ on: stalling, memory, resume: id });
    await second.shows(`Resumed conversation ${id}.`);
    await second.shows(/partial answer\n\(cancelled\)/);
  });

  it('a resumed message too long to draw at once is cut, saying how much is left out', async () => {
    const memory = openChatMemory();
    const id = memory.startConversation('local/echo');
    memory.append(id, { role: 'user', content: `a pasted log: ${'0123456789'.repeat(10_000)}` });
    const chat = openChat({ memory, resume: id });
    await chat.shows(`Resumed conversation ${id}.`);
    await chat.shows(`… (${100_014 - 8000} more characters)`);
  });

  it('/memory searches the vault too', async () => {
    const { memory } = memoryFiles.open();
    memory.vault.save({ content: 'my favourite colour is teal' });
    const chat = openChat({ memory: chatMemory(memory) });
    chat.send('/memory teal');
    await chat.shows(/Vault:\n {2}0\.\d\d {2}vlt_\w+ \[private\] {2}my favourite colour is teal/);
  });
});

describe('an empty balance', () => {
  let priced: TestServer;
  let keys: { inference: string; admin: string; appUuid: string };
  beforeAll(async () => {
    priced = await startTestServer({ providers: [pricedProvider()] });
    const app = await createOwnerApp(priced, { name: 'empty' });
    const key = async (role: 'inference' | 'admin') => (await priced.server.services.apiKeys.create(app.appUuid, { name: role, is_test: false, role })).secret;
    keys = { inference: await key('inference'), admin: await key('admin'), appUuid: app.appUuid };
  });
  afterAll(() => priced.close());

  /** The error line, its wrapping undone. */
  async function refusal(apiKey: string) {
    const chat = openChat({ on: priced, apiKey, settings: { model: 'paid/echo' } });
    chat.send('hello');
    await chat.shows('✖ Insufficient credits');
    await chat.idle();
    return /✖ [^›]*/.exec(chat.screen())?.[0].replace(/\s+/g, ' ') ?? '';
  }

  it('an inference key is told to ask the app\'s developer: it cannot fund the app', async () => {
    const line = await refusal(keys.inference);
    expect(line).toContain("This inference key cannot add credits: ask the app's developer");
    expect(line).not.toContain('svc api');
  });

  it('an admin key is shown the command that funds its app', async () => {
    expect(await refusal(keys.admin)).toContain(`Fund the app: \`svc api developer apps fund ${keys.appUuid} --credits 100\`.`);
  });
});

describe('what a session spends', () => {
  let priced: TestServer;
  beforeAll(async () => {
    priced = await startTestServer({ providers: [pricedProvider()] });
  });
  afterAll(() => priced.close());
  const balanceOf = async () => ((await priced.call('GET', '/api/v1/credits/balance')).body as { credits: number }).credits;

  it("each answer's cost, from its usage, and the session's total in the status line; /cost by model", async () => {
    const before = await balanceOf();
    const chat = openChat({ on: priced, settings: { model: 'paid/echo', toolsEnabled: false } });
    await chat.shows(`balance ${before}`);
    await chat.ask('one');
    await vi.waitFor(() => expect(chat.status()).toMatch(/^paid\/echo · \d+ tokens · [\d.]+ credits · balance [\d.]+ · session [\d.]+/));
    const first = Number(/tokens · ([\d.]+) credits/.exec(chat.status())?.[1]);
    expect(first).toBeGreaterThan(0);
    await chat.ask('two');
    await vi.waitFor(async () => expect(Number(/balance ([\d.]+)/.exec(chat.status())?.[1])).toBeCloseTo(await balanceOf(), 2));
    const second = Number(/tokens · ([\d.]+) credits/.exec(chat.status())?.[1]);
    const session = Number(/session ([\d.]+)/.exec(chat.status())?.[1]);
    // What the server charged for the two answers is what the status line adds up (to its rounding).
    expect(session).toBeCloseTo(before - (await balanceOf()), 2);
    expect(session).toBeCloseTo(first + second, 2);
    chat.send('/model local/echo');
    await chat.shows('Model: local/echo');
    await chat.ask('three');
    chat.send('/cost');
    await chat.shows(/Spent this session: [\d.]+ credits:\n {2}paid\/echo {3}[\d.]+ credits · 2 requests · \d+ tokens\n {2}local\/echo {2}0 credits · 1 request · \d+ tokens/);
    expect(chat.screen()).not.toContain('Cap (--max-spend');
  });

  it('--max-spend: the session key\'s budget stops it at the cap, and the chat says so and what to do', async () => {
    const admin = createClient({ baseUrl: priced.url, apiKey: priced.liveKey });
    const sessionKey = await createSessionKey(admin, { maxSpend: 40, apiUrl: priced.url, userAgent: 'test' });
    const chat = openChat({ on: priced, client: sessionKey.client, maxSpend: 40, settings: { model: 'paid/echo', toolsEnabled: false } });
    await chat.shows('session 0 of max 40');
    for (let i = 0; i < 10 && !chat.screen().includes('Spending cap reached'); i++) {
      chat.send(`question ${i}`);
      await chat.shows(new RegExp(`you said:\\n\\nquestion ${i}|Spending cap reached`));
      await chat.idle();
    }
    const refusal = /✖ [^›]*/.exec(chat.screen())?.[0].replace(/\s+/g, ' ') ?? '';
    expect(refusal).toContain('Spending cap reached: this session may spend 40 credits (--max-spend)');
    expect(refusal).toContain('start `svc chat` again');
    const keys = (await priced.call('GET', `/api/v1/developer/apps/${priced.appUuid}/api-keys`)).body as { data: { key_id: string; budget_spent_credits: number }[] };
    const spent = keys.data.find((key) => key.key_id === sessionKey.keyId)?.budget_spent_credits ?? NaN;
    expect(spent).toBeGreaterThan(0);
    expect(spent).toBeLessThanOrEqual(40);
    await vi.waitFor(() => expect(Number(/session ([\d.]+) of max 40/.exec(chat.status())?.[1])).toBeCloseTo(spent, 2), { timeout: WAIT_MS });
    chat.send('/cost');
    await chat.shows(/Cap \(--max-spend, kept by the server\): 40 credits, [\d.]+ left\./);
    await sessionKey.revoke();
    const after = (await priced.call('GET', `/api/v1/developer/apps/${priced.appUuid}/api-keys`)).body as { data: { key_id: string }[] };
    expect(after.data.map((key) => key.key_id)).not.toContain(sessionKey.keyId);
  }, 60_000);

  it('--max-spend refuses to start on a key that cannot create keys', async () => {
    const app = await createOwnerApp(priced, { name: 'inference only' });
    const inference = (await priced.server.services.apiKeys.create(app.appUuid, { name: 'inference', is_test: false, role: 'inference' })).secret;
    const client = createClient({ baseUrl: priced.url, apiKey: inference });
    await expect(createSessionKey(client, { maxSpend: 5, apiUrl: priced.url, userAgent: 'test' })).rejects.toThrow(
      /^This is an inference key: only an admin key can create the capped key --max-spend runs on/,
    );
  });
});
