import { Command, Option, UsageError } from 'clipanion';
import { join } from 'node:path';
import { createClient, type Client } from '../../client/client.js';
import type { ChatMemory } from '../../chat/memory-port.js';
import type { ClientTool } from '../../chat/types.js';
import type { ChatSettings } from '../../tui/chat/session.js';
import { ConnectionError } from '../../client/errors.js';
import { clientOperations } from '../../client/operation-refs.js';
import { chatDefaults } from '../../chat/defaults.js';
import { VERSION } from '../../version.js';
import { SvcCommand } from '../base-command.js';
import { readAll } from '../read-all.js';
import { startBackgroundServer } from '../background-server.js';
import { ownerKeyNotice } from '../bundled-server.js';
import { DEFAULT_API_URL } from '../connection.js';
import { ExitCode } from '../exit-codes.js';
import { createSessionKey, MaxSpendRefused, type SessionKey } from './chat-max-spend.js';

type Settings = Omit<ChatSettings, 'liveRows' | 'redrawMs'>;

/** The server's default embedding model (GET /config), else the client's own default. */
async function serverEmbeddingModel(client: Client): Promise<string> {
  try {
    const config = await client.call(clientOperations.config);
    if (typeof config.default_embedding_model === 'string') return config.default_embedding_model;
  } catch {
    // A server without /config (or that refuses it) leaves the client's default.
  }
  return chatDefaults.embeddingModel;
}

/** `--admin-tools`: the API as tools, loaded only when asked for. */
async function loadAdminTools(client: Client): Promise<ClientTool[]> {
  const [{ loadManifest }, { adminTools }] = await Promise.all([import('../manifest.js'), import('../../chat/admin-tools.js')]);
  return adminTools(await loadManifest(), client);
}

export class ChatCommand extends SvcCommand {
  static override paths = [['chat']];
  static override usage = Command.Usage({
    category: 'Chat',
    description: 'Chat with any model in the terminal, with client-side memory',
    details: [
      `The model is --model, else \`model\` in ~/.svc/config.json, else ${chatDefaults.model} (offline, free).`,
      'When no server answers at a local API URL, the bundled one starts (data in ~/.svc).',
      'With stdin not a terminal, the question is read from stdin and the answer streamed as plain text.',
      'In the chat: /help lists commands and keys; Esc or Ctrl+C cancels an answer; Ctrl+D exits.',
      'With --max-spend CREDITS the chat runs on a key of its own (an inference key, made with your admin key and deleted when you leave) whose budget is the cap: the server refuses what would go past it, whatever the model costs.',
      'With --admin-tools the model may also call the API: one tool per `svc api` command (see `svc docs --json`), with your key. Reads run at once; anything that writes asks first (without a terminal: only with --yes).',
    ].join('\n\n'),
    examples: [
      ['Chat', 'svc chat'],
      ['Another model, a system prompt', 'svc chat --model openai/gpt-4o-mini --system "Answer briefly"'],
      ['One question from a script', 'echo "What is 2+2?" | svc chat'],
      ['Pick up the last conversation', 'svc chat --continue'],
      ['Spend at most 50 credits ($0.50) this session', 'svc chat --max-spend 50'],
      ['Manage apps by asking', 'svc chat --admin-tools --model openai/gpt-4o-mini'],
    ],
  });

  model = Option.String('--model', { description: `Model, <provider>/<model> (default ${chatDefaults.model})` });
  system = Option.String('--system', { description: 'System prompt' });
  tools = Option.Boolean('--tools', true, { description: 'Offer the memory tools to the model (--no-tools: do not)' });
  continue = Option.Boolean('--continue', false, { description: 'Resume the last conversation' });
  conversation = Option.String('--conversation', { description: 'Resume this conversation' });
  adminTools = Option.Boolean('--admin-tools', false, {
    description: 'Also offer the API as tools (every `svc api` command); those that write need approval',
  });
  yes = Option.Boolean('--yes', false, { description: 'Without a terminal: allow tools that write' });
  maxSpend = Option.String('--max-spend', {
    description: 'Cap this session at CREDITS, kept by the server (needs an admin key: the chat runs on a capped key of its own)',
  });

  /** --max-spend as a number of credits, null without it. */
  private maxSpendCredits(): number | null {
    if (this.maxSpend === undefined) return null;
    const credits = Number(this.maxSpend);
    if (!/^\d+(\.\d+)?$/.test(this.maxSpend.trim()) || !(credits > 0) || credits > 1_000_000_000) {
      throw new UsageError(`--max-spend takes a number of credits above 0 (1 credit = $0.01), such as 50; not '${this.maxSpend}'.`);
    }
    return credits;
  }

