import { backfillUsageRollupsSql, backfillUsageRollupsSql15, oneUsageRowPerRequestSql } from '../usage-backfill.js';
import { subscriptionPricesSql } from '../subscription-prices.js';

/**
 * Numbered schema migrations of the PostgreSQL store, applied in order at start under an
 * advisory lock (so instances starting together apply each once); `svc_schema` records the
 * versions applied. A migration is never edited once released: add a new one.
 *
 * Version 1 is the whole schema of SQLite's migrations 1–13, with PostgreSQL's types where they
 * matter (BIGINT money, BOOLEAN flags, sequences that never reuse an id). Times stay RFC 3339 text,
 * as in SQLite: they come from the server's injected clock, not the database's, and compare in
 * order as text. Holds, instances and leases are new: what one SQLite process keeps in memory,
 * several instances must share.
 */
export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}

/** The totals each rollup row keeps, as migration 11 made them. */
const ROLLUP_TOTALS_11 = `requests           BIGINT NOT NULL,
        refused            BIGINT NOT NULL,
        input_tokens       BIGINT NOT NULL,
        output_tokens      BIGINT NOT NULL,
        cache_read_tokens  BIGINT NOT NULL,
        cache_write_tokens BIGINT NOT NULL,
        reasoning_tokens   BIGINT NOT NULL,
        charged_micro      BIGINT NOT NULL,`;

