/**
 * The webhook endpoints' record and their delivery logs in PostgreSQL (webhook_endpoints,
 * webhook_deliveries): the statements, each on a connection the caller holds (inside its transaction,
 * under its account's lock) or on the pool. A log entry's id is its Redis stream entry's, `<ms>-<seq>`.
 */
import type pg from "pg";
import type { EndpointSecret, WebhookEndpointRecord } from "../../domain/customer-webhooks/ports.js";
import type { EndpointHealthState, EntryPosition, LoggedAttempt } from "../webhook-log.js";

type Queryable = Pick<pg.Pool | pg.PoolClient, "query">;
export type PoolClient = pg.PoolClient;

const LOCK_ACCOUNT = "SELECT pg_advisory_xact_lock(hashtextextended('webhooks:' || $1, 0))";
const COLUMNS = "id, created_at, url, event_types, description, secrets, status, disabled_reason, failing_since";
const ENDPOINTS = `SELECT ${COLUMNS} FROM webhook_endpoints WHERE account_id = $1 ORDER BY created_at, id`;
const ENDPOINT = `SELECT ${COLUMNS} FROM webhook_endpoints WHERE account_id = $1 AND id = $2`;
const COUNT = "SELECT count(*)::int AS n FROM webhook_endpoints WHERE account_id = $1";
const INSERT = `
INSERT INTO webhook_endpoints (account_id, ${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
ON CONFLICT (account_id, id) DO NOTHING`;
const DELETE = "DELETE FROM webhook_endpoints WHERE account_id = $1 AND id = $2";
const REPLACE_SECRETS = "UPDATE webhook_endpoints SET secrets = $4 WHERE account_id = $1 AND id = $2 AND secrets = $3::jsonb";
const ENABLE =
  "UPDATE webhook_endpoints SET status = 'enabled', disabled_reason = NULL, failing_since = NULL WHERE account_id = $1 AND id = $2";
const HEALTH = "UPDATE webhook_endpoints SET status = $3, disabled_reason = $4, failing_since = $5 WHERE account_id = $1 AND id = $2";
const INSERT_ATTEMPTS = `
INSERT INTO webhook_deliveries (account_id, endpoint_id, entry_ms, entry_seq, attempt)
SELECT $1, $2, u.ms, u.seq, u.attempt FROM unnest($3::bigint[], $4::bigint[], $5::jsonb[]) AS u(ms, seq, attempt)
ON CONFLICT DO NOTHING`;
// The contract keeps an endpoint's newest 1 000 attempts: those from Redis's oldest when its log is full
// (a range of the primary key), else the newest 1 000 counted (a log that is short, or restarted).
const TRIM_BEFORE = "DELETE FROM webhook_deliveries WHERE account_id = $1 AND endpoint_id = $2 AND (entry_ms, entry_seq) < ($3, $4)";
const TRIM = `
DELETE FROM webhook_deliveries WHERE account_id = $1 AND endpoint_id = $2 AND (entry_ms, entry_seq) < (
  SELECT entry_ms, entry_seq FROM webhook_deliveries WHERE account_id = $1 AND endpoint_id = $2
  ORDER BY entry_ms DESC, entry_seq DESC OFFSET $3 LIMIT 1)`;
const ATTEMPTS = `
SELECT entry_ms::text AS ms, entry_seq::text AS seq, attempt FROM webhook_deliveries
WHERE account_id = $1 AND endpoint_id = $2 AND (entry_ms, entry_seq) < ($3, $4)
ORDER BY entry_ms DESC, entry_seq DESC LIMIT $5`;
const ACCOUNTS = "SELECT DISTINCT account_id FROM webhook_endpoints WHERE account_id > $1 ORDER BY account_id LIMIT $2";

type EndpointRow = {
  id: string;
  created_at: Date;
  url: string;
  event_types: string[];
  description: string | null;
  secrets: EndpointSecret[];
  status: string;
  disabled_reason: string | null;
  failing_since: Date | null;
};

/** Past every log entry: a page without a cursor starts here. */
const LAST_ENTRY: EntryPosition = { ms: "9223372036854775807", seq: "9223372036854775807" };

