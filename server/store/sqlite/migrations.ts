import { backfillUsageRollupsSql, backfillUsageRollupsSql15, oneUsageRowPerRequestSql } from '../usage-backfill.js';
import { subscriptionPricesSql } from '../subscription-prices.js';

/**
 * Numbered schema migrations, applied in order at start; `PRAGMA user_version` records the last
 * one applied. A migration is never edited once released: add a new one.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  /**
   * Rebuilds a table that others reference (SQLite's documented twelve-step procedure): foreign
   * keys are off while it runs and checked before its transaction commits.
   */
  rebuildsTables?: boolean;
}

/** The totals each rollup row keeps, as migration 23 made them. */
const ROLLUP_TOTALS_23 = `requests           INTEGER NOT NULL,
        refused            INTEGER NOT NULL,
        input_tokens       INTEGER NOT NULL,
        output_tokens      INTEGER NOT NULL,
        cache_read_tokens  INTEGER NOT NULL,
        cache_write_tokens INTEGER NOT NULL,
        reasoning_tokens   INTEGER NOT NULL,
        charged_micro      INTEGER NOT NULL,`;

export const migrations: Migration[] = [
  {
    version: 1,
    name: 'developers, apps, keys, users, accounts and the ledger',
    sql: `
      CREATE TABLE developers (
        id          TEXT PRIMARY KEY,
        name        TEXT NOT NULL,
        created_at  TEXT NOT NULL
      );

      -- Every balance lives in an account; the ledger is the account's history.
      CREATE TABLE accounts (
        id            INTEGER PRIMARY KEY,
        balance_micro INTEGER NOT NULL DEFAULT 0 CHECK (balance_micro >= 0),
        held_micro    INTEGER NOT NULL DEFAULT 0 CHECK (held_micro >= 0)
      );

      CREATE TABLE ledger_entries (
        id                  INTEGER PRIMARY KEY,
        account_id          INTEGER NOT NULL REFERENCES accounts(id),
        amount_micro        INTEGER NOT NULL CHECK (amount_micro <> 0),
        balance_after_micro INTEGER NOT NULL CHECK (balance_after_micro >= 0),
        kind                TEXT NOT NULL,
        idempotency_key     TEXT NOT NULL,
        reference           TEXT,
        created_at          TEXT NOT NULL,
        UNIQUE (idempotency_key, account_id)
      );
      CREATE INDEX ledger_entries_account ON ledger_entries (account_id, id);
      CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE ON ledger_entries
        BEGIN SELECT RAISE(ABORT, 'ledger entries are append-only'); END;
      CREATE TRIGGER ledger_entries_no_delete BEFORE DELETE ON ledger_entries
        BEGIN SELECT RAISE(ABORT, 'ledger entries are append-only'); END;

      CREATE TABLE apps (
        app_uuid                   TEXT PRIMARY KEY,
        developer_id               TEXT NOT NULL REFERENCES developers(id),
        account_id                 INTEGER NOT NULL UNIQUE REFERENCES accounts(id),
        name                       TEXT NOT NULL,
        app_type                   TEXT NOT NULL CHECK (app_type IN ('standard', 'pooled_api')),
        default_user_credits_micro INTEGER NOT NULL CHECK (default_user_credits_micro >= 0),
        allowed_origins            TEXT NOT NULL DEFAULT '[]',
        idp_app_id                 TEXT UNIQUE,
        idp_verification_key       TEXT,
        idp_updated_at             TEXT,
        created_at                 TEXT NOT NULL,
        updated_at                 TEXT NOT NULL,
        deleted_at                 TEXT
      );
      CREATE INDEX apps_developer ON apps (developer_id, created_at);

      CREATE TABLE api_keys (
        key_id       TEXT PRIMARY KEY,
        app_uuid     TEXT NOT NULL REFERENCES apps(app_uuid),
        name         TEXT NOT NULL,
        is_test      INTEGER NOT NULL CHECK (is_test IN (0, 1)),
        prefix       TEXT NOT NULL,
        secret_hash  TEXT NOT NULL UNIQUE,
        created_at   TEXT NOT NULL,
        last_used_at TEXT,
        deleted_at   TEXT
      );
      CREATE INDEX api_keys_app ON api_keys (app_uuid, created_at);

      CREATE TABLE app_users (
        app_uuid           TEXT NOT NULL REFERENCES apps(app_uuid),
        address            TEXT NOT NULL,
        account_id         INTEGER NOT NULL UNIQUE REFERENCES accounts(id),
        credit_limit_micro INTEGER CHECK (credit_limit_micro IS NULL OR credit_limit_micro >= 0),
        spent_micro        INTEGER NOT NULL DEFAULT 0 CHECK (spent_micro >= 0),
        created_at         TEXT NOT NULL,
        PRIMARY KEY (app_uuid, address)
      );
    `,
  },
  {
    version: 2,
    name: 'usage events: one row per metered request',
    sql: `
      CREATE TABLE usage_events (
        id             INTEGER PRIMARY KEY,
        request_id     TEXT NOT NULL,
        app_uuid       TEXT NOT NULL,
        key_id         TEXT,
        address        TEXT,
        provider       TEXT NOT NULL,
        model          TEXT NOT NULL,
        operation      TEXT NOT NULL,
        input_tokens   INTEGER NOT NULL DEFAULT 0,
        output_tokens  INTEGER NOT NULL DEFAULT 0,
        cost_micro     INTEGER NOT NULL DEFAULT 0,
        latency_ms     INTEGER NOT NULL,
        ttft_ms        INTEGER,
        status         TEXT NOT NULL,
        error_code     TEXT,
        created_at     TEXT NOT NULL
      );
      CREATE INDEX usage_events_app_time ON usage_events (app_uuid, created_at);
    `,
  },
  {
    version: 3,
    name: 'find API keys by their public prefix',
    sql: `CREATE INDEX api_keys_prefix ON api_keys (prefix);
      CREATE INDEX usage_events_app_address_time ON usage_events (app_uuid, address, created_at);`,
  },
  {
    version: 4,
    name: 'responses, kept for a bounded time',
    sql: `
      CREATE TABLE responses (
        id          TEXT PRIMARY KEY,
        app_uuid    TEXT NOT NULL,
        address     TEXT,
        status      TEXT NOT NULL,
        body        TEXT NOT NULL,
        created_at  TEXT NOT NULL,
        expires_at  TEXT NOT NULL
      );
      CREATE INDEX responses_expiry ON responses (expires_at);
    `,
  },
  {
    version: 5,
    name: 'text channel registrations',
    sql: `
      -- One identifier of a channel belongs to one caller; a caller has one registration a channel.
      CREATE TABLE text_registrations (
        channel          TEXT NOT NULL CHECK (channel IN ('sms', 'messenger')),
        identifier       TEXT NOT NULL,
        app_uuid         TEXT NOT NULL,
        owner            TEXT NOT NULL,
        preferred_model  TEXT,
        created_at       TEXT NOT NULL,
        updated_at       TEXT NOT NULL,
        PRIMARY KEY (channel, identifier),
        UNIQUE (channel, app_uuid, owner)
      );
    `,
  },
  {
    version: 6,
    name: "the server's signing keys (JWKS)",
    sql: `
      CREATE TABLE signing_keys (
        kid          TEXT PRIMARY KEY,
        algorithm    TEXT NOT NULL,
        public_jwk   TEXT NOT NULL,
        private_jwk  TEXT NOT NULL,
        created_at   TEXT NOT NULL
      );
    `,
  },
  {
    version: 7,
    name: 'per-app rate limit overrides',
    sql: `
      ALTER TABLE apps ADD COLUMN rate_limit_rpm INTEGER CHECK (rate_limit_rpm IS NULL OR rate_limit_rpm > 0);
      ALTER TABLE apps ADD COLUMN rate_limit_tpm INTEGER CHECK (rate_limit_tpm IS NULL OR rate_limit_tpm > 0);
    `,
  },
  {
    version: 8,
    name: 'checkout sessions and received webhook events',
    sql: `
      -- A payment the processor collects; paying it credits its account exactly once.
      CREATE TABLE checkout_sessions (
        id               TEXT PRIMARY KEY,
        kind             TEXT NOT NULL CHECK (kind IN ('credit_pack', 'app_funding', 'subscription')),
        developer_id     TEXT NOT NULL,
        app_uuid         TEXT NOT NULL,
        address          TEXT,
        credits_micro    INTEGER NOT NULL CHECK (credits_micro > 0),
        amount_usd_cents INTEGER NOT NULL CHECK (amount_usd_cents > 0),
        description      TEXT NOT NULL,
        status           TEXT NOT NULL CHECK (status IN ('open', 'complete', 'expired')),
        success_url      TEXT,
        cancel_url       TEXT,
        referral         TEXT,
        created_at       TEXT NOT NULL,
        paid_at          TEXT,
        expires_at       TEXT NOT NULL
      );
      CREATE INDEX checkout_sessions_developer ON checkout_sessions (developer_id, created_at);
      -- Each processor event is applied once, whatever its order or repetition.
      CREATE TABLE webhook_events (
        id           TEXT PRIMARY KEY,
        type         TEXT NOT NULL,
        received_at  TEXT NOT NULL
      );
    `,
  },
  {
    version: 9,
    name: 'subscriptions, their invoices and portal sessions',
    sql: `
      -- The plan a subscription checkout sells (credit checkouts leave it null).
      ALTER TABLE checkout_sessions ADD COLUMN price_id TEXT;

      -- One row per processor subscription. A subject (an app, or a user of an app) has at most
      -- one active subscription; canceled ones stay as history. \`state_version\` is the time of
      -- the newest processor state applied, so older events arriving late change nothing.
      CREATE TABLE subscriptions (
        id                   TEXT PRIMARY KEY,
        developer_id         TEXT NOT NULL,
        app_uuid             TEXT NOT NULL,
        address              TEXT NOT NULL DEFAULT '',
        customer_id          TEXT,
        tier                 TEXT NOT NULL CHECK (tier IN ('starter', 'pro')),
        interval             TEXT NOT NULL CHECK (interval IN ('month', 'year')),
        status               TEXT NOT NULL CHECK (status IN ('active', 'canceled')),
        current_period_start TEXT NOT NULL,
        current_period_end   TEXT NOT NULL,
        cancel_at_period_end INTEGER NOT NULL DEFAULT 0,
        scheduled_tier       TEXT CHECK (scheduled_tier IN ('starter', 'pro')),
        scheduled_interval   TEXT CHECK (scheduled_interval IN ('month', 'year')),
        state_version        INTEGER NOT NULL,
        created_at           TEXT NOT NULL,
        updated_at           TEXT NOT NULL
      );
      CREATE UNIQUE INDEX subscriptions_one_active ON subscriptions (app_uuid, address) WHERE status = 'active';
      CREATE INDEX subscriptions_subject ON subscriptions (app_uuid, address, created_at);
      CREATE INDEX subscriptions_due ON subscriptions (current_period_end) WHERE status = 'active';

      -- What a subscription charged after its checkout: renewals and upgrades (billing history).
      CREATE TABLE subscription_invoices (
        id               TEXT PRIMARY KEY,
        subscription_id  TEXT NOT NULL,
        developer_id     TEXT NOT NULL,
        amount_usd_cents INTEGER NOT NULL CHECK (amount_usd_cents >= 0),
        credits_micro    INTEGER NOT NULL CHECK (credits_micro >= 0),
        description      TEXT NOT NULL,
        paid_at          TEXT NOT NULL
      );
      CREATE INDEX subscription_invoices_developer ON subscription_invoices (developer_id, paid_at);

      -- A customer-portal link of the sandbox processor: the id is the capability.
      CREATE TABLE portal_sessions (
        id              TEXT PRIMARY KEY,
        subscription_id TEXT NOT NULL,
        return_url      TEXT,
        expires_at      TEXT NOT NULL
      );
    `,
  },
  {
    version: 10,
    name: 'API key roles',
    sql: `
      ALTER TABLE api_keys ADD COLUMN role TEXT NOT NULL DEFAULT 'inference'
        CHECK (role IN ('inference', 'read_only', 'admin'));
      -- Keys issued before roles existed were full owner credentials: live ones keep that power
      -- (list them and replace what should be narrower); test keys are never admin.
      UPDATE api_keys SET role = 'admin' WHERE is_test = 0;
      CREATE TRIGGER api_keys_test_never_admin BEFORE INSERT ON api_keys
        WHEN NEW.is_test = 1 AND NEW.role = 'admin'
        BEGIN SELECT RAISE(ABORT, 'a test key cannot be admin'); END;
    `,
  },
  {
    version: 11,
    name: 'identity-provider ids unique per developer; text identifiers unique per app',
    rebuildsTables: true,
    sql: `
      CREATE TABLE apps_rebuilt (
        app_uuid                   TEXT PRIMARY KEY,
        developer_id               TEXT NOT NULL REFERENCES developers(id),
        account_id                 INTEGER NOT NULL UNIQUE REFERENCES accounts(id),
        name                       TEXT NOT NULL,
        app_type                   TEXT NOT NULL CHECK (app_type IN ('standard', 'pooled_api')),
        default_user_credits_micro INTEGER NOT NULL CHECK (default_user_credits_micro >= 0),
        allowed_origins            TEXT NOT NULL DEFAULT '[]',
        idp_app_id                 TEXT,
        idp_verification_key       TEXT,
        idp_updated_at             TEXT,
        created_at                 TEXT NOT NULL,
        updated_at                 TEXT NOT NULL,
        deleted_at                 TEXT,
        rate_limit_rpm             INTEGER CHECK (rate_limit_rpm IS NULL OR rate_limit_rpm > 0),
        rate_limit_tpm             INTEGER CHECK (rate_limit_tpm IS NULL OR rate_limit_tpm > 0)
      );
      INSERT INTO apps_rebuilt (app_uuid, developer_id, account_id, name, app_type, default_user_credits_micro,
          allowed_origins, idp_app_id, idp_verification_key, idp_updated_at, created_at, updated_at, deleted_at,
          rate_limit_rpm, rate_limit_tpm)
        SELECT app_uuid, developer_id, account_id, name, app_type, default_user_credits_micro,
          allowed_origins, idp_app_id, idp_verification_key, idp_updated_at, created_at, updated_at, deleted_at,
          rate_limit_rpm, rate_limit_tpm FROM apps;
      DROP TABLE apps;
      ALTER TABLE apps_rebuilt RENAME TO apps;
      CREATE INDEX apps_developer ON apps (developer_id, created_at);
      -- Two developers may name the same identity-provider app; one developer only once.
      CREATE UNIQUE INDEX apps_idp_per_developer ON apps (developer_id, idp_app_id) WHERE idp_app_id IS NOT NULL;
      CREATE INDEX apps_idp ON apps (idp_app_id) WHERE idp_app_id IS NOT NULL;

      CREATE TABLE text_registrations_rebuilt (
        channel          TEXT NOT NULL CHECK (channel IN ('sms', 'messenger')),
        identifier       TEXT NOT NULL,
        app_uuid         TEXT NOT NULL,
        owner            TEXT NOT NULL,
        preferred_model  TEXT,
        created_at       TEXT NOT NULL,
        updated_at       TEXT NOT NULL,
        -- Within an app an identifier belongs to one caller; two apps may hold the same one.
        PRIMARY KEY (channel, app_uuid, identifier),
        UNIQUE (channel, app_uuid, owner)
      );
      INSERT INTO text_registrations_rebuilt SELECT channel, identifier, app_uuid, owner, preferred_model, created_at, updated_at
        FROM text_registrations;
      DROP TABLE text_registrations;
      ALTER TABLE text_registrations_rebuilt RENAME TO text_registrations;
    `,
  },
  {
    version: 12,
    name: 'test balances, the promotions account, payment mode of checkouts, charged amounts',
    sql: `
      -- Test mode's play money lives in accounts of its own, never summed with live money.
      ALTER TABLE accounts ADD COLUMN test INTEGER NOT NULL DEFAULT 0 CHECK (test IN (0, 1));
      ALTER TABLE apps ADD COLUMN test_account_id INTEGER REFERENCES accounts(id);
      ALTER TABLE app_users ADD COLUMN test_account_id INTEGER REFERENCES accounts(id);
      -- Whether the app pays its users' daily claims and task rewards.
      ALTER TABLE apps ADD COLUMN user_claims INTEGER NOT NULL DEFAULT 1 CHECK (user_claims IN (0, 1));
      ALTER TABLE checkout_sessions ADD COLUMN livemode INTEGER NOT NULL DEFAULT 1 CHECK (livemode IN (0, 1));
      ALTER TABLE subscriptions ADD COLUMN livemode INTEGER NOT NULL DEFAULT 1 CHECK (livemode IN (0, 1));

      -- The operator's own accounts: \`promotions\` pays developers' claims; it starts empty.
      CREATE TABLE operator_accounts (
        name        TEXT PRIMARY KEY,
        account_id  INTEGER NOT NULL UNIQUE REFERENCES accounts(id)
      );
      INSERT INTO accounts (balance_micro, held_micro, test) VALUES (0, 0, 0);
      INSERT INTO operator_accounts (name, account_id) VALUES ('promotions', last_insert_rowid());

      -- What a request cost and what the balance could pay of it (less only when the upstream
      -- reported more than was held and the balance ran out).
      ALTER TABLE usage_events ADD COLUMN charged_micro INTEGER;
      UPDATE usage_events SET charged_micro = cost_micro;

      -- Entries up to here were written before every credit had to have a source: the
      -- conservation check reports them apart rather than as a violation.
      CREATE TABLE ledger_baseline (last_entry_id INTEGER NOT NULL);
      INSERT INTO ledger_baseline SELECT COALESCE(MAX(id), 0) FROM ledger_entries;
    `,
  },
  {
    version: 13,
    name: 'the input of a kept response, and its id at the upstream',
    sql: `
      -- The input items a response answered (previous turns included): previous_response_id and
      -- input_items read them. A response of an upstream with its own Responses API keeps that
      -- upstream's id, which a later previous_response_id is mapped to.
      ALTER TABLE responses ADD COLUMN input TEXT;
      ALTER TABLE responses ADD COLUMN upstream_id TEXT;
    `,
  },
  {
    version: 14,
    name: 'live and test mode: every object a key or a user can reach carries its mode',
    rebuildsTables: true,
    sql: `
      -- Rows written before modes were kept: live, except what only test mode can have made — the
      -- users of an app signing in through the sandbox identity provider (and what they own).
      CREATE TEMP TABLE sandbox_apps AS SELECT app_uuid FROM apps WHERE substr(idp_app_id, 1, 8) = 'sandbox_';

      -- Responses (kept 24 hours): a test key's cannot be told from a live key's, a sandbox user's can.
      ALTER TABLE responses ADD COLUMN livemode INTEGER NOT NULL DEFAULT 1 CHECK (livemode IN (0, 1));
      UPDATE responses SET livemode = 0 WHERE address IS NOT NULL AND app_uuid IN (SELECT app_uuid FROM sandbox_apps);

      -- A test and a live registration of one identifier are two objects: the mode is in the key.
      CREATE TABLE text_registrations_rebuilt (
        channel          TEXT NOT NULL CHECK (channel IN ('sms', 'messenger')),
        identifier       TEXT NOT NULL,
        app_uuid         TEXT NOT NULL,
        livemode         INTEGER NOT NULL CHECK (livemode IN (0, 1)),
        owner            TEXT NOT NULL,
        preferred_model  TEXT,
        created_at       TEXT NOT NULL,
        updated_at       TEXT NOT NULL,
        PRIMARY KEY (channel, app_uuid, livemode, identifier),
        UNIQUE (channel, app_uuid, livemode, owner)
      );
      INSERT INTO text_registrations_rebuilt
        SELECT channel, identifier, app_uuid,
          CASE WHEN owner LIKE 'user:%' AND app_uuid IN (SELECT app_uuid FROM sandbox_apps) THEN 0 ELSE 1 END,
          owner, preferred_model, created_at, updated_at
        FROM text_registrations;
      DROP TABLE text_registrations;
      ALTER TABLE text_registrations_rebuilt RENAME TO text_registrations;

      -- A user is a user of one mode, with one account of that mode: a sandbox user and a live
      -- user of the same address are two users (a live one no longer finds a sandbox one's row and
      -- goes without its default credits). A test balance kept beside a live user becomes a test
      -- user; the live row a sandbox sign-in made beside it, never used live (no ledger entry, no
      -- spend), goes: it was a test user showing in live mode.
      CREATE TABLE app_users_rebuilt (
        app_uuid           TEXT NOT NULL REFERENCES apps(app_uuid),
        livemode           INTEGER NOT NULL CHECK (livemode IN (0, 1)),
        address            TEXT NOT NULL,
        account_id         INTEGER NOT NULL UNIQUE REFERENCES accounts(id),
        credit_limit_micro INTEGER CHECK (credit_limit_micro IS NULL OR credit_limit_micro >= 0),
        spent_micro        INTEGER NOT NULL DEFAULT 0 CHECK (spent_micro >= 0),
        created_at         TEXT NOT NULL,
        PRIMARY KEY (app_uuid, livemode, address)
      );
      INSERT INTO app_users_rebuilt (app_uuid, livemode, address, account_id, credit_limit_micro, spent_micro, created_at)
        SELECT app_uuid, 1, address, account_id, credit_limit_micro, spent_micro, created_at FROM app_users u
        WHERE NOT (test_account_id IS NOT NULL AND spent_micro = 0
                   AND NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.account_id = u.account_id));
      INSERT INTO app_users_rebuilt (app_uuid, livemode, address, account_id, credit_limit_micro, spent_micro, created_at)
        SELECT app_uuid, 0, address, test_account_id, credit_limit_micro, 0, created_at FROM app_users WHERE test_account_id IS NOT NULL;
      DROP TABLE app_users;
      ALTER TABLE app_users_rebuilt RENAME TO app_users;

      -- One active subscription per subject and mode.
      DROP INDEX subscriptions_one_active;
      CREATE UNIQUE INDEX subscriptions_one_active ON subscriptions (app_uuid, address, livemode) WHERE status = 'active';

      DROP TABLE sandbox_apps;
    `,
  },
  {
    version: 15,
    name: 'usage rollups, which the usage reports read',
    sql: `
      -- Added to in the same transaction as each usage row (usage-rows.ts): a report reads its
      -- whole days and hours here and only its partial edge hours from usage_events
      -- (usage-window.ts). '' stands for no address (API-key requests) and no key.
      CREATE TABLE usage_hourly (
        app_uuid       TEXT NOT NULL,
        hour           TEXT NOT NULL,
        address        TEXT NOT NULL,
        key_id         TEXT NOT NULL,
        provider       TEXT NOT NULL,
        model          TEXT NOT NULL,
        requests       INTEGER NOT NULL,
        refused        INTEGER NOT NULL,
        input_tokens   INTEGER NOT NULL,
        output_tokens  INTEGER NOT NULL,
        charged_micro  INTEGER NOT NULL,
        PRIMARY KEY (app_uuid, hour, address, key_id, provider, model)
      ) WITHOUT ROWID;
      CREATE INDEX usage_hourly_user ON usage_hourly (app_uuid, address, hour);
      CREATE TABLE usage_hourly_models (
        app_uuid       TEXT NOT NULL,
        hour           TEXT NOT NULL,
        provider       TEXT NOT NULL,
        model          TEXT NOT NULL,
        requests       INTEGER NOT NULL,
        refused        INTEGER NOT NULL,
        input_tokens   INTEGER NOT NULL,
        output_tokens  INTEGER NOT NULL,
        charged_micro  INTEGER NOT NULL,
        PRIMARY KEY (app_uuid, hour, provider, model)
      ) WITHOUT ROWID;
      CREATE TABLE usage_daily_users (
        app_uuid       TEXT NOT NULL,
        day            TEXT NOT NULL,
        address        TEXT NOT NULL,
        requests       INTEGER NOT NULL,
        refused        INTEGER NOT NULL,
        input_tokens   INTEGER NOT NULL,
        output_tokens  INTEGER NOT NULL,
        charged_micro  INTEGER NOT NULL,
        PRIMARY KEY (app_uuid, day, address)
      ) WITHOUT ROWID;
      ${backfillUsageRollupsSql15}
      -- svc serve --check lists the shortfalls: a few rows, found without reading every usage row.
      CREATE INDEX usage_events_shortfall ON usage_events (id) WHERE charged_micro < cost_micro;
    `,
  },
  {
    version: 16,
    name: "upgrade grants tied to their charges; the sandbox processor's test cards",
    sql: `
      -- From here on an upgrade's credits are granted only with its paid charge (a subscription
      -- invoice, which the grant names). Upgrade grants up to here were made before their payment
      -- was confirmed and name no charge: the conservation check does not look for one behind them.
      CREATE TABLE upgrade_grant_baseline (last_entry_id INTEGER NOT NULL);
      INSERT INTO upgrade_grant_baseline SELECT COALESCE(MAX(id), 0) FROM ledger_entries;

      -- The test card each sandbox customer gave its customer portal (one that declines, to try a
      -- failed payment); a customer without a row pays.
      CREATE TABLE sandbox_cards (
        customer_id TEXT PRIMARY KEY,
        card        TEXT NOT NULL
      );
    `,
  },
  {
    version: 17,
    name: 'the order in which apps took their identity-provider ids',
    sql: `
      -- Several developers may hold the same idp_app_id. A token that names no app resolves to the
      -- holder that took the id first, so a later copy never moves another app's users. The
      -- number is kept while the app keeps the id (a new key included) and cleared with its
      -- configuration.
      ALTER TABLE apps ADD COLUMN idp_order INTEGER;
      -- Apps configured before this: the best record of when is idp_updated_at.
      UPDATE apps SET idp_order = ranked.n
        FROM (SELECT app_uuid, ROW_NUMBER() OVER (ORDER BY idp_updated_at, created_at, app_uuid) AS n
              FROM apps WHERE idp_app_id IS NOT NULL) AS ranked
        WHERE ranked.app_uuid = apps.app_uuid;
    `,
  },
  {
    version: 20,
    name: 'the events of background responses streamed as they ran',
    sql: `
      -- A background response created with stream: true keeps its events, written as it runs, so
      -- that GET /responses/{id}?stream=true&starting_after=N can replay them (OpenAI's resume).
      -- They go with their response (deleted or expired).
      CREATE TABLE response_events (
        response_id     TEXT NOT NULL,
        sequence_number INTEGER NOT NULL,
        event           TEXT NOT NULL,
        data            TEXT NOT NULL,
        PRIMARY KEY (response_id, sequence_number)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 21,
    name: 'key budgets and expiry (PostgreSQL 9)',
    sql: `
      -- A key may spend budget_credits_micro per budget_period (day, week, month in UTC, or a
      -- duration such as 7d), and stops working at expires_at. The current window's start and
      -- what was settled in it are kept with the key; what requests in flight hold is kept in
      -- memory, as the balance holds are (holds.ts).
      ALTER TABLE api_keys ADD COLUMN budget_credits_micro INTEGER;
      ALTER TABLE api_keys ADD COLUMN budget_period TEXT;
      ALTER TABLE api_keys ADD COLUMN expires_at TEXT;
      ALTER TABLE api_keys ADD COLUMN budget_window_start TEXT;
      ALTER TABLE api_keys ADD COLUMN budget_spent_micro INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 22,
    name: 'end-user budgets: an app default and a per-user override (PostgreSQL 10)',
    sql: `
      -- An app may give each of its end users a budget (user_budget_credits_micro per
      -- user_budget_period); a user's own budget_credits_micro / budget_period override it. Each
      -- user (per mode) keeps the start of its current window and what was settled in it, as keys
      -- do (version 21); what requests in flight hold is kept with the holds.
      ALTER TABLE apps ADD COLUMN user_budget_credits_micro INTEGER;
      ALTER TABLE apps ADD COLUMN user_budget_period TEXT;
      ALTER TABLE app_users ADD COLUMN budget_credits_micro INTEGER;
      ALTER TABLE app_users ADD COLUMN budget_period TEXT;
      ALTER TABLE app_users ADD COLUMN budget_window_start TEXT;
      ALTER TABLE app_users ADD COLUMN budget_spent_micro INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 23,
    name: 'usage by mode, with the counts each charge used, and room for route attempts (PostgreSQL 11)',
    sql: `
      -- Live and test usage never meet: a usage row keeps the mode of the key or user that made
      -- it, and each rollup has the mode in its key. Rows written before are live, except those of
      -- test keys and of the users of an app signing in through the sandbox identity provider.
      ALTER TABLE usage_events ADD COLUMN livemode INTEGER NOT NULL DEFAULT 1 CHECK (livemode IN (0, 1));
      UPDATE usage_events SET livemode = 0
        WHERE key_id IN (SELECT key_id FROM api_keys WHERE is_test = 1)
           OR (address IS NOT NULL AND app_uuid IN (SELECT app_uuid FROM apps WHERE substr(idp_app_id, 1, 8) = 'sandbox_'));
      DROP INDEX usage_events_app_time;
      CREATE INDEX usage_events_app_time ON usage_events (app_uuid, livemode, created_at);
      DROP INDEX usage_events_app_address_time;
      CREATE INDEX usage_events_app_address_time ON usage_events (app_uuid, livemode, address, created_at);

      -- Each count the charge used: parts of input_tokens (cache read, cache written for five
      -- minutes, for an hour) and of output_tokens (reasoning).
      ALTER TABLE usage_events ADD COLUMN cache_read_tokens INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE usage_events ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE usage_events ADD COLUMN cache_write_1h_tokens INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE usage_events ADD COLUMN reasoning_tokens INTEGER NOT NULL DEFAULT 0;
      -- The route targets tried before the one that answered: JSON [{model, error_class, latency_ms}].
      ALTER TABLE usage_events ADD COLUMN attempts TEXT;

      -- The rollups again, with the mode in their keys and the cache and reasoning counts summed,
      -- and one more: per user and hour, for the per-user report's hours outside whole days.
      DROP TABLE usage_hourly;
      DROP TABLE usage_hourly_models;
      DROP TABLE usage_daily_users;
      CREATE TABLE usage_hourly (
        app_uuid           TEXT NOT NULL,
        livemode           INTEGER NOT NULL,
        hour               TEXT NOT NULL,
        address            TEXT NOT NULL,
        key_id             TEXT NOT NULL,
        provider           TEXT NOT NULL,
        model              TEXT NOT NULL,
        ${ROLLUP_TOTALS_23}
        PRIMARY KEY (app_uuid, livemode, hour, address, key_id, provider, model)
      ) WITHOUT ROWID;
      CREATE INDEX usage_hourly_user ON usage_hourly (app_uuid, livemode, address, hour);
      CREATE TABLE usage_hourly_models (
        app_uuid           TEXT NOT NULL,
        livemode           INTEGER NOT NULL,
        hour               TEXT NOT NULL,
        provider           TEXT NOT NULL,
        model              TEXT NOT NULL,
        ${ROLLUP_TOTALS_23}
        PRIMARY KEY (app_uuid, livemode, hour, provider, model)
      ) WITHOUT ROWID;
      CREATE TABLE usage_daily_users (
        app_uuid           TEXT NOT NULL,
        livemode           INTEGER NOT NULL,
        day                TEXT NOT NULL,
        address            TEXT NOT NULL,
        ${ROLLUP_TOTALS_23}
        PRIMARY KEY (app_uuid, livemode, day, address)
      ) WITHOUT ROWID;
      CREATE TABLE usage_hourly_users (
        app_uuid           TEXT NOT NULL,
        livemode           INTEGER NOT NULL,
        hour               TEXT NOT NULL,
        address            TEXT NOT NULL,
        ${ROLLUP_TOTALS_23}
        PRIMARY KEY (app_uuid, livemode, hour, address)
      ) WITHOUT ROWID;
      ${backfillUsageRollupsSql}
    `,
  },
  {
    version: 24,
    name: 'one usage row per request: a retried settlement writes nothing twice (PostgreSQL 13)',
    sql: oneUsageRowPerRequestSql,
  },
  {
    version: 25,
    name: 'usage rows reach the rollups in batches: the last row rolled up (PostgreSQL 14)',
    sql: `
      -- One writer commits usage rows in the order of their ids, and none is ever deleted (so no
      -- id is used again): the rows after the mark are exactly those not rolled up yet. Every row
      -- there is now is in the rollups.
      CREATE TABLE usage_rollup_mark (rolled_through INTEGER NOT NULL);
      INSERT INTO usage_rollup_mark (rolled_through) SELECT COALESCE(MAX(id), 0) FROM usage_events;
      CREATE TRIGGER usage_events_no_delete BEFORE DELETE ON usage_events
        BEGIN SELECT RAISE(ABORT, 'usage rows are kept: the rollups count them by id'); END;
    `,
  },
  {
    version: 26,
    name: "a subscription's processor price, and its planned downgrade's (PostgreSQL 15)",
    sql: subscriptionPricesSql,
  },
];
