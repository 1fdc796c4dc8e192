import type { OperationRef } from '../../client/client.js';
import type { Operation, OperationId } from '../../contract/operations/index.js';

/**
 * The dashboard calls operations by contract id. At run time it holds only the manifest (the
 * CLI bundle must not load the zod contract, see test/cli/bundle.test.ts); the contract's types
 * still type every call, because the id picks the operation's type.
 */
export type OperationById<Id extends OperationId> = Extract<Operation, { id: Id }>;

/** An operation as the manifest (or, in tests, the contract itself) describes it. */
export interface OperationEntry extends OperationRef {
  id: string;
}

export type OperationLookup = <Id extends OperationId>(id: Id) => OperationById<Id>;

export function operationLookup(entries: readonly OperationEntry[]): OperationLookup {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  return <Id extends OperationId>(id: Id): OperationById<Id> => {
    const entry = byId.get(id);
    if (!entry) throw new Error(`This svc build does not know the operation ${id}; rebuild or update svc.`);
    // The client reads only method, path and absolutePath; the cast lends the call the contract's
    // parameter, body and answer types for this id.
    return entry as unknown as OperationById<Id>;
  };
}
