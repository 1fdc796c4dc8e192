import { describe, expect, it } from 'vitest';
import type { AnyOperation } from '../../src/contract/operation.js';
import { operations } from '../../src/contract/operations/index.js';
import { createRouter, fullPath } from '../../server/http/router.js';

/**
 * The router finds a path without placeholders in one lookup, and any other path by walking the
 * routes: both ways must agree. A trailing slash takes the walk, so each operation is asked both
 * ways, with its placeholders filled.
 */
describe('router: the one-lookup paths and the walk agree', () => {
  const router = createRouter(operations as readonly AnyOperation[]);
  const filled = (operation: AnyOperation) => fullPath(operation).replace(/\{[^}]+\}/g, 'x1');

  it('every operation is found by its own path, with or without a trailing slash', () => {
    for (const operation of operations as readonly AnyOperation[]) {
      const path = filled(operation);
      const direct = router.match(operation.method, path);
      const walked = router.match(operation.method, `${path}/`);
      expect(direct.kind === 'found' && direct.operation.id, path).toBe(operation.id);
      expect(walked, path).toEqual(direct);
    }
  });

  it('a known path with another method is refused with the methods it takes', () => {
    const answer = router.match('DELETE', '/api/v1/chat/completions');
    expect(answer).toEqual({ kind: 'wrong_method', allow: ['POST'] });
  });
});