  async execute(): Promise<number> {
    const { stdin, stderr } = this.context;
    // `--no-tools` turns every client tool off (the switch /tools toggles), admin tools included.
    if (this.adminTools && !this.tools) throw new UsageError('--admin-tools offers tools: it cannot go with --no-tools.');
    // The admin tools act with the logged-in key, outside the session's cap (they could even lift it).
    if (this.adminTools && this.maxSpend !== undefined) throw new UsageError('--admin-tools acts with your admin key, outside the cap: it cannot go with --max-spend.');
    const maxSpend = this.maxSpendCredits();
    let config;
    try {
      config = await this.config();
    } catch (error) {
      return this.report(error);
    }
    const values = config.values;
    const model = this.model ?? values.model ?? chatDefaults.model;
    // Loaded here, not with the command table: every other command would pay for the memory
    // library and zod. Started now, they load while the server answers the health check.
    const memoryModule = import('../../chat/memory-adapter.js');
    const screenModule = (stdin as { isTTY?: boolean }).isTTY ? import('../../tui/chat/launch.js') : null;
    // Awaited below where needed; an early return must not leave their failure unhandled.
    for (const loading of [memoryModule, screenModule]) loading?.catch(() => {});

    // A server to talk to: the configured one, or — on this machine — the bundled one.
    let connection = this.connection();
    try {
      await createClient({ baseUrl: connection.apiUrl }).call(clientOperations.health);
    } catch (error) {
      const local = new URL(connection.apiUrl);
      if (!(error instanceof ConnectionError) || !['127.0.0.1', 'localhost'].includes(local.hostname)) return this.report(error);
      // Its own process, in the background: it outlives this chat and serves every other svc too.
      let started;
      try {
        started = await startBackgroundServer(config.home, { host: '127.0.0.1', port: Number(local.port || new URL(DEFAULT_API_URL).port), env: this.context.env });
      } catch (startError) {
        stderr.write(`svc: no server at ${connection.apiUrl}, and the bundled one could not start: ${(startError as Error).message}\n`);
        return ExitCode.unreachable;
      }
      stderr.write(`svc: no server answered at ${connection.apiUrl}; started the bundled one (data in ${config.home}, its log in ${started.log}). It runs in the background for every svc on this machine (pid ${started.pid}): \`svc server stop\` stops it.\n`);
      if (started.developerId) stderr.write(`svc: ${ownerKeyNotice({ developerId: started.developerId, saved: started.savedKey, configPath: config.path })}\n`);
      connection = this.connection();
    }

    let memory: ChatMemory | null = null;
    let sessionKey: SessionKey | null = null;
    try {
      if (!connection.apiKey) throw new UsageError('No API key: run `svc auth login` or set SVC_API_KEY.');
      const userAgent = `svc-cli/${VERSION}`;
      const loggedIn = createClient({ baseUrl: connection.apiUrl, apiKey: connection.apiKey, userAgent });
      if (maxSpend !== null) {
        try {
          sessionKey = await createSessionKey(loggedIn, { maxSpend, apiUrl: connection.apiUrl, userAgent });
        } catch (error) {
          if (!(error instanceof MaxSpendRefused)) throw error;
          // Refused rather than run uncapped.
          stderr.write(`svc: --max-spend: ${error.message}\n`);
          return ExitCode.usage;
        }
        stderr.write(`svc: this chat spends through a key of its own (${sessionKey.keyId}) capped at ${maxSpend} credits by the server; it is deleted when you leave.\n`);
      }
      // Everything the session spends (answers, the memory's embeddings) goes through the capped key.
      const client = sessionKey?.client ?? loggedIn;
      const settings = {
        model,
        ...(this.system ? { system: this.system } : {}),
        toolsEnabled: this.tools,
        maxToolRounds: values.max_tool_rounds ?? chatDefaults.maxToolRounds,
        contextMessages: values.context_messages ?? chatDefaults.contextMessages,
        maxFileBytes: values.max_file_bytes ?? chatDefaults.maxFileBytes,
      };
      const { openChatMemory } = await memoryModule;
      memory = openChatMemory(join(config.home, 'memory.db'), client, values.embedding_model ?? (await serverEmbeddingModel(client)));
      const extraTools = this.adminTools ? await loadAdminTools(client) : [];
      const resume = this.conversation ?? (this.continue ? memory.latest() : null);
      if (this.continue && !resume) stderr.write('svc: no earlier conversation to continue; starting a new one.\n');
      if (!(stdin as { isTTY?: boolean }).isTTY) return await this.runPipe(client, settings, memory, extraTools);
      return await this.runScreen(screenModule ?? import('../../tui/chat/launch.js'), client, settings, memory, resume, extraTools, config.home, maxSpend);
    } catch (error) {
      return this.report(error);
    } finally {
      memory?.close();
      await sessionKey?.revoke();
    }
  }

  /** One question from stdin, the answer to stdout; the exchange is remembered like any other. */
  private async runPipe(client: Client, settings: Settings, memory: ChatMemory, extraTools: ClientTool[]) {
    const { stdin, stdout, stderr } = this.context;
    const question = (await readAll(stdin)).trim();
    if (!question) throw new UsageError('No question on stdin.');
    const controller = new AbortController();
    process.once('SIGINT', () => controller.abort());
    const conversationId = memory.startConversation(settings.model);
    memory.append(conversationId, { role: 'user', content: question });
    const tools = settings.toolsEnabled ? [...memory.tools(() => conversationId, async () => this.yes), ...extraTools] : [];
    const { runPipe } = await import('../../chat/pipe.js');
    await runPipe({
      client,
      ...settings,
      question,
      tools,
      yes: this.yes,
      stdout,
      stderr,
      signal: controller.signal,
      onMessage: (message) => memory.append(conversationId, message),
    });
    return ExitCode.ok;
  }

  /** The Ink screen, loaded only here so no other command pays for it. */
  private async runScreen(
    screen: Promise<typeof import('../../tui/chat/launch.js')>,
    client: Client,
    settings: Settings,
    memory: ChatMemory,
    resume: string | null,
    extraTools: ClientTool[],
    home: string,
    maxSpend: number | null,
  ) {
    const [{ launchChat, CHAT_REDRAW_MS }, { fileHistory }] = await Promise.all([screen, import('../../chat/input-history.js')]);
    await launchChat({
      client,
      memory,
      // The live region's height follows the terminal (and its resizes): liveRows 0.
      settings: { ...settings, liveRows: 0, redrawMs: CHAT_REDRAW_MS },
      resume,
      extraTools,
      writeRaw: (text: string) => process.stdout.write(text),
      history: fileHistory(join(home, 'chat_history.jsonl')),
      maxSpend,
    });
    return ExitCode.ok;
  }
}
