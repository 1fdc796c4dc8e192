import type { AnyOperation } from '../operation.js';
import { accountOperations } from './account.js';
import { developerOperations } from './developer.js';
import { inferenceOperations } from './inference.js';
import { messagesOperations } from './messages.js';
import { providersOperations } from './providers.js';
import { surfaceOperations } from './surface.js';

/** Every operation of the API, in the order the docs list them. */
export const operations = [
  ...inferenceOperations,
  ...messagesOperations,
  ...developerOperations,
  ...accountOperations,
  ...surfaceOperations,
  ...providersOperations,
] as const satisfies readonly AnyOperation[];

export type Operation = (typeof operations)[number];
export type OperationId = Operation['id'];

