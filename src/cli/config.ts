import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import * as z from 'zod/mini';
import { ConfigError, configPath, readConfigJson, svcHome } from './connection.js';

const text = () => z.optional(z.string().check(z.minLength(1)));
const count = () => z.optional(z.number().check(z.int(), z.positive()));

/** `~/.svc/config.json`. Unknown keys are kept, so an older client does not drop a newer one's settings. */
export const ConfigFile = z.looseObject({
  api_key: text(),
  api_url: z.optional(z.url()),
  model: text(),
  embedding_model: text(),
  context_messages: count(),
  max_file_bytes: count(),
  max_tool_rounds: count(),
});
export type ConfigFile = z.infer<typeof ConfigFile>;

/**
 * The CLI's config file, validated as a whole. Written atomically (a temporary file renamed over
 * it) and readable only by its owner, since it holds a secret.
 */
export function openConfig(env: NodeJS.ProcessEnv) {
  const home = svcHome(env);
  const path = configPath(env);
  const parsed = ConfigFile.safeParse(readConfigJson(path));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`${path} is invalid: ${issue?.path.join('.') || 'file'}: ${issue?.message ?? 'bad value'}; fix or delete it.`);
  }
  let values: ConfigFile = parsed.data;

  const write = (next: ConfigFile) => {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, path);
    values = next;
  };

  return {
    path,
    home,
    get values() {
      return values;
    },
    set(changes: Partial<ConfigFile>) {
      write({ ...values, ...Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) });
    },
    delete(key: keyof ConfigFile & string) {
      const { [key]: _removed, ...rest } = values;
      write(rest);
    },
  };
}
