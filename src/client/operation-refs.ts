import type { Operation, OperationId } from '../contract/operations/index.js';
import type { OperationRef } from './client.js';

type OperationById<Id extends OperationId> = Extract<Operation, { id: Id }>;

/**
 * An operation of the contract as the client calls it: its method and path at run time, the
 * contract's parameter, body and answer types at compile time. Only the types come from the
 * contract, so the CLI bundle loads no zod operation (test/cli/bundle.test.ts);
 * test/client/operation-refs.test.ts checks every method and path against the contract.
 */
function operation<Id extends OperationId>(id: Id, ref: OperationRef): OperationById<Id> {
  // The client reads only method, path and absolutePath; the cast lends the call the id's types.
  return { id, ...ref } as unknown as OperationById<Id>;
}

/** The operations the chat, its memory and `svc auth login` call (the dashboard and `svc api` use the manifest). */
export const clientOperations = {
  health: operation('health', { method: 'GET', path: '/health', absolutePath: true }),
  config: operation('config.list', { method: 'GET', path: '/config' }),
  balance: operation('credits.balance', { method: 'GET', path: '/credits/balance' }),
  key: operation('key.get', { method: 'GET', path: '/key' }),
  models: operation('models.list', { method: 'GET', path: '/models' }),
  chatCompletions: operation('chat.completions', { method: 'POST', path: '/chat/completions' }),
  embeddings: operation('embeddings.create', { method: 'POST', path: '/embeddings' }),
  apps: operation('developer.apps.list', { method: 'GET', path: '/developer/apps' }),
};
