import { readFileSync, statSync } from 'node:fs';
import { expandHome } from './path-complete.js';
import type { ChatSession } from './session.js';
import { chordBindings, keyBindings } from './keys.js';
import { osc52 } from '../shared/clipboard.js';
import { spendReport } from './spend.js';

export interface SlashCommand {
  name: string;
  args: string;
  description: string;
  run(session: ChatSession, args: string): void | Promise<void>;
}

export const slashCommands: SlashCommand[] = [
  {
    name: 'help',
    args: '',
    description: 'commands and keys',
    run(session) {
      const commands = slashCommands.map((c) => `  /${c.name}${c.args ? ` ${c.args}` : ''} — ${c.description}`);
      const keys = [...keyBindings, ...chordBindings].map((k) => `  ${k.keys} — ${k.description}`);
      session.notice(['Commands:', ...commands, 'Keys:', ...keys].join('\n'));
    },
  },
  {
    name: 'model',
    args: '[id]',
    description: 'switch to a model the server serves; without an id, pick from the list (type to filter)',
    async run(session, args) {
      if (args) await session.chooseModel(args);
      else await session.openModelPicker();
    },
  },
  {
    name: 'system',
    args: '[prompt]',
    description: 'show or set the system prompt',
    run(session, args) {
      if (args) session.settings.system = args;
      session.notice(session.settings.system ? `System prompt: ${session.settings.system}` : 'No system prompt.');
    },
  },
  { name: 'new', args: '', description: 'start a new conversation', run: (session) => session.startNew() },
  {
    name: 'history',
    args: '',
    description: 'past conversations',
    run(session) {
      const list = session.memory?.conversations(20) ?? [];
      session.notice(list.length ? ['Conversations (/resume <id>):', ...list.map((c) => `  ${c.id}  ${c.updatedAt.slice(0, 16)}  ${c.title}`)].join('\n') : 'No past conversations.');
    },
  },
  {
    name: 'resume',
    args: '[id]',
    description: 'continue a past conversation; without an id, pick one from the list (type to filter)',
    run: (session, args) => (args ? session.resume(args) : session.openConversationPicker()),
  },
  {
    name: 'tools',
    args: 'on|off',
    description: 'offer the tools (memory; the API with --admin-tools) to the model, or not',
    run(session, args) {
      if (args !== 'on' && args !== 'off') return session.notice(`Tools are ${session.state.toolsEnabled ? 'on' : 'off'}. Usage: /tools on|off`);
      session.dispatch({ type: 'tools', enabled: args === 'on' });
      session.notice(`Tools ${args}.`);
    },
  },
  {
    name: 'memory',
    args: '<query>',
    description: 'search past conversations and the vault',
    async run(session, args) {
      if (!session.memory) return session.notice('Memory is not available.');
      if (!args) return session.notice('Usage: /memory <query>');
      try {
        const found = await session.memory.search(args, session.state.conversationId);
        const section = (title: string, lines: string[]) => (lines.length ? [`${title}:`, ...lines.map((line) => `  ${line}`)] : []);
        const shown = [...section('Memory', found.messages), ...section('Vault', found.vault)];
        session.notice(shown.length ? shown.join('\n') : 'Nothing found.');
      } catch (error) {
        session.failure(error);
      }
    },
  },
  {
    name: 'vault',
    args: '[delete <id>]',
    description: 'list vault entries, or delete one',
    run(session, args) {
      if (!session.memory) return session.notice('Memory is not available.');
      const [verb, id] = args.split(/\s+/);
      if (verb === 'delete' && id) return session.notice(session.memory.vault.delete(id) ? `Deleted ${id}.` : `No vault entry ${id}.`);
      const entries = session.memory.vault.list();
      session.notice(entries.length ? ['Vault:', ...entries.map((e) => `  ${e.id} [${e.scope}] ${e.content.slice(0, 80)}`)].join('\n') : 'The vault is empty.');
    },
  },
  {
    name: 'attach',
    args: '<file>',
    description: 'attach a text file to your next question (Tab completes the path)',
    run(session, args) {
      if (!args) return session.notice('Usage: /attach <file>');
      const path = expandHome(args);
      try {
        const size = statSync(path).size;
        if (size > session.settings.maxFileBytes) {
          return session.notice(`${args} is ${size} bytes; the limit is ${session.settings.maxFileBytes} (max_file_bytes in ~/.svc/config.json).`);
        }
        const text = readFileSync(path, 'utf8');
        if (text.includes('\u0000')) return session.notice(`${args} is not a text file.`);
        session.dispatch({ type: 'attach', path: args, text });
        session.notice(`Attached ${args} (${size} bytes): it goes with your next question.`);
      } catch (error) {
        session.notice(`Cannot read ${args}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
      }
    },
  },
  {
    name: 'copy',
    args: '',
    description: 'copy the last answer to the clipboard',
    run(session) {
      const last = [...session.state.items].reverse().find((item) => item.kind === 'assistant');
      if (!last) return session.notice('No answer to copy yet.');
      session.writeRaw(osc52(last.text));
      session.notice('Copied the last answer.');
    },
  },
  {
    name: 'cost',
    args: '',
    description: "this session's spend by model (and what is left of --max-spend)",
    async run(session) {
      await session.refreshCap();
      const { spend, cap } = session.latest();
      session.notice(spendReport(spend, cap));
    },
  },
  { name: 'exit', args: '', description: 'leave the chat', run: (session) => session.exit() },
];

/** The commands a partial `/word` could be, for the hints under the prompt. */
export function completions(text: string): SlashCommand[] {
  if (!text.startsWith('/') || text.includes(' ')) return [];
  return slashCommands.filter((c) => `/${c.name}`.startsWith(text));
}

/** Runs `/name args`; an unknown command says so. */
export async function runSlash(session: ChatSession, line: string): Promise<void> {
  const [, name = '', args = ''] = /^\/(\S*)\s*([\s\S]*)$/.exec(line.trim()) ?? [];
  const command = slashCommands.find((c) => c.name === name);
  if (!command) return session.notice(`Unknown command /${name}. /help lists them.`);
  await command.run(session, args.trim());
}
