import type { AnyOperation } from '../../src/contract/operation.js';

export const API_PREFIX = '/api/v1';

interface Route {
  operation: AnyOperation;
  segments: string[];
  /** A last placeholder `{name+}` takes the rest of the path, slashes and all (model ids). */
  rest: boolean;
  /** How many segments are literal: of two routes that match, the one with more wins. */
  literals: number;
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
  const routes: Route[] = operations.map((operation) => {
    const segments = split(fullPath(operation));
    return {
      operation,
      segments,
      rest: segments.at(-1)?.endsWith('+}') ?? false,
      literals: segments.filter((segment) => !segment.startsWith('{')).length,
    };
  });
  // Paths without placeholders, by path and method: most requests (inference among them) are
  // found here in one lookup, and such a route is the most literal of any that match.
  const exact = new Map<string, Map<string, AnyOperation>>();
  for (const route of routes) {
    if (route.literals !== route.segments.length) continue;
    const path = `/${route.segments.join('/')}`;
    const methods = exact.get(path) ?? new Map<string, AnyOperation>();
    methods.set(route.operation.method, route.operation);
    exact.set(path, methods);
  }

  function matchSegments(route: Route, parts: string[]): Record<string, string> | null {
    const { rest } = route;
    if (rest ? parts.length < route.segments.length : route.segments.length !== parts.length) return null;
    // The literal segments first: most routes fail there, before anything is decoded or kept.
    for (let i = 0; i < route.segments.length; i++) {
      const pattern = route.segments[i] as string;
      if (!pattern.startsWith('{') && pattern !== parts[i]) return null;
    }
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
      const hit = exact.get(pathname)?.get(method);
      if (hit) return { kind: 'found', operation: hit, params: {} };
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
        if (!best || route.literals > best.literals) best = { operation: route.operation, params, literals: route.literals };
      }
      if (best) return { kind: 'found', operation: best.operation, params: best.params };
      if (allow.length > 0) return { kind: 'wrong_method', allow: [...new Set(allow)] };
      return { kind: 'not_found' };
    },
  };
}
