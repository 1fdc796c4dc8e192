import { createInterface } from 'node:readline';
import { Command, Option, UsageError } from 'clipanion';
import * as t from 'typanion';
import { SvcCommand } from '../base-command.js';
import { ExitCode } from '../exit-codes.js';
import { IDP_APP_ID, STARTER_NAMES, STARTERS, type Starter, type StarterName, type Step } from '../starters/catalog.js';
import { checkEmpty, resolveTarget } from '../starters/target.js';
import { renderTemplates, withEnvValue, type ProjectFile } from '../starters/templates.js';
import { mintTestKey } from '../starters/test-key.js';
import { writeProject } from '../starters/write.js';
import { isTty } from '../output.js';

const starterList = STARTER_NAMES.map((name) => `\`${name}\`: ${STARTERS[name].summary}`).join('; ');

/** `.env`: the starter's example with the given variables filled in. */
function envFile(files: readonly ProjectFile[], values: ReadonlyArray<[variable: string, value: string]>): ProjectFile {
  const example = files.find((file) => file.path === '.env.example');
  if (!example) throw new Error('The starter has no .env.example.');
  return { path: '.env', content: values.reduce((text, [variable, value]) => withEnvValue(text, variable, value), example.content) };
}

function formatSteps(steps: readonly Step[]): string {
  return steps.map(([command, note]) => `  ${[command, note && `# ${note}`].filter(Boolean).join('  ')}`).join('\n');
}

export class NewCommand extends SvcCommand {
  static override paths = [['new']];
  static override usage = Command.Usage({
    category: 'Starters',
    description: 'Create a project from a starter template',
    details: [
      `Writes a starter project into \`dir\` (default: the working directory), absolute or relative, which must be new or empty. Starters: ${starterList}. Without --starter, svc asks on a terminal and refuses when piped.`,
      "The project's settings point at the API URL svc uses (--api-url, SVC_API_URL, the config file, or the local default). When you are logged in, svc creates a test key (inference role, play money only) in your key's app and writes it into the project's `.env`; `--no-key` skips that. `--idp` writes the identity-provider app ID into `.env` (web starter); an ID starting `sandbox_` uses the platform's sandbox identity provider.",
      'Exits 2 for a wrong command line: an unknown or missing starter, or a directory that is not empty.',
    ].join('\n\n'),
    examples: [
      ['A TypeScript program that streams a chat completion', 'svc new my-app --starter mini'],
      ['A browser app with sandbox sign-in', 'svc new my-web --starter web --idp sandbox_my-web'],
      ['A messenger bot, in the current (empty) directory', 'svc new --starter messenger'],
    ],
  });

  dir = Option.String({ name: 'dir', required: false });
  // Checked in execute rather than `required`: clipanion would answer a missing option with "Command not found".
  starter = Option.String('--starter', {
    description: `The template: ${STARTER_NAMES.join(', ')} (required)`,
    validator: t.isEnum(STARTER_NAMES),
  });
  idp = Option.String('--idp', { description: "Identity-provider app ID, written into the project's .env (web)" });
  key = Option.Boolean('--key', true, { description: "When logged in, create a test key and write it into the project's .env (--no-key: don't)" });

  async execute(): Promise<number> {
    const starterName = this.starter ?? (await this.askStarter());
    const starter = STARTERS[starterName];
    const idpVariable = this.idpVariable(starter, starterName);
    const target = resolveTarget(this.dir ?? '.', this.context.cwd);
    checkEmpty(target);
    let connection: ReturnType<SvcCommand['connection']>;
    try {
      connection = this.connection();
    } catch (error) {
      return this.report(error);
    }

    const files = renderTemplates([...starter.shared, starterName], {
      PROJECT_NAME: target.packageName,
      SVC_API_URL: `${connection.apiUrl.replace(/\/+$/, '')}/api/v1`,
    });
    const envValues: Array<[string, string]> = [];
    let appUuid: string | undefined;
    if (this.idp !== undefined && idpVariable) envValues.push([idpVariable, this.idp]);
    if (this.key && connection.apiKey) {
      const minted = await mintTestKey(this.client(), target.packageName);
      if ('secret' in minted) {
        envValues.push([starter.keyVariable, minted.secret]);
        appUuid = minted.appUuid;
        this.context.stderr.write(`svc: created test key ${target.packageName} in app ${minted.appUuid} for the project's .env\n`);
      } else {
        this.context.stderr.write(`svc: no test key written into .env: ${minted.skipped}\n`);
      }
    }
    if (envValues.length > 0) files.push(envFile(files, envValues));
    const keyWritten = envValues.some(([variable]) => variable === starter.keyVariable);
    const where = target.relativeDir === '' ? 'the working directory' : target.relativeDir;
    try {
      writeProject(target.dir, files);
    } catch (error) {
      this.context.stderr.write(`svc: cannot write the project into ${where}: ${(error as Error).message}\n`);
      return ExitCode.apiError; // not a usage error: the command line was fine, the disk was not
    }

    const steps: Step[] = [
      ...(target.relativeDir === '' ? [] : [[`cd ${target.relativeDir}`] satisfies Step]),
      ...starter.steps({ packageName: target.packageName, idp: this.idp, keyWritten, appUuid }),
    ];
    this.context.stdout.write(
      `Created ${where} from the ${starterName} starter (${files.length} files): ${starter.summary}.\n\n` +
        `Next steps:\n${formatSteps(steps)}\n\nMore in ${target.relativeDir === '' ? '' : `${target.relativeDir}/`}README.md.\n`,
    );
    return ExitCode.ok;
  }

  /** On a terminal, asks which starter; piped, a usage error (a script must say). */
  private async askStarter(): Promise<StarterName> {
    const { stdin, stdout } = this.context;
    const interactive = isTty(stdin) && isTty(stdout);
    if (!interactive) throw new UsageError(`Choose a starter with --starter: ${starterList}.`);
    const menu = STARTER_NAMES.map((name, index) => `  ${index + 1}. ${name}: ${STARTERS[name].summary}`).join('\n');
    // Lines typed ahead are queued by the iterator, not dropped; Ctrl+D or Ctrl+C ends it.
    const prompt = createInterface({ input: stdin, output: stdout });
    prompt.once('SIGINT', () => prompt.close()); // without a listener readline would only pause
    stdout.write(`Which starter?\n${menu}\n`);
    prompt.setPrompt('Number or name: ');
    prompt.prompt();
    try {
      for await (const line of prompt) {
        const answer = line.trim();
        const chosen = STARTER_NAMES.find((name, index) => answer === name || answer === String(index + 1));
        if (chosen) return chosen;
        stdout.write(`${JSON.stringify(answer)} is not one of them.\n`);
        prompt.prompt();
      }
    } finally {
      prompt.close();
    }
    throw new UsageError('No starter chosen: give one with --starter.');
  }

  /** Where `--idp` goes in the starter's `.env`; a usage error when the starter has no sign-in or the ID is malformed. */
  private idpVariable(starter: Starter, name: StarterName): string | undefined {
    if (this.idp === undefined) return undefined;
    if (!starter.idpVariable) {
      throw new UsageError(`--idp is for starters whose users sign in (web); ${name} calls the platform with an API key.`);
    }
    if (!IDP_APP_ID.test(this.idp)) {
      throw new UsageError(`--idp ${JSON.stringify(this.idp)} is not an identity-provider app ID: use letters, digits, '.', '_', ':' and '-'.`);
    }
    return starter.idpVariable;
  }
}
