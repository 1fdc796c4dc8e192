import { describe, expect, it } from 'vitest';
import { clientOperations } from '../../src/client/operation-refs.js';
import { operations } from '../../src/contract/operations/index.js';

describe('the operations the client calls by hand', () => {
  it.each(Object.entries(clientOperations))('%s has the contract operation’s method and path', (_name, ref) => {
    const op = operations.find((candidate) => candidate.id === ref.id);
    expect(op, `no operation ${ref.id} in the contract`).toBeDefined();
    expect({ method: ref.method, path: ref.path, absolutePath: ref.absolutePath ?? false }).toEqual({
      method: op!.method,
      path: op!.path,
      absolutePath: ('absolutePath' in op! && op!.absolutePath) || false,
    });
  });
});
