import { Command, Option, UsageError } from 'clipanion';
import * as t from 'typanion';
import { SvcCommand } from '../base-command.js';
import { ExitCode } from '../exit-codes.js';
import { IDP_APP_ID, STARTER_NAMES, STARTERS, type Starter, type Step } from '../starters/catalog.js';
import { checkEmpty, resolveTarget } from '../starters/target.js';
import { renderTemplates, withEnvValue, type ProjectFile } from '../starters/templates.js';
import { writeProject } from '../starters/write.js';

const starterList = STARTER_NAMES.map((name) => `\`${name}\`: ${STARTERS[name].summary}`).join('; ');

/** `.env`: the starter's example with the identity-provider app ID filled in. */
function envFile(files: readonly ProjectFile[], variable: string, idp: string): ProjectFile {
  const example = files.find((file) => file.path === '.env.example');
  if (!example) throw new Error('The starter has no .env.example.');
  return { path: '.env', content: withEnvValue(example.content, variable, idp) };
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
      `Writes a starter project into \`dir\` (default: the working directory), which must be new or empty and inside the working directory. Starters: ${starterList}.`,
      "The project's settings point at the API URL svc uses (--api-url, SVC_API_URL, the config file, or the local default). `--idp` writes the identity-provider app ID into the project's `.env` (web starter); an ID starting `sandbox_` uses the platform's sandbox identity provider.",
      'Exits 2 for a wrong command line: an unknown starter, a name outside the working directory, or a directory that is not empty.',
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

  async execute(): Promise<number> {
    if (this.starter === undefined) throw new UsageError(`Choose a starter with --starter: ${starterList}.`);
    const starter = STARTERS[this.starter];
    const idpVariable = this.idpVariable(starter);
    const target = resolveTarget(this.dir ?? '.', process.cwd());
    checkEmpty(target);
    let apiUrl: string;
    try {
      apiUrl = this.connection().apiUrl;
    } catch (error) {
      return this.report(error);
    }

    const files = renderTemplates([...starter.shared, this.starter], {
      PROJECT_NAME: target.packageName,
      SVC_API_URL: `${apiUrl.replace(/\/+$/, '')}/api/v1`,
    });
    if (this.idp !== undefined && idpVariable) files.push(envFile(files, idpVariable, this.idp));
    const where = target.relativeDir === '' ? 'the working directory' : target.relativeDir;
    try {
      writeProject(target.dir, files);
    } catch (error) {
      this.context.stderr.write(`svc: cannot write the project into ${where}: ${(error as Error).message}\n`);
      return ExitCode.apiError; // not a usage error: the command line was fine, the disk was not
    }

    const steps: Step[] = [
      ...(target.relativeDir === '' ? [] : [[`cd ${target.relativeDir}`] satisfies Step]),
      ...starter.steps({ packageName: target.packageName, idp: this.idp }),
    ];
    this.context.stdout.write(
      `Created ${where} from the ${this.starter} starter (${files.length} files): ${starter.summary}.\n\n` +
        `Next steps:\n${formatSteps(steps)}\n\nMore in ${target.relativeDir === '' ? '' : `${target.relativeDir}/`}README.md.\n`,
    );
    return ExitCode.ok;
  }

  /** Where `--idp` goes in the starter's `.env`; a usage error when the starter has no sign-in or the ID is malformed. */
  private idpVariable(starter: Starter): string | undefined {
    if (this.idp === undefined) return undefined;
    if (!starter.idpVariable) {
      throw new UsageError(`--idp is for starters whose users sign in (web); ${this.starter} calls the platform with an API key.`);
    }
    if (!IDP_APP_ID.test(this.idp)) {
      throw new UsageError(`--idp ${JSON.stringify(this.idp)} is not an identity-provider app ID: use letters, digits, '.', '_', ':' and '-'.`);
    }
    return starter.idpVariable;
  }
}
