import { StoreUnavailableError } from '../types.js';

/** Driver and server codes that mean the database cannot be reached now, not that a query is wrong. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  // PostgreSQL: shutting down, crashed, starting, too many connections.
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

const isUnreachable = (error: unknown) => {
  const code = (error as { code?: unknown } | null)?.code;
  // Class 08: connection exceptions.
  return typeof code === 'string' && (UNREACHABLE.has(code) || code.startsWith('08'));
};

/**
 * The repository with every method's outage turned into StoreUnavailableError, which the HTTP
 * layer answers with a 503 and Retry-After rather than a 500: a database restart or a network
 * blip is the client's cue to retry, not a bug.
 */
export function guarded<T extends object>(repository: T): T {
  return new Proxy(repository, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result: unknown = Reflect.apply(value, target, args);
        if (!(result instanceof Promise)) return result;
        return result.catch((error: unknown) => {
          throw isUnreachable(error) ? new StoreUnavailableError((error as Error).message) : error;
        });
      };
    },
  });
}