export const pgMigrations: PgMigration[] = [
  {
    version: 1,
    name: 'the schema of SQLite migration 13, holds, instances and leases',
    sql: `
      CREATE TABLE developers (
        id          TEXT PRIMARY KEY,
        name        TEXT NOT NULL,
        created_at  TEXT NOT NULL
      );

      -- Every balance lives in an account; the ledger is the account's history. held_micro is the
      -- sum of the account's rows in holds, kept beside the balance so one UPDATE can check both.
      CREATE TABLE accounts (
        id            BIGSERIAL PRIMARY KEY,
        balance_micro BIGINT NOT NULL DEFAULT 0 CHECK (balance_micro >= 0),
        held_micro    BIGINT NOT NULL DEFAULT 0 CHECK (held_micro >= 0 AND held_micro <= balance_micro),
        test          BOOLEAN NOT NULL DEFAULT false
      );

      CREATE TABLE ledger_entries (
        id                  BIGSERIAL PRIMARY KEY,
        account_id          BIGINT NOT NULL REFERENCES accounts(id),
        amount_micro        BIGINT NOT NULL CHECK (amount_micro <> 0),
        balance_after_micro BIGINT NOT NULL CHECK (balance_after_micro >= 0),
        kind                TEXT NOT NULL,
        idempotency_key     TEXT NOT NULL,
        reference           TEXT,
        created_at          TEXT NOT NULL,
        UNIQUE (idempotency_key, account_id)
      );
      CREATE INDEX ledger_entries_account ON ledger_entries (account_id, id);
      CREATE FUNCTION ledger_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'ledger entries are append-only'; END $$;
      CREATE TRIGGER ledger_entries_no_change BEFORE UPDATE OR DELETE ON ledger_entries
        FOR EACH ROW EXECUTE FUNCTION ledger_entries_append_only();
      -- Entries up to here were written before every credit had to have a source (none, on a new database).
      CREATE TABLE ledger_baseline (last_entry_id BIGINT NOT NULL);
      INSERT INTO ledger_baseline VALUES (0);

      -- What requests in flight have reserved, one row each, owned by the instance serving them:
      -- the holds of an instance that died are released by the others (instances.seen_at).
      -- capped_address: the user of a pooled app the app holds for, within the user's limit.
      CREATE TABLE holds (
        id             BIGSERIAL PRIMARY KEY,
        request_id     TEXT NOT NULL,
        account_id     BIGINT NOT NULL REFERENCES accounts(id),
        amount_micro   BIGINT NOT NULL CHECK (amount_micro > 0),
        instance_id    TEXT NOT NULL,
        capped_address TEXT
      );
      CREATE INDEX holds_request ON holds (request_id);
      CREATE INDEX holds_instance ON holds (instance_id);
      CREATE INDEX holds_capped ON holds (account_id, capped_address) WHERE capped_address IS NOT NULL;

      -- Every running server, with when it last said it was alive.
      CREATE TABLE instances (
        id          TEXT PRIMARY KEY,
        started_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
        seen_at     TIMESTAMPTZ NOT NULL DEFAULT now()
      );

      -- Work that runs on one instance at a time (the billing clock): whoever holds the lease.
      CREATE TABLE leases (
        name        TEXT PRIMARY KEY,
        holder      TEXT NOT NULL,
        expires_at  TIMESTAMPTZ NOT NULL
      );

      CREATE TABLE apps (
        app_uuid                   TEXT PRIMARY KEY,
        developer_id               TEXT NOT NULL REFERENCES developers(id),
        account_id                 BIGINT NOT NULL UNIQUE REFERENCES accounts(id),
        test_account_id            BIGINT REFERENCES accounts(id),
        name                       TEXT NOT NULL,
        app_type                   TEXT NOT NULL CHECK (app_type IN ('standard', 'pooled_api')),
        default_user_credits_micro BIGINT NOT NULL CHECK (default_user_credits_micro >= 0),
        allowed_origins            TEXT NOT NULL DEFAULT '[]',
        idp_app_id                 TEXT,
        idp_verification_key       TEXT,
        idp_updated_at             TEXT,
        rate_limit_rpm             INTEGER CHECK (rate_limit_rpm IS NULL OR rate_limit_rpm > 0),
        rate_limit_tpm             INTEGER CHECK (rate_limit_tpm IS NULL OR rate_limit_tpm > 0),
        user_claims                BOOLEAN NOT NULL DEFAULT true,
        created_at                 TEXT NOT NULL,
        updated_at                 TEXT NOT NULL,
        deleted_at                 TEXT
      );
      CREATE INDEX apps_developer ON apps (developer_id, created_at);
      -- Two developers may name the same identity-provider app; one developer only once.
      CREATE UNIQUE INDEX apps_idp_per_developer ON apps (developer_id, idp_app_id) WHERE idp_app_id IS NOT NULL;
      CREATE INDEX apps_idp ON apps (idp_app_id) WHERE idp_app_id IS NOT NULL;

      CREATE TABLE api_keys (
        key_id       TEXT PRIMARY KEY,
        app_uuid     TEXT NOT NULL REFERENCES apps(app_uuid),
        name         TEXT NOT NULL,
        is_test      BOOLEAN NOT NULL,
        role         TEXT NOT NULL DEFAULT 'inference' CHECK (role IN ('inference', 'read_only', 'admin')),
        prefix       TEXT NOT NULL,
        secret_hash  TEXT NOT NULL UNIQUE,
        created_at   TEXT NOT NULL,
        last_used_at TEXT,
        deleted_at   TEXT
      );
      CREATE FUNCTION api_keys_test_never_admin() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.is_test AND NEW.role = 'admin' THEN RAISE EXCEPTION 'a test key cannot be admin'; END IF;
          RETURN NEW;
        END $$;
      CREATE TRIGGER api_keys_test_never_admin BEFORE INSERT OR UPDATE ON api_keys
        FOR EACH ROW EXECUTE FUNCTION api_keys_test_never_admin();
      CREATE INDEX api_keys_app ON api_keys (app_uuid, created_at);
      CREATE INDEX api_keys_prefix ON api_keys (prefix);

      CREATE TABLE app_users (
        app_uuid           TEXT NOT NULL REFERENCES apps(app_uuid),
        address            TEXT NOT NULL,
        account_id         BIGINT NOT NULL UNIQUE REFERENCES accounts(id),
        test_account_id    BIGINT REFERENCES accounts(id),
        credit_limit_micro BIGINT CHECK (credit_limit_micro IS NULL OR credit_limit_micro >= 0),
        spent_micro        BIGINT NOT NULL DEFAULT 0 CHECK (spent_micro >= 0),
        created_at         TEXT NOT NULL,
        PRIMARY KEY (app_uuid, address)
      );

      -- The operator's own accounts: promotions pays developers' claims; it starts empty.
      CREATE TABLE operator_accounts (
        name        TEXT PRIMARY KEY,
        account_id  BIGINT NOT NULL UNIQUE REFERENCES accounts(id)
      );
      WITH opened AS (INSERT INTO accounts DEFAULT VALUES RETURNING id)
        INSERT INTO operator_accounts (name, account_id) SELECT 'promotions', id FROM opened;

      CREATE TABLE usage_events (
        id             BIGSERIAL PRIMARY KEY,
        request_id     TEXT NOT NULL,
        app_uuid       TEXT NOT NULL,
        key_id         TEXT,
        address        TEXT,
        provider       TEXT NOT NULL,
        model          TEXT NOT NULL,
        operation      TEXT NOT NULL,
        input_tokens   BIGINT NOT NULL DEFAULT 0,
        output_tokens  BIGINT NOT NULL DEFAULT 0,
        cost_micro     BIGINT NOT NULL DEFAULT 0,
        charged_micro  BIGINT,
        latency_ms     BIGINT NOT NULL,
        ttft_ms        BIGINT,
        status         TEXT NOT NULL,
        error_code     TEXT,
        created_at     TEXT NOT NULL
      );
      CREATE INDEX usage_events_app_time ON usage_events (app_uuid, created_at);
      CREATE INDEX usage_events_app_address_time ON usage_events (app_uuid, address, created_at);

      -- Responses, kept for a bounded time; instance_id is who runs one still queued or running.
      CREATE TABLE responses (
        id          TEXT PRIMARY KEY,
        app_uuid    TEXT NOT NULL,
        address     TEXT,
        status      TEXT NOT NULL,
        body        TEXT NOT NULL,
        input       TEXT,
        upstream_id TEXT,
        instance_id TEXT,
        created_at  TEXT NOT NULL,
        expires_at  TEXT NOT NULL
      );
      CREATE INDEX responses_expiry ON responses (expires_at);
      CREATE INDEX responses_active ON responses (instance_id) WHERE status IN ('queued', 'in_progress');

      CREATE TABLE text_registrations (
        channel          TEXT NOT NULL CHECK (channel IN ('sms', 'messenger')),
        identifier       TEXT NOT NULL,
        app_uuid         TEXT NOT NULL,
        owner            TEXT NOT NULL,
        preferred_model  TEXT,
        created_at       TEXT NOT NULL,
        updated_at       TEXT NOT NULL,
        PRIMARY KEY (channel, app_uuid, identifier),
        UNIQUE (channel, app_uuid, owner)
      );

      CREATE TABLE signing_keys (
        kid          TEXT PRIMARY KEY,
        algorithm    TEXT NOT NULL,
        public_jwk   TEXT NOT NULL,
        private_jwk  TEXT NOT NULL,
        created_at   TEXT NOT NULL
      );

      CREATE TABLE checkout_sessions (
        id               TEXT PRIMARY KEY,
        kind             TEXT NOT NULL CHECK (kind IN ('credit_pack', 'app_funding', 'subscription')),
        developer_id     TEXT NOT NULL,
        app_uuid         TEXT NOT NULL,
        address          TEXT,
        credits_micro    BIGINT NOT NULL CHECK (credits_micro > 0),
        amount_usd_cents BIGINT NOT NULL CHECK (amount_usd_cents > 0),
        description      TEXT NOT NULL,
        status           TEXT NOT NULL CHECK (status IN ('open', 'complete', 'expired')),
        success_url      TEXT,
        cancel_url       TEXT,
        referral         TEXT,
        price_id         TEXT,
        livemode         BOOLEAN NOT NULL DEFAULT true,
        created_at       TEXT NOT NULL,
        paid_at          TEXT,
        expires_at       TEXT NOT NULL
      );
      CREATE INDEX checkout_sessions_developer ON checkout_sessions (developer_id, created_at);
      CREATE TABLE webhook_events (
        id           TEXT PRIMARY KEY,
        type         TEXT NOT NULL,
        received_at  TEXT NOT NULL
      );

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
        cancel_at_period_end BOOLEAN NOT NULL DEFAULT false,
        scheduled_tier       TEXT CHECK (scheduled_tier IN ('starter', 'pro')),
        scheduled_interval   TEXT CHECK (scheduled_interval IN ('month', 'year')),
        state_version        BIGINT NOT NULL,
        livemode             BOOLEAN NOT NULL DEFAULT true,
        created_at           TEXT NOT NULL,
        updated_at           TEXT NOT NULL
      );
      CREATE UNIQUE INDEX subscriptions_one_active ON subscriptions (app_uuid, address) WHERE status = 'active';
      CREATE INDEX subscriptions_subject ON subscriptions (app_uuid, address, created_at);
      CREATE INDEX subscriptions_due ON subscriptions (current_period_end) WHERE status = 'active';

      CREATE TABLE subscription_invoices (
        id               TEXT PRIMARY KEY,
        subscription_id  TEXT NOT NULL,
        developer_id     TEXT NOT NULL,
        amount_usd_cents BIGINT NOT NULL CHECK (amount_usd_cents >= 0),
        credits_micro    BIGINT NOT NULL CHECK (credits_micro >= 0),
        description      TEXT NOT NULL,
        paid_at          TEXT NOT NULL
      );
      CREATE INDEX subscription_invoices_developer ON subscription_invoices (developer_id, paid_at);

      CREATE TABLE portal_sessions (
        id              TEXT PRIMARY KEY,
        subscription_id TEXT NOT NULL,
        return_url      TEXT,
        expires_at      TEXT NOT NULL
      );

      -- Rate-limit counters in fixed one-minute windows, shared by every instance.
      CREATE TABLE rate_counters (
        key           TEXT NOT NULL,
        window_start  BIGINT NOT NULL,
        total         BIGINT NOT NULL,
        PRIMARY KEY (key, window_start)
      );
    `,
  },
  {
    version: 2,
    name: 'live and test mode: every object a key or a user can reach carries its mode (SQLite migration 14)',
    sql: `
      -- Rows written before modes were kept: live, except what only test mode can have made — the
      -- users of an app signing in through the sandbox identity provider (and what they own).
      CREATE TEMP TABLE sandbox_apps ON COMMIT DROP AS
        SELECT app_uuid FROM apps WHERE substr(idp_app_id, 1, 8) = 'sandbox_';

      -- Responses (kept 24 hours): a test key's cannot be told from a live key's, a sandbox user's can.
      ALTER TABLE responses ADD COLUMN livemode BOOLEAN NOT NULL DEFAULT true;
      UPDATE responses SET livemode = false WHERE address IS NOT NULL AND app_uuid IN (SELECT app_uuid FROM sandbox_apps);

      -- A test and a live registration of one identifier are two objects: the mode is in the key.
      ALTER TABLE text_registrations ADD COLUMN livemode BOOLEAN NOT NULL DEFAULT true;
      UPDATE text_registrations SET livemode = false WHERE owner LIKE 'user:%' AND app_uuid IN (SELECT app_uuid FROM sandbox_apps);
      ALTER TABLE text_registrations ALTER COLUMN livemode DROP DEFAULT,
        DROP CONSTRAINT text_registrations_pkey, ADD PRIMARY KEY (channel, app_uuid, livemode, identifier),
        DROP CONSTRAINT text_registrations_channel_app_uuid_owner_key, ADD UNIQUE (channel, app_uuid, livemode, owner);

      -- A user is a user of one mode, with one account of that mode: a sandbox user and a live
      -- user of the same address are two users (a live one no longer finds a sandbox one's row and
      -- goes without its default credits). A test balance kept beside a live user becomes a test
      -- user; the live row a sandbox sign-in made beside it, never used live (no ledger entry, no
      -- spend), goes: it was a test user showing in live mode.
      ALTER TABLE app_users ADD COLUMN livemode BOOLEAN NOT NULL DEFAULT true, DROP CONSTRAINT app_users_pkey;
      INSERT INTO app_users (app_uuid, livemode, address, account_id, credit_limit_micro, spent_micro, created_at)
        SELECT app_uuid, false, address, test_account_id, credit_limit_micro, 0, created_at FROM app_users WHERE test_account_id IS NOT NULL;
      DELETE FROM app_users u WHERE u.livemode AND u.test_account_id IS NOT NULL AND u.spent_micro = 0
        AND NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.account_id = u.account_id);
      ALTER TABLE app_users ALTER COLUMN livemode DROP DEFAULT, DROP COLUMN test_account_id,
        ADD PRIMARY KEY (app_uuid, livemode, address);

      -- One active subscription per subject and mode (the name stays: a conflict is told by it).
      DROP INDEX subscriptions_one_active;
      CREATE UNIQUE INDEX subscriptions_one_active ON subscriptions (app_uuid, address, livemode) WHERE status = 'active';
    `,
  },
  {
    version: 3,
    name: 'usage rollups, which the usage reports read (SQLite 15)',
    sql: `
      -- Added to by the statement that writes each usage row (usage.ts): a report reads its
      -- whole days and hours here and only its partial edge hours from usage_events
      -- (usage-window.ts). '' stands for no address (API-key requests) and no key. Hours and days
      -- compare as bytes, as the times do.
      CREATE TABLE usage_hourly (
        app_uuid       TEXT NOT NULL,
        hour           TEXT COLLATE "C" NOT NULL,
        address        TEXT NOT NULL,
        key_id         TEXT NOT NULL,
        provider       TEXT NOT NULL,
        model          TEXT NOT NULL,
        requests       BIGINT NOT NULL,
        refused        BIGINT NOT NULL,
        input_tokens   BIGINT NOT NULL,
        output_tokens  BIGINT NOT NULL,
        charged_micro  BIGINT NOT NULL,
        PRIMARY KEY (app_uuid, hour, address, key_id, provider, model)
      );
      CREATE INDEX usage_hourly_user ON usage_hourly (app_uuid, address, hour);
      CREATE TABLE usage_hourly_models (
        app_uuid       TEXT NOT NULL,
        hour           TEXT COLLATE "C" NOT NULL,
        provider       TEXT NOT NULL,
        model          TEXT NOT NULL,
        requests       BIGINT NOT NULL,
        refused        BIGINT NOT NULL,
        input_tokens   BIGINT NOT NULL,
        output_tokens  BIGINT NOT NULL,
        charged_micro  BIGINT NOT NULL,
        PRIMARY KEY (app_uuid, hour, provider, model)
      );
      CREATE TABLE usage_daily_users (
        app_uuid       TEXT NOT NULL,
        day            TEXT COLLATE "C" NOT NULL,
        address        TEXT NOT NULL,
        requests       BIGINT NOT NULL,
        refused        BIGINT NOT NULL,
        input_tokens   BIGINT NOT NULL,
        output_tokens  BIGINT NOT NULL,
        charged_micro  BIGINT NOT NULL,
        PRIMARY KEY (app_uuid, day, address)
      );
      ${backfillUsageRollupsSql15}
      -- svc serve --check lists the shortfalls: a few rows, found without reading every usage row.
      CREATE INDEX usage_events_shortfall ON usage_events (id) WHERE charged_micro < cost_micro;
    `,
  },
  {
    version: 4,
    name: "upgrade grants tied to their charges; the sandbox processor's test cards (SQLite 16)",
    sql: `
      -- From here on an upgrade's credits are granted only with its paid charge (a subscription
      -- invoice, which the grant names). Upgrade grants up to here were made before their payment
      -- was confirmed and name no charge: the conservation check does not look for one behind them.
      CREATE TABLE upgrade_grant_baseline (last_entry_id BIGINT NOT NULL);
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
    version: 5,
    name: 'the order in which apps took their identity-provider ids (SQLite 17)',
    sql: `
      -- Several developers may hold the same idp_app_id. A token that names no app resolves to the
      -- holder that took the id first, so a later copy never moves another app's users. The
      -- number is kept while the app keeps the id (a new key included) and cleared with its
      -- configuration; a sequence orders takings across instances whatever their clocks say.
      ALTER TABLE apps ADD COLUMN idp_order BIGINT;
      CREATE SEQUENCE apps_idp_order;
      -- Apps configured before this: the best record of when is idp_updated_at.
      UPDATE apps SET idp_order = ranked.n
        FROM (SELECT app_uuid, ROW_NUMBER() OVER (
                ORDER BY idp_updated_at COLLATE "C", created_at COLLATE "C", app_uuid COLLATE "C") AS n
              FROM apps WHERE idp_app_id IS NOT NULL) AS ranked
        WHERE ranked.app_uuid = apps.app_uuid;
      SELECT setval('apps_idp_order', COALESCE((SELECT MAX(idp_order) FROM apps), 0) + 1, false);
    `,
  },
  {
    version: 8,
    name: 'the events of background responses streamed as they ran (SQLite 20)',
    sql: `
      -- A background response created with stream: true keeps its events, written as it runs, so
      -- that GET /responses/{id}?stream=true&starting_after=N can replay them (OpenAI's resume),
      -- through any instance. They go with their response (deleted or expired).
      CREATE TABLE response_events (
        response_id     TEXT NOT NULL,
        sequence_number INTEGER NOT NULL,
        event           TEXT NOT NULL,
        data            TEXT NOT NULL,
        PRIMARY KEY (response_id, sequence_number)
      );
    `,
  },
  {
    version: 9,
    name: 'key budgets and expiry (SQLite 21)',
    sql: `
      -- A key may spend budget_credits_micro per budget_period (day, week, month in UTC, or a
      -- duration such as 7d), and stops working at expires_at. The current window's start and
      -- what was settled in it are kept with the key; what requests in flight hold for a key is
      -- the sum of its rows in holds, so holds released for a dead instance stop counting too.
      ALTER TABLE api_keys ADD COLUMN budget_credits_micro BIGINT;
      ALTER TABLE api_keys ADD COLUMN budget_period TEXT;
      ALTER TABLE api_keys ADD COLUMN expires_at TEXT;
      ALTER TABLE api_keys ADD COLUMN budget_window_start TEXT;
      ALTER TABLE api_keys ADD COLUMN budget_spent_micro BIGINT NOT NULL DEFAULT 0;
      ALTER TABLE holds ADD COLUMN key_id TEXT;
      CREATE INDEX holds_key ON holds (key_id) WHERE key_id IS NOT NULL;
    `,
  },
  {
    version: 10,
    name: 'end-user budgets: an app default and a per-user override (SQLite 22)',
    sql: `
      -- An app may give each of its end users a budget (user_budget_credits_micro per
      -- user_budget_period); a user's own budget_credits_micro / budget_period override it. Each
      -- user (per mode) keeps the start of its current window and what was settled in it, as keys
      -- do (version 9); what requests in flight hold for a user is the sum of its rows in holds.
      ALTER TABLE apps ADD COLUMN user_budget_credits_micro BIGINT;
      ALTER TABLE apps ADD COLUMN user_budget_period TEXT;
      ALTER TABLE app_users ADD COLUMN budget_credits_micro BIGINT;
      ALTER TABLE app_users ADD COLUMN budget_period TEXT;
      ALTER TABLE app_users ADD COLUMN budget_window_start TEXT;
      ALTER TABLE app_users ADD COLUMN budget_spent_micro BIGINT NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 11,
    name: 'usage by mode, with the counts each charge used, and room for route attempts (SQLite 23)',
    sql: `
      -- Live and test usage never meet: a usage row keeps the mode of the key or user that made
      -- it, and each rollup has the mode in its key. Rows written before are live, except those of
      -- test keys and of the users of an app signing in through the sandbox identity provider.
      ALTER TABLE usage_events ADD COLUMN livemode BOOLEAN NOT NULL DEFAULT true;
      UPDATE usage_events SET livemode = false
        WHERE key_id IN (SELECT key_id FROM api_keys WHERE is_test)
           OR (address IS NOT NULL AND app_uuid IN (SELECT app_uuid FROM apps WHERE substr(idp_app_id, 1, 8) = 'sandbox_'));
      DROP INDEX usage_events_app_time;
      CREATE INDEX usage_events_app_time ON usage_events (app_uuid, livemode, created_at);
      DROP INDEX usage_events_app_address_time;
      CREATE INDEX usage_events_app_address_time ON usage_events (app_uuid, livemode, address, created_at);

      -- Each count the charge used: parts of input_tokens (cache read, cache written for five
      -- minutes, for an hour) and of output_tokens (reasoning).
      ALTER TABLE usage_events ADD COLUMN cache_read_tokens BIGINT NOT NULL DEFAULT 0,
        ADD COLUMN cache_write_tokens BIGINT NOT NULL DEFAULT 0,
        ADD COLUMN cache_write_1h_tokens BIGINT NOT NULL DEFAULT 0,
        ADD COLUMN reasoning_tokens BIGINT NOT NULL DEFAULT 0,
        -- The route targets tried before the one that answered: JSON [{model, error_class, latency_ms}].
        ADD COLUMN attempts TEXT;

      -- The rollups again, with the mode in their keys and the cache and reasoning counts summed,
      -- and one more: per user and hour, for the per-user report's hours outside whole days.
      DROP TABLE usage_hourly, usage_hourly_models, usage_daily_users;
      CREATE TABLE usage_hourly (
        app_uuid           TEXT NOT NULL,
        livemode           BOOLEAN NOT NULL,
        hour               TEXT COLLATE "C" NOT NULL,
        address            TEXT NOT NULL,
        key_id             TEXT NOT NULL,
        provider           TEXT NOT NULL,
        model              TEXT NOT NULL,
        ${ROLLUP_TOTALS_11}
        PRIMARY KEY (app_uuid, livemode, hour, address, key_id, provider, model)
      );
      CREATE INDEX usage_hourly_user ON usage_hourly (app_uuid, livemode, address, hour);
      CREATE TABLE usage_hourly_models (
        app_uuid           TEXT NOT NULL,
        livemode           BOOLEAN NOT NULL,
        hour               TEXT COLLATE "C" NOT NULL,
        provider           TEXT NOT NULL,
        model              TEXT NOT NULL,
        ${ROLLUP_TOTALS_11}
        PRIMARY KEY (app_uuid, livemode, hour, provider, model)
      );
      CREATE TABLE usage_daily_users (
        app_uuid           TEXT NOT NULL,
        livemode           BOOLEAN NOT NULL,
        day                TEXT COLLATE "C" NOT NULL,
        address            TEXT NOT NULL,
        ${ROLLUP_TOTALS_11}
        PRIMARY KEY (app_uuid, livemode, day, address)
      );
      CREATE TABLE usage_hourly_users (
        app_uuid           TEXT NOT NULL,
        livemode           BOOLEAN NOT NULL,
        hour               TEXT COLLATE "C" NOT NULL,
        address            TEXT NOT NULL,
        ${ROLLUP_TOTALS_11}
        PRIMARY KEY (app_uuid, livemode, hour, address)
      );
      ${backfillUsageRollupsSql}
    `,
  },
  {
    version: 12,
    name: 'circuit breakers of route targets, shared by every instance',
    sql: `
      -- One row per target (<provider>/<model>): its state, the failures of the current window,
      -- and since when it is open (or probing). Times are the injected clock's epoch milliseconds.
      CREATE TABLE breakers (
        target          TEXT PRIMARY KEY,
        state           TEXT NOT NULL CHECK (state IN ('closed', 'open', 'half_open')),
        failures        INTEGER NOT NULL,
        window_start_ms BIGINT NOT NULL,
        since_ms        BIGINT NOT NULL
      );
    `,
  },
  {
    version: 13,
    name: 'one usage row per request: a retried settlement writes nothing twice (SQLite 24)',
    sql: oneUsageRowPerRequestSql,
  },
  {
    version: 14,
    name: 'usage rows reach the rollups in batches: the ids of those not rolled up yet (SQLite 25)',
    // Listed, not marked as SQLite's are: ids several instances take do not follow their commits.
    sql: `CREATE TABLE usage_pending (id BIGINT PRIMARY KEY);`,
  },
  {
    version: 15,
    name: "a subscription's processor price, and its planned downgrade's (SQLite 26)",
    sql: subscriptionPricesSql,
  },
];
