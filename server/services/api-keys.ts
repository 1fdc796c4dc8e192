import type { Clock } from '../clock.js';
import type { KeyRole } from '../../src/contract/operation.js';
import { invalidRequest, notFound } from '../errors.js';
import { generateApiKey } from '../auth/api-keys.js';
import type { ApiKeyPatch, ApiKeyRecord, Page, Store } from '../store/types.js';
import { budgetChange, budgetStanding } from './budgets.js';

const KEY_BUDGET_FIELDS = { credits: 'budget_credits', period: 'budget_period' };

/** A key with what its budget looks like now: spent in the current window and when it resets. */
export type KeyWithStanding = ApiKeyRecord & { standing: { spentMicro: number; resetsAt: string | null } | null };

/** Budget and expiry as create and update take them (the contract has checked their forms). */
interface KeyLimitsInput {
  budget_credits?: number | null | undefined;
  budget_period?: string | undefined;
  expires_at?: string | null | undefined;
}

export function createApiKeysService(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;

  const withStanding = (key: ApiKeyRecord): KeyWithStanding => ({
    ...key,
    standing: key.budget ? budgetStanding(key.budget, clock.now()) : null,
  });

  /** An expiry as stored (UTC, so that instants compare as text); never one already past. */
  function expiryOf(expiresAt: string | null): string | null {
    if (expiresAt === null) return null;
    const at = new Date(expiresAt);
    if (Number.isNaN(at.getTime())) throw invalidRequest(`expires_at '${expiresAt}' is not a valid time.`, 'expires_at');
    if (at.getTime() <= clock.now().getTime()) {
      throw invalidRequest(`expires_at ${at.toISOString()} is not in the future: a key that never works is no key.`, 'expires_at', 'expiry_in_past');
    }
    return at.toISOString();
  }

  /** The patch a create or update body asks for, given the key's current budget (null: none). */
  function limitsPatch(input: KeyLimitsInput, current: ApiKeyRecord['budget']): ApiKeyPatch {
    const patch: ApiKeyPatch = {};
    const budget = budgetChange({ credits: input.budget_credits, period: input.budget_period }, current, KEY_BUDGET_FIELDS);
    if (budget !== undefined) patch.budget = budget;
    if (input.expires_at !== undefined) patch.expiresAt = expiryOf(input.expires_at);
    return patch;
  }

  return {
    /** Creates a key (an `inference` one unless said) and returns it with its secret, never readable again. */
    async create(appUuid: string, input: { name: string; is_test: boolean; role?: KeyRole | undefined } & KeyLimitsInput) {
      const role = input.role ?? 'inference';
      if (input.is_test && role === 'admin') {
        throw invalidRequest(
          'A test key cannot be admin: test keys never change live objects. Create an inference or read_only test key, or a live admin key.',
          'role',
          'test_key_cannot_be_admin',
        );
      }
      const limits = limitsPatch(input, null);
      const generated = generateApiKey(input.is_test);
      const key = await store.apiKeys.create({
        keyId: generated.keyId,
        appUuid,
        name: input.name,
        isTest: input.is_test,
        role,
        prefix: generated.prefix,
        secretHash: generated.secretHash,
        budget: limits.budget ?? null,
        expiresAt: limits.expiresAt ?? null,
        at: clock.now().toISOString(),
      });
      return { ...withStanding(key), secret: generated.secret };
    },

    async list(appUuid: string, page: Page) {
      const listed = await store.apiKeys.list(appUuid, page);
      return { ...listed, items: listed.items.map(withStanding) };
    },

    /** Changes a key's budget or expiry. */
    async update(appUuid: string, keyId: string, input: KeyLimitsInput) {
      const missing = () => notFound(`No API key ${keyId} in app ${appUuid}.`, 'api_key_not_found');
      const current = await store.apiKeys.get(appUuid, keyId);
      if (!current) throw missing();
      const updated = await store.apiKeys.update(appUuid, keyId, limitsPatch(input, current.budget));
      if (!updated) throw missing();
      return withStanding(updated);
    },

    /** The calling key, with its budget's standing (GET /key). */
    async current(appUuid: string, keyId: string) {
      const key = await store.apiKeys.get(appUuid, keyId);
      if (!key) throw notFound(`No API key ${keyId} in app ${appUuid}.`, 'api_key_not_found');
      return withStanding(key);
    },

    async delete(appUuid: string, keyId: string) {
      if (!(await store.apiKeys.delete(appUuid, keyId, clock.now().toISOString()))) {
        throw notFound(`No API key ${keyId} in app ${appUuid}.`, 'api_key_not_found');
      }
    },
  };
}
