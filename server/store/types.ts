/**
 * The store: every read and every atomic change the services need, as async domain operations.
 * The SQLite implementation lives in `sqlite/`; a PostgreSQL one can implement the same
 * interface for multi-instance deployments. No SQL exists outside `server/store/`.
 */

// The types live by area in types/; importers keep importing from here.
export * from './types/records.js';
export * from './types/errors.js';
export * from './types/money.js';
export * from './types/usage.js';
export * from './types/responses.js';
export * from './types/billing.js';
export * from './types/store.js';