export const webhookEndpointTable = {
  /** Orders every write of the account's endpoints (and their copying) until the transaction ends. */
  async lockAccount(client: Queryable, accountId: string): Promise<void> {
    await client.query({ name: "hook-lock", text: LOCK_ACCOUNT, values: [accountId] });
  },

  async endpoints(client: Queryable, accountId: string): Promise<WebhookEndpointRecord[]> {
    const { rows } = await client.query<EndpointRow>({ name: "hook-endpoints", text: ENDPOINTS, values: [accountId] });
    return rows.map((row) => toRecord(accountId, row));
  },

  async endpoint(client: Queryable, accountId: string, id: string): Promise<WebhookEndpointRecord | undefined> {
    const { rows } = await client.query<EndpointRow>({ name: "hook-endpoint", text: ENDPOINT, values: [accountId, id] });
    return rows[0] ? toRecord(accountId, rows[0]) : undefined;
  },

  async count(client: Queryable, accountId: string): Promise<number> {
    const { rows } = await client.query<{ n: number }>({ name: "hook-count", text: COUNT, values: [accountId] });
    return rows[0]?.n ?? 0;
  },

  async insert(client: Queryable, e: WebhookEndpointRecord): Promise<void> {
    const values = [e.accountId, e.id, new Date(e.createdAtMs), e.url, e.eventTypes, e.description, JSON.stringify(e.secrets)];
    values.push(e.status, e.disabledReason, e.failingSinceMs === null ? null : new Date(e.failingSinceMs));
    await client.query({ name: "hook-insert", text: INSERT, values });
  },

  async delete(client: Queryable, accountId: string, id: string): Promise<boolean> {
    const { rowCount } = await client.query({ name: "hook-delete", text: DELETE, values: [accountId, id] });
    return (rowCount ?? 0) > 0;
  },

  async replaceSecrets(client: Queryable, accountId: string, id: string, expected: EndpointSecret[], secrets: EndpointSecret[]) {
    const values = [accountId, id, JSON.stringify(expected), JSON.stringify(secrets)];
    const { rowCount } = await client.query({ name: "hook-secrets", text: REPLACE_SECRETS, values });
    return (rowCount ?? 0) > 0;
  },

  async enable(client: Queryable, accountId: string, id: string): Promise<boolean> {
    const { rowCount } = await client.query({ name: "hook-enable", text: ENABLE, values: [accountId, id] });
    return (rowCount ?? 0) > 0;
  },

  /** False when the endpoint is not (or no longer) in the record. */
  async writeHealth(client: Queryable, accountId: string, id: string, health: EndpointHealthState): Promise<boolean> {
    const since = health.failingSinceMs === null ? null : new Date(health.failingSinceMs);
    const values = [accountId, id, health.status, health.disabledReason, since];
    const { rowCount } = await client.query({ name: "hook-health", text: HEALTH, values });
    return (rowCount ?? 0) > 0;
  },

  /** Adds the attempts not logged yet and keeps the newest `keep` (none before `oldestKept`, when given). */
  async appendLog(
    client: Queryable,
    accountId: string,
    id: string,
    entries: readonly LoggedAttempt[],
    keep: number,
    oldestKept?: EntryPosition,
  ): Promise<void> {
    if (entries.length === 0) return;
    const values = [accountId, id, entries.map((e) => e.ms), entries.map((e) => e.seq), entries.map((e) => JSON.stringify(e.attempt))];
    await client.query({ name: "hook-log-append", text: INSERT_ATTEMPTS, values });
    if (oldestKept) {
      await client.query({ name: "hook-log-trim-before", text: TRIM_BEFORE, values: [accountId, id, oldestKept.ms, oldestKept.seq] });
    } else {
      await client.query({ name: "hook-log-trim", text: TRIM, values: [accountId, id, keep - 1] });
    }
  },

  /** The endpoint's attempts newest first, before `before` (or from the newest). */
  async log(client: Queryable, accountId: string, id: string, limit: number, before?: EntryPosition): Promise<LoggedAttempt[]> {
    const at = before ?? LAST_ENTRY;
    const values = [accountId, id, at.ms, at.seq, limit];
    const { rows } = await client.query<LoggedAttempt>({ name: "hook-log", text: ATTEMPTS, values });
    return rows;
  },

  /** Accounts with endpoints, in id order after `after`. */
  async accounts(client: Queryable, after: string, limit: number): Promise<string[]> {
    const { rows } = await client.query<{ account_id: string }>({ name: "hook-accounts", text: ACCOUNTS, values: [after, limit] });
    return rows.map((row) => row.account_id);
  },
};

function toRecord(accountId: string, row: EndpointRow): WebhookEndpointRecord {
  return {
    id: row.id,
    accountId,
    url: row.url,
    eventTypes: row.event_types as WebhookEndpointRecord["eventTypes"],
    description: row.description,
    status: row.status === "disabled" ? "disabled" : "enabled",
    disabledReason: row.disabled_reason as WebhookEndpointRecord["disabledReason"],
    createdAtMs: row.created_at.getTime(),
    secrets: row.secrets,
    failingSinceMs: row.failing_since === null ? null : row.failing_since.getTime(),
  };
}
