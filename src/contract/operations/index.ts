import type { AnyOperation } from '../operation.js';
import { accountOperations } from './account.js';
import { developerOperations } from './developer.js';
import { inferenceOperations } from './inference.js';
import { messagesOperations } from './messages.js';
import { surfaceOperations } from './surface.js';

/** Every operation of the API, in the order the docs list them. */
export const operations = [
  ...inferenceOperations,
  ...messagesOperations,
  ...developerOperations,
  ...accountOperations,
  ...surfaceOperations,
] as const satisfies readonly AnyOperation[];

export type Operation = (typeof operations)[number];
export type OperationId = Operation['id'];

/** The operation with this id, typed, for code that calls one operation by name. */
export function operationOf<I extends OperationId>(id: I): Extract<Operation, { id: I }> {
  const found = operations.find((op) => op.id === id);
  if (!found) throw new Error(`No operation ${id}.`);
  return found as Extract<Operation, { id: I }>;
}
