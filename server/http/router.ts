import type { AnyOperation } from '../../src/contract/operation.js';

export const API_PREFIX = '/api/v1';

interface Route {
  operation: AnyOperation;
  segments: string[];
}

export type RouteMatch =
  | { kind: 'found'; operation: AnyOperation; params: Record<string, string> }
  | { kind: 'wrong_method'; allow: string[] }
  | { kind: 'not_found' };

export function fullPath(operation: AnyOperation): string {
  return operation.absolutePath ? operation.path : `${API_PREFIX}${operation.path}`;
}

const split = (path: string) => path.split('/').filter(Boolean);

/** A router built from the contract: every operation's method and path, nothing written by hand. */
export function createRouter(operations: readonly AnyOperation[]) {
  const routes: Route[] = operations.map((operation) => ({ operation, segments: split(fullPath(operation)) }));

  function matchSegments(route: Route, parts: string[]): Record<string, string> | null {
    // A last placeholder `{name+}` takes the rest of the path, slashes and all (model ids).
    const rest = route.segments.at(-1)?.endsWith('+}') ?? false;
    if (rest ? parts.length < route.segments.length : route.segments.length !== parts.length) return null;
    const params: Record<string, string> = {};
    for (let i = 0; i < route.segments.length; i++) {
      const pattern = route.segments[i] as string;
      const part = rest && i === route.segments.length - 1 ? parts.slice(i).join('/') : (parts[i] as string);
      if (pattern.startsWith('{')) {
        let value: string;
        try {
          value = decodeURIComponent(part);
        } catch {
          return null;
        }
        params[pattern.slice(1, pattern.endsWith('+}') ? -2 : -1)] = value;
      } else if (pattern !== part) {
        return null;
      }
    }
    return params;
  }

  return {
    match(method: string, pathname: string): RouteMatch {
      const parts = split(pathname);
      const allow: string[] = [];
      let best: { operation: AnyOperation; params: Record<string, string>; literals: number } | null = null;
      for (const route of routes) {
        const params = matchSegments(route, parts);
        if (!params) continue;
        if (route.operation.method !== method) {
          allow.push(route.operation.method);
          continue;
        }
        // Prefer the route with more literal segments (`/usage/users` over a placeholder).
        const literals = route.segments.filter((s) => !s.startsWith('{')).length;
        if (!best || literals > best.literals) best = { operation: route.operation, params, literals };
      }
      if (best) return { kind: 'found', operation: best.operation, params: best.params };
      if (allow.length > 0) return { kind: 'wrong_method', allow: [...new Set(allow)] };
      return { kind: 'not_found' };
    },
  };
}
