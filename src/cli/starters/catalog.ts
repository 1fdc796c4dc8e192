/** What `svc new` can write, and what to tell the developer afterwards. */

export const STARTER_NAMES = ['mini', 'web', 'messenger'] as const;
export type StarterName = (typeof STARTER_NAMES)[number];

/** An identity-provider app ID as the platform accepts it (idp create's idp_app_id). */
export const IDP_APP_ID = /^[A-Za-z0-9._:-]{1,200}$/;
/** IDs with this prefix use the platform's built-in sandbox identity provider. */
const SANDBOX_PREFIX = 'sandbox_';

export interface StepContext {
  packageName: string;
  /** The `--idp` value, when given. */
  idp: string | undefined;
  /** Whether `.env` already holds a new test key (the developer was logged in). */
  keyWritten: boolean;
  /** The app that key belongs to, when svc knows it: the steps name it rather than `<app-uuid>`. */
  appUuid: string | undefined;
}

/** One line of the next steps: a shell command (empty for a note alone), and what it is for. */
export type Step = [command: string, note?: string];

export interface Starter {
  summary: string;
  /** Template directories shared with other starters, written first; the starter's own files come after and win. */
  shared: string[];
  /** The `.env` variable that holds the identity-provider app ID; starters without one take no `--idp`. */
  idpVariable?: string;
  /** The `.env` variable that holds the app's key; `svc new` puts a new test key there when logged in. */
  keyVariable: string;
  steps(context: StepContext): Step[];
}

const copyEnv = (note: string): Step => ['cp .env.example .env', `then ${note}`];

/** A real provider's tokens verify with its key; a sandbox id's with the server's own, so it takes none. */
const idpCreate = (appUuid: string | undefined, idpAppId: string, key?: string): Step => [
  `svc api developer apps idp create ${appUuid ?? '<app-uuid>'} --idp-app-id ${idpAppId}${key ? ` --idp-verification-key "${key}"` : ''}`,
  'once; see README.md',
];

function webSteps({ packageName, idp, keyWritten, appUuid }: StepContext): Step[] {
  if (idp !== undefined && !idp.startsWith(SANDBOX_PREFIX)) {
    // A real identity provider: the platform needs its verification key, and the page its SDK.
    return [
      ['npm install'],
      idpCreate(appUuid, idp, '$(cat key.pem)'),
      ['', "in src/identity.ts: sign users in with your identity provider's SDK"],
      ['npm run dev'],
    ];
  }
  const testKey = 'set SVC_TEST_KEY to a test key (svc_test_…) of your app';
  return [
    ['npm install'],
    ...(keyWritten ? [] : [idp === undefined ? copyEnv(testKey) : (['', `in .env: ${testKey}`] satisfies Step)]),
    idpCreate(appUuid, idp ?? `${SANDBOX_PREFIX}${packageName}`),
    ['npm run dev', 'then open the page and sign in (sandbox)'],
  ];
}

export const STARTERS: Record<StarterName, Starter> = {
  mini: {
    summary: 'a TypeScript program that streams a chat completion with an API key',
    shared: ['node'],
    keyVariable: 'SVC_API_KEY',
    steps: ({ keyWritten }) => [
      ['npm install'],
      ...(keyWritten ? [] : [copyEnv('set SVC_API_KEY to an API key of your app')]),
      ['npm start -- "Hello!"'],
    ],
  },
  web: {
    summary: 'a browser app (Vite + React) whose users sign in with the identity provider',
    shared: [],
    idpVariable: 'VITE_IDP_APP_ID',
    keyVariable: 'SVC_TEST_KEY',
    steps: webSteps,
  },
  messenger: {
    summary: 'a bot that registers a messenger text channel and answers messages with chat completions',
    shared: ['node'],
    keyVariable: 'SVC_API_KEY',
    steps: ({ keyWritten }) => [
      ['npm install'],
      keyWritten ? ['', 'in .env: set MESSENGER_PAGE_ID'] : copyEnv('set SVC_API_KEY and MESSENGER_PAGE_ID'),
      ['npm start'],
    ],
  },
};
