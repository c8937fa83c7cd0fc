/**
 * All configuration comes from the environment and is parsed here, once, at start, including the API key
 * and digital human files it names. A bad value stops the start with one line that names the variable,
 * so an operator sees the mistake rather than a stack. Development runs on embedded defaults (in-memory
 * store, LiveKit's `--dev` credentials, a published development key); production refuses each of them.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { modeValues, scopeValues } from "@dhs/contract";
import type { AccountRecord } from "./domain/accounts/account-limits.js";
import { ACCOUNT_ID_PATTERN, type ApiKeyRecord, isMode, KEY_ID_PATTERN } from "./domain/accounts/api-keys.js";
import type { DigitalHuman } from "./domain/digital-humans/digital-human-catalog.js";

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

export type LogLevel = (typeof VARIABLES.LOG_LEVEL.values)[number];

const EMBEDDED = {
  apiKeysFile: fileURLToPath(new URL("../config/dev-api-keys.json", import.meta.url)),
  digitalHumansFile: fileURLToPath(new URL("../config/digital-humans.json", import.meta.url)),
};

/**
 * Every environment variable the service reads, with its default, what it accepts and what it does: the
 * parsers below take their defaults and bounds from here, and the README's configuration reference is
 * generated from it (`pnpm --filter @dhs/server docs:config`; `pnpm lint` fails when it is stale).
 * `dev` shows a development default that production refuses; `derived`, a default computed at start.
 */
export const VARIABLES = {
  NODE_ENV: { kind: "text", default: "development", description: "`production` refuses every default marked *dev*." },
  PORT: { kind: "integer", default: 8080, min: 0, max: 65535, description: "Port to listen on (`0`: any free port)." },
  HOST: { kind: "text", default: "0.0.0.0", description: "Address to listen on." },
  METRICS_PORT: {
    kind: "integer",
    default: 9464,
    min: 0,
    max: 65535,
    description:
      "Port of the Prometheus `GET /metrics` endpoint, served apart from the API so it never reaches the public ingress (`0`: any free port; the port is logged at start).",
  },
  HEADERS_TIMEOUT_S: {
    kind: "integer",
    default: 10,
    min: 1,
    max: 300,
    description: "A request whose headers have not all arrived by then is answered `408` and its connection closed.",
  },
  REQUEST_TIMEOUT_S: {
    kind: "integer",
    default: 30,
    min: 1,
    max: 3_600,
    description:
      "A request (headers and body) that has not all arrived by then is answered `408` and its connection closed; at least `HEADERS_TIMEOUT_S`.",
  },
  MAX_CONNECTIONS: {
    kind: "integer",
    default: 10_000,
    min: 1,
    max: 1_000_000,
    description:
      "Open connections one process accepts; beyond it new ones are closed at accept. Keep it below the process's open-file limit (`ulimit -n`) less a few hundred for Redis, LiveKit and logs.",
  },
  LOG_LEVEL: {
    kind: "choice",
    default: "info",
    values: ["fatal", "error", "warn", "info", "debug", "trace", "silent"],
    description: "pino level; logs are JSON lines, one per request (request id, route, status, duration), never a key or token.",
  },
  SHUTDOWN_GRACE_MS: {
    kind: "integer",
    default: 10_000,
    min: 0,
    max: 600_000,
    description: "How long SIGTERM waits for requests in flight before closing their connections.",
  },
  REDIS_URL: {
    kind: "url",
    default: undefined,
    dev: "in-memory store",
    protocols: ["redis:", "rediss:"],
    description:
      "Redis for sessions, idempotency records, timers and rate limits. With `REDIS_MODE=cluster`, a comma-separated list of seed nodes.",
  },
  REDIS_MODE: {
    kind: "choice",
    default: "standalone",
    values: ["standalone", "cluster"],
    description: "`cluster` for a Redis Cluster (sessions spread over 32 shards, each in one hash slot; see *Redis keys*).",
  },
  REDIS_KEY_PREFIX: {
    kind: "text",
    default: "dhs",
    description: "Prefix of every Redis key (1-32 of `A-Z a-z 0-9 _ . : -`), so deployments or test runs can share one Redis.",
  },
  REDIS_COMMAND_TIMEOUT_MS: {
    kind: "integer",
    default: 500,
    min: 50,
    max: 10_000,
    description: "A Redis command not answered by then fails its request with `503`.",
  },
  LIVEKIT_URL: {
    kind: "url",
    default: "ws://localhost:7880",
    dev: "`ws://localhost:7880`",
    protocols: ["ws:", "wss:", "http:", "https:"],
    description: "LiveKit's address as browsers reach it, returned as `rtc_url`.",
  },
  LIVEKIT_API_URL: {
    kind: "url",
    default: undefined,
    derived: "`LIVEKIT_URL` over http(s)",
    protocols: ["http:", "https:"],
    description: "Where this service calls LiveKit's API, when not at `LIVEKIT_URL` (a private address, say).",
  },
  LIVEKIT_API_KEY: {
    kind: "text",
    default: "devkey",
    dev: "`devkey`",
    description: "LiveKit API key: rooms, participant tokens, webhook verification.",
  },
  LIVEKIT_API_SECRET: { kind: "text", default: "secret", dev: "`secret`", description: "LiveKit API secret." },
  LIVEKIT_TIMEOUT_MS: {
    kind: "integer",
    default: 800,
    min: 50,
    max: 30_000,
    description: "A LiveKit call not answered by then fails its request with `503`.",
  },
  LIVEKIT_WEBHOOK_DEDUPE_S: {
    kind: "integer",
    default: 3600,
    min: 60,
    max: 86_400,
    description:
      "How long a LiveKit event's id is remembered, so that LiveKit's redelivery of it changes nothing (LiveKit retries a webhook for minutes).",
  },
  API_KEYS_FILE: {
    kind: "file",
    default: undefined,
    dev: "`config/dev-api-keys.json`",
    description:
      "JSON file of API keys (ids, accounts, scopes, SHA-256 of the secret; made with `create-api-key`) and optional per-account limits. Reloaded on SIGHUP and when it changes: a revoked key is refused within seconds.",
  },
  DIGITAL_HUMANS_FILE: {
    kind: "file",
    default: undefined,
    derived: "`config/digital-humans.json` (Ava)",
    description:
      '`{"digital_humans":[{"id":"<uuid>","name":"Ava","agent_name":"ava","description":"...","accounts":["acct_1"]}]}`; `description`, `accounts` (who may use it; everyone when absent) and `modes` (`["live"]`, `["test"]` or both, the default: which keys\' sessions get it) are optional; the first an account may use in a mode is its default there.',
  },
  ACCOUNT_MAX_OPEN_SESSIONS: {
    kind: "integer",
    default: 20,
    min: 1,
    max: 100_000,
    description:
      'Sessions an account may have open (`created` or `active`) at once; beyond it a create is answered `429 concurrency_limit_exceeded`. Per account in the API keys file: `"accounts": [{"id": "acct_1", "max_open_sessions": 50}]`.',
  },
  TEST_MAX_OPEN_SESSIONS: {
    kind: "integer",
    default: 5,
    min: 1,
    max: 100_000,
    description:
      "Sessions an account's test keys may have open at once (their own, apart from the live ones); beyond it a test create is answered `429 concurrency_limit_exceeded`.",
  },
  PARTICIPANT_TOKEN_TTL_S: { kind: "integer", default: 600, min: 30, max: 86_400, description: "Lifetime of a participant token." },
  SESSION_JOIN_TIMEOUT_S: {
    kind: "integer",
    default: 600,
    min: 1,
    max: 86_400,
    description: "A session nobody joined by then is cancelled and its room deleted.",
  },
  DIGITAL_HUMAN_JOIN_TIMEOUT_S: {
    kind: "integer",
    default: 60,
    min: 1,
    max: 3_600,
    description: "An active session whose digital human has not joined by then fails.",
  },
  DIGITAL_HUMAN_REDISPATCH_S: {
    kind: "integer",
    default: 5,
    min: 1,
    max: 300,
    description:
      "While a session's digital human is absent (not joined yet, or left), LiveKit is asked this long after, then with backoff up to every 60 s, whether it still has a live job for it; if not, the agent is dispatched again.",
  },
  SESSION_DEPARTURE_TIMEOUT_S: {
    kind: "integer",
    default: 30,
    min: 1,
    max: 3_600,
    description:
      "An active session whose participant left and did not come back (same identity) by then is completed (`participant_left`) and its room deleted, releasing the digital human.",
  },
  SESSION_MAX_DURATION_S: {
    kind: "integer",
    default: 1800,
    min: 1,
    max: 86_400,
    description: "An active session is completed this long after it started.",
  },
  TEST_SESSION_MAX_DURATION_S: {
    kind: "integer",
    default: 300,
    min: 1,
    max: 86_400,
    description:
      "A test session (made with a test key) is completed this long after it started, or at SESSION_MAX_DURATION_S if that is shorter.",
  },
  TRANSCRIPT_GRACE_S: {
    kind: "integer",
    default: 60,
    min: 1,
    max: 3600,
    description:
      "How long after its session ended a transcript still takes the digital human's segments, unless it said `final` first; then the transcript is complete and `session.transcript_ready` is sent.",
  },
  SESSION_RETENTION_S: {
    kind: "integer",
    default: 30 * 86_400,
    min: 60,
    max: 400 * 86_400,
    description:
      "How long a session is kept after it ends (readable and listed); then it expires from Redis by itself, with no timer or sweep. At least `IDEMPOTENCY_KEY_TTL_S`.",
  },
  IDEMPOTENCY_KEY_TTL_S: {
    kind: "integer",
    default: 86_400,
    min: 60,
    max: 30 * 86_400,
    description: "How long an `Idempotency-Key` is remembered.",
  },
  IDEMPOTENCY_LOCK_TTL_S: {
    kind: "integer",
    default: 10,
    min: 1,
    max: 300,
    description: "How long a create that died can hold its key; must exceed `LIVEKIT_TIMEOUT_MS` plus two `REDIS_COMMAND_TIMEOUT_MS`.",
  },
  SWEEP_INTERVAL_MS: {
    kind: "integer",
    default: 1000,
    min: 50,
    max: 60_000,
    description:
      "How often each replica looks for due session timers and customer webhook deliveries; the delivery queue is reconciled every 30 of these.",
  },
  ROOM_RECONCILE_INTERVAL_S: {
    kind: "integer",
    default: 60,
    min: 1,
    max: 3600,
    description:
      "How often one replica lists LiveKit's rooms of this deployment and deletes those whose session is terminal, or missing once the room is older than twice `IDEMPOTENCY_LOCK_TTL_S` and 60 s (a CreateRoom that timed out but happened, for a create nobody retried).",
  },
  RATE_LIMIT_ENABLED: {
    kind: "boolean",
    default: true,
    description: "Per-API-key rate limits (rate-limiter-flexible, on Redis or in memory).",
  },
  RATE_LIMIT_PER_SECOND: { kind: "integer", default: 100, min: 1, max: 1_000_000, description: "Steady requests per second per key." },
  RATE_LIMIT_BURST: {
    kind: "integer",
    default: 200,
    min: 1,
    max: 1_000_000,
    description: "Requests a key may make at once (at least `RATE_LIMIT_PER_SECOND`); the allowance refills over 10 s.",
  },
  WEBHOOK_RETRY_DELAYS_S: {
    kind: "text",
    default: "5,300,1800,7200,18000,36000,36000",
    description:
      "Customer webhooks: seconds between attempts after the first (which is at once), comma-separated, 1 to 20 delays of 1 s to 1 day; each varies by up to 20%. The default is Standard Webhooks' schedule.",
  },
  WEBHOOK_ATTEMPT_TIMEOUT_S: {
    kind: "integer",
    default: 10,
    min: 1,
    max: 60,
    description: "Customer webhooks: an attempt that has not been answered in full by then fails (`timeout`).",
  },
  WEBHOOK_CONCURRENCY: {
    kind: "integer",
    default: 50,
    min: 1,
    max: 10_000,
    description: "Customer webhooks: attempts in flight per replica; one endpoint gets at most a quarter of them.",
  },
  WEBHOOK_DISABLE_AFTER_S: {
    kind: "integer",
    default: 5 * 86_400,
    min: 1,
    max: 30 * 86_400,
    description: "Customer webhooks: an endpoint whose every attempt failed for this long is disabled (`failing`).",
  },
  WEBHOOK_ALLOW_PRIVATE_URLS: {
    kind: "boolean",
    default: false,
    description:
      "Customer webhooks: allow endpoints on loopback, private and other internal addresses (tests, local development); refused in production. Plain `http` endpoints are accepted outside production only.",
  },
  VALIDATE_RESPONSES: {
    kind: "boolean",
    default: false,
    description: "Check every response against the contract (the tests do; costs CPU).",
  },
} as const satisfies Record<string, Variable>;

export type Variable =
  | { kind: "text" | "file"; default: string | undefined; dev?: string; derived?: string; description: string }
  | { kind: "url"; default: string | undefined; dev?: string; derived?: string; protocols: readonly string[]; description: string }
  | { kind: "integer"; default: number; min: number; max: number; description: string }
  | { kind: "boolean"; default: boolean; description: string }
  | { kind: "choice"; default: string; values: readonly string[]; description: string };

/** What `livekit-server --dev` uses; fine on a laptop, refused in production. */
export const LIVEKIT_DEV = {
  url: VARIABLES.LIVEKIT_URL.default,
  apiKey: VARIABLES.LIVEKIT_API_KEY.default,
  apiSecret: VARIABLES.LIVEKIT_API_SECRET.default,
} as const;

type Name = keyof typeof VARIABLES;
type NameOf<K extends Variable["kind"]> = { [N in Name]: (typeof VARIABLES)[N]["kind"] extends K ? N : never }[Name];

export interface Config {
  nodeEnv: string;
  production: boolean;
  port: number;
  host: string;
  metricsPort: number;
  /** Bounds on slow or idle clients, per process. */
  connections: { headersTimeoutMs: number; requestTimeoutMs: number; maxConnections: number };
  logLevel: LogLevel;
  /** How long SIGTERM waits for in-flight requests before closing them. */
  shutdownGraceMs: number;
  /** Undefined: the in-memory store (development only). */
  redisUrl: string | undefined;
  /** standalone: REDIS_URL is one server; cluster: REDIS_URL lists one or more seed nodes of a Redis Cluster. */
  redisMode: RedisMode;
  redisCommandTimeoutMs: number;
  /** Prefix of every Redis key, so deployments can share one Redis. */
  redisKeyPrefix: string;
  livekit: {
    /** Returned to callers as rtc_url. */
    url: string;
    apiUrl: string;
    apiKey: string;
    apiSecret: string;
    timeoutMs: number;
    /** How long a LiveKit event id is remembered (s). */
    webhookDedupeS: number;
  };
  /**
   * `allowNoKeys`: the file says `"allow_no_keys": true`, so a reload may take every key away (without
   * it, a reload to an empty list is refused as the slip it almost always is).
   */
  apiKeys: { file: string; records: ApiKeyRecord[]; accounts: AccountRecord[]; allowNoKeys: boolean };
  digitalHumans: { file: string; entries: [DigitalHuman, ...DigitalHuman[]] };
  /** Open sessions an account may have unless the keys file names another number for it. */
  accountMaxOpenSessions: number;
  /** Open sessions an account's test keys may have (test data is apart from live data). */
  testMaxOpenSessions: number;
  participantTokenTtlS: number;
  sessionJoinTimeoutS: number;
  digitalHumanJoinTimeoutS: number;
  sessionMaxDurationS: number;
  testSessionMaxDurationS: number;
  sessionDepartureTimeoutS: number;
  digitalHumanRedispatchS: number;
  sessionRetentionS: number;
  transcriptGraceS: number;
  idempotencyKeyTtlS: number;
  idempotencyLockTtlS: number;
  /** Per-API-key limits; enabled unless RATE_LIMIT_ENABLED=false. */
  rateLimit: { enabled: boolean; perSecond: number; burst: number };
  /** How often each replica looks for due session timers. */
  sweepIntervalMs: number;
  roomReconcileIntervalMs: number;
  /** Check every response against the contract (tests; costs CPU). */
  validateResponses: boolean;
  webhooks: {
    retryDelaysS: number[];
    attemptTimeoutMs: number;
    concurrency: number;
    disableAfterMs: number;
    /** Endpoints on internal addresses and over plain http (never in production). */
    allowPrivateUrls: boolean;
  };
}

type Env = Record<string, string | undefined>;

export type RedisMode = (typeof VARIABLES.REDIS_MODE.values)[number];

function text(env: Env, name: Name): string | undefined {
  const raw = env[name]?.trim();
  return raw === undefined || raw === "" ? undefined : raw;
}

function integer(env: Env, name: NameOf<"integer">): number {
  const { default: fallback, min, max } = VARIABLES[name];
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}

function boolean(env: Env, name: NameOf<"boolean">): boolean {
  const raw = text(env, name)?.toLowerCase();
  if (raw === undefined) return VARIABLES[name].default;
  if (raw === "true" || raw === "1") return true;
  if (raw === "false" || raw === "0") return false;
  throw new ConfigError(`${name} must be true or false (got "${raw}")`);
}

function choice<N extends NameOf<"choice">>(env: Env, name: N): (typeof VARIABLES)[N]["values"][number] {
  const { default: fallback, values } = VARIABLES[name];
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!(values as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${values.join(", ")} (got "${raw}")`);
  }
  return raw as (typeof VARIABLES)[N]["values"][number];
}

/** `raw` (the variable's value, one seed of its list, or its derived default) as a URL with one of the variable's protocols. */
function url(name: NameOf<"url">, raw: string): string {
  const { protocols } = VARIABLES[name];
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL (got "${raw}")`);
  }
  if (!(protocols as readonly string[]).includes(parsed.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.map((p) => `${p}//`).join(" or ")} (got "${raw}")`);
  }
  return raw.replace(/\/+$/, "");
}

function keyPrefix(env: Env): string {
  const raw = text(env, "REDIS_KEY_PREFIX") ?? VARIABLES.REDIS_KEY_PREFIX.default;
  // Braces would change the keys' Redis Cluster hash tags.
  if (!/^[A-Za-z0-9_.:-]{1,32}$/.test(raw))
    throw new ConfigError(`REDIS_KEY_PREFIX must be 1-32 characters of A-Z a-z 0-9 _ . : - (got "${raw}")`);
  return raw;
}

function readJson(name: string, file: string): unknown {
  let content: string;
  try {
    content = readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigError(`${name}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  try {
    return JSON.parse(content);
  } catch (error) {
    throw new ConfigError(`${name}: ${file} is not valid JSON (${(error as Error).message})`);
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function parseApiKeys(name: string, file: string): Omit<Config["apiKeys"], "file"> {
  const data = readJson(name, file) as { keys?: unknown; accounts?: unknown; allow_no_keys?: unknown };
  if (!Array.isArray(data?.keys)) throw new ConfigError(`${name}: ${file} must hold {"keys": [...]}`);
  if (data.allow_no_keys !== undefined && typeof data.allow_no_keys !== "boolean") {
    throw new ConfigError(`${name}: "allow_no_keys" must be true or false`);
  }
  return {
    records: parseKeys(name, data.keys as Record<string, unknown>[]),
    accounts: parseAccounts(name, data.accounts),
    allowNoKeys: data.allow_no_keys === true,
  };
}

function parseAccounts(name: string, list: unknown): AccountRecord[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new ConfigError(`${name}: "accounts" must be a list`);
  const ids = new Set<string>();
  const { min, max } = VARIABLES.ACCOUNT_MAX_OPEN_SESSIONS;
  return list.map((entry: Record<string, unknown>, i: number) => {
    const at = `${name}: accounts[${i}]`;
    if (typeof entry?.id !== "string" || !ACCOUNT_ID_PATTERN.test(entry.id))
      throw new ConfigError(`${at}.id must be 1-64 characters of A-Z a-z 0-9 _ . : -`);
    if (ids.has(entry.id)) throw new ConfigError(`${at}.id "${entry.id}" is listed twice`);
    ids.add(entry.id);
    const limit = entry.max_open_sessions;
    if (limit !== undefined && (typeof limit !== "number" || !Number.isInteger(limit) || limit < min || limit > max)) {
      throw new ConfigError(`${at}.max_open_sessions must be an integer from ${min} to ${max}`);
    }
    return { id: entry.id, max_open_sessions: limit };
  });
}

function parseKeys(name: string, keys: Record<string, unknown>[]): ApiKeyRecord[] {
  const ids = new Set<string>();
  // A hash listed twice would authenticate its secret as whichever entry came last: an operator's
  // copy-paste slip would move one customer into another's account. Refused like a duplicate id.
  const hashes = new Map<string, number>();
  return keys.map((entry, i) => {
    const at = `${name}: keys[${i}]`;
    if (typeof entry?.id !== "string" || !KEY_ID_PATTERN.test(entry.id))
      throw new ConfigError(`${at}.id must be 1-64 characters of A-Z a-z 0-9 _ . : -`);
    if (ids.has(entry.id)) throw new ConfigError(`${at}.id "${entry.id}" is used twice`);
    ids.add(entry.id);
    if (typeof entry.account_id !== "string" || !ACCOUNT_ID_PATTERN.test(entry.account_id)) {
      throw new ConfigError(`${at}.account_id must be 1-64 characters of A-Z a-z 0-9 _ . : -`);
    }
    if (typeof entry.sha256 !== "string" || !/^[0-9a-f]{64}$/i.test(entry.sha256)) {
      throw new ConfigError(`${at}.sha256 must be 64 hexadecimal characters`);
    }
    const digest = entry.sha256.toLowerCase();
    const first = hashes.get(digest);
    if (first !== undefined) throw new ConfigError(`${at}.sha256 is the same key as keys[${first}]: each secret belongs to one key`);
    hashes.set(digest, i);
    const scopes = entry.scopes;
    if (!Array.isArray(scopes) || scopes.some((s) => !(scopeValues as readonly unknown[]).includes(s))) {
      throw new ConfigError(`${at}.scopes must be a list of ${scopeValues.join(", ")}`);
    }
    const mode = entry.mode ?? "live";
    if (!isMode(mode)) throw new ConfigError(`${at}.mode must be one of ${modeValues.join(", ")}`);
    return { id: entry.id, account_id: entry.account_id, sha256: digest, scopes, mode } as ApiKeyRecord;
  });
}

function parseDigitalHumans(name: string, file: string): [DigitalHuman, ...DigitalHuman[]] {
  const data = readJson(name, file) as { digital_humans?: unknown };
  const list = data?.digital_humans;
  if (!Array.isArray(list) || list.length === 0) {
    throw new ConfigError(`${name}: ${file} must hold {"digital_humans": [...]} with at least one entry`);
  }
  const ids = new Set<string>();
  const entries = list.map((entry: Record<string, unknown>, i: number) => {
    const at = `${name}: digital_humans[${i}]`;
    if (typeof entry?.id !== "string" || !UUID.test(entry.id)) throw new ConfigError(`${at}.id must be a UUID`);
    if (ids.has(entry.id.toLowerCase())) throw new ConfigError(`${at}.id "${entry.id}" is listed twice`);
    ids.add(entry.id.toLowerCase());
    if (typeof entry.name !== "string" || entry.name === "") throw new ConfigError(`${at}.name must be a non-empty string`);
    if (typeof entry.agent_name !== "string" || entry.agent_name === "") {
      throw new ConfigError(`${at}.agent_name must be a non-empty string`);
    }
    if (entry.description !== undefined && (typeof entry.description !== "string" || entry.description.length > 500)) {
      throw new ConfigError(`${at}.description must be a string of at most 500 characters`);
    }
    const accounts = entry.accounts;
    if (
      accounts !== undefined &&
      (!Array.isArray(accounts) || accounts.some((a) => typeof a !== "string" || !ACCOUNT_ID_PATTERN.test(a)))
    ) {
      throw new ConfigError(`${at}.accounts must be a list of account ids`);
    }
    const modes = entry.modes;
    if (modes !== undefined && (!Array.isArray(modes) || !modes.every(isMode))) {
      throw new ConfigError(`${at}.modes must be a list of ${modeValues.join(", ")}`);
    }
    return {
      id: entry.id.toLowerCase(),
      name: entry.name,
      agent_name: entry.agent_name,
      description: (entry.description as string | undefined) ?? null,
      accounts: accounts as string[] | undefined,
      modes,
    };
  });
  return entries as [DigitalHuman, ...DigitalHuman[]];
}

function retryDelays(env: Env): number[] {
  const raw = text(env, "WEBHOOK_RETRY_DELAYS_S") ?? VARIABLES.WEBHOOK_RETRY_DELAYS_S.default;
  const delays = raw.split(",").map((part) => part.trim());
  if (delays.length > 20 || delays.some((d) => !/^[0-9]{1,5}$/.test(d) || Number(d) < 1 || Number(d) > 86_400)) {
    throw new ConfigError(`WEBHOOK_RETRY_DELAYS_S must be 1 to 20 comma-separated whole seconds from 1 to 86400, got "${raw}"`);
  }
  return delays.map(Number);
}

/**
 * The files the operator controls (API keys with per-account limits, the digital human catalog), read
 * and checked as a whole: at start, and again on a reload, where a bad file throws and the running
 * process keeps what it had.
 */
export function readOperatorFiles(files: { apiKeysFile: string; digitalHumansFile: string }): Pick<Config, "apiKeys" | "digitalHumans"> {
  return {
    apiKeys: { file: files.apiKeysFile, ...parseApiKeys("API_KEYS_FILE", files.apiKeysFile) },
    digitalHumans: { file: files.digitalHumansFile, entries: parseDigitalHumans("DIGITAL_HUMANS_FILE", files.digitalHumansFile) },
  };
}

export function loadConfig(env: Env = process.env): Config {
  const nodeEnv = text(env, "NODE_ENV") ?? VARIABLES.NODE_ENV.default;
  const production = nodeEnv === "production";
  const refuseInProduction = (name: string, why: string) => {
    if (production) throw new ConfigError(`${name} must be set in production (${why})`);
  };

  const redisUrl = text(env, "REDIS_URL");
  const redisMode = choice(env, "REDIS_MODE");
  if (redisUrl === undefined) refuseInProduction("REDIS_URL", "the in-memory store is for development only");
  else {
    const seeds = redisUrl.split(",").map((seed) => seed.trim());
    if (redisMode === "standalone" && seeds.length > 1) {
      throw new ConfigError("REDIS_URL lists several servers: set REDIS_MODE=cluster to use them as Redis Cluster seed nodes");
    }
    for (const seed of seeds) url("REDIS_URL", seed);
  }

  if (text(env, "LIVEKIT_URL") === undefined) refuseInProduction("LIVEKIT_URL", "browsers cannot reach the development default");
  const livekitUrl = url("LIVEKIT_URL", text(env, "LIVEKIT_URL") ?? VARIABLES.LIVEKIT_URL.default);
  // LiveKit serves its API on the same address as its WebSocket, over HTTP.
  const derivedApiUrl = livekitUrl.replace(/^ws(s?):/, "http$1:");
  const livekitApiKey = text(env, "LIVEKIT_API_KEY") ?? VARIABLES.LIVEKIT_API_KEY.default;
  const livekitApiSecret = text(env, "LIVEKIT_API_SECRET") ?? VARIABLES.LIVEKIT_API_SECRET.default;
  if (production && (livekitApiKey === LIVEKIT_DEV.apiKey || livekitApiSecret === LIVEKIT_DEV.apiSecret)) {
    throw new ConfigError("LIVEKIT_API_KEY and LIVEKIT_API_SECRET must be set in production (the development credentials are public)");
  }

  const apiKeysFile = text(env, "API_KEYS_FILE");
  if (apiKeysFile === undefined) refuseInProduction("API_KEYS_FILE", "the embedded development key is public");
  const digitalHumansFile = text(env, "DIGITAL_HUMANS_FILE") ?? EMBEDDED.digitalHumansFile;

  const config: Config = {
    nodeEnv,
    production,
    port: integer(env, "PORT"),
    host: text(env, "HOST") ?? VARIABLES.HOST.default,
    metricsPort: integer(env, "METRICS_PORT"),
    connections: {
      headersTimeoutMs: integer(env, "HEADERS_TIMEOUT_S") * 1000,
      requestTimeoutMs: integer(env, "REQUEST_TIMEOUT_S") * 1000,
      maxConnections: integer(env, "MAX_CONNECTIONS"),
    },
    logLevel: choice(env, "LOG_LEVEL"),
    shutdownGraceMs: integer(env, "SHUTDOWN_GRACE_MS"),
    redisUrl,
    redisMode,
    redisCommandTimeoutMs: integer(env, "REDIS_COMMAND_TIMEOUT_MS"),
    redisKeyPrefix: keyPrefix(env),
    livekit: {
      url: livekitUrl,
      apiUrl: url("LIVEKIT_API_URL", text(env, "LIVEKIT_API_URL") ?? derivedApiUrl),
      apiKey: livekitApiKey,
      apiSecret: livekitApiSecret,
      timeoutMs: integer(env, "LIVEKIT_TIMEOUT_MS"),
      webhookDedupeS: integer(env, "LIVEKIT_WEBHOOK_DEDUPE_S"),
    },
    ...readOperatorFiles({ apiKeysFile: apiKeysFile ?? EMBEDDED.apiKeysFile, digitalHumansFile }),
    accountMaxOpenSessions: integer(env, "ACCOUNT_MAX_OPEN_SESSIONS"),
    testMaxOpenSessions: integer(env, "TEST_MAX_OPEN_SESSIONS"),
    participantTokenTtlS: integer(env, "PARTICIPANT_TOKEN_TTL_S"),
    sessionJoinTimeoutS: integer(env, "SESSION_JOIN_TIMEOUT_S"),
    digitalHumanJoinTimeoutS: integer(env, "DIGITAL_HUMAN_JOIN_TIMEOUT_S"),
    sessionMaxDurationS: integer(env, "SESSION_MAX_DURATION_S"),
    testSessionMaxDurationS: integer(env, "TEST_SESSION_MAX_DURATION_S"),
    sessionDepartureTimeoutS: integer(env, "SESSION_DEPARTURE_TIMEOUT_S"),
    digitalHumanRedispatchS: integer(env, "DIGITAL_HUMAN_REDISPATCH_S"),
    sessionRetentionS: integer(env, "SESSION_RETENTION_S"),
    transcriptGraceS: integer(env, "TRANSCRIPT_GRACE_S"),
    idempotencyKeyTtlS: integer(env, "IDEMPOTENCY_KEY_TTL_S"),
    idempotencyLockTtlS: integer(env, "IDEMPOTENCY_LOCK_TTL_S"),
    sweepIntervalMs: integer(env, "SWEEP_INTERVAL_MS"),
    roomReconcileIntervalMs: integer(env, "ROOM_RECONCILE_INTERVAL_S") * 1000,
    rateLimit: {
      enabled: boolean(env, "RATE_LIMIT_ENABLED"),
      perSecond: integer(env, "RATE_LIMIT_PER_SECOND"),
      burst: integer(env, "RATE_LIMIT_BURST"),
    },
    validateResponses: boolean(env, "VALIDATE_RESPONSES"),
    webhooks: {
      retryDelaysS: retryDelays(env),
      attemptTimeoutMs: integer(env, "WEBHOOK_ATTEMPT_TIMEOUT_S") * 1000,
      concurrency: integer(env, "WEBHOOK_CONCURRENCY"),
      disableAfterMs: integer(env, "WEBHOOK_DISABLE_AFTER_S") * 1000,
      allowPrivateUrls: boolean(env, "WEBHOOK_ALLOW_PRIVATE_URLS"),
    },
  };
  if (production && config.webhooks.allowPrivateUrls) {
    // An API key would let anyone make the service post to the deployment's own network.
    throw new ConfigError("WEBHOOK_ALLOW_PRIVATE_URLS must not be true in production (endpoints could reach internal addresses)");
  }
  if (config.rateLimit.burst < config.rateLimit.perSecond) {
    throw new ConfigError("RATE_LIMIT_BURST must be at least RATE_LIMIT_PER_SECOND");
  }
  if (config.connections.requestTimeoutMs < config.connections.headersTimeoutMs) {
    throw new ConfigError("REQUEST_TIMEOUT_S must be at least HEADERS_TIMEOUT_S");
  }
  if (config.sessionRetentionS < config.idempotencyKeyTtlS) {
    // A replayed create must find the session its key made.
    throw new ConfigError("SESSION_RETENTION_S must be at least IDEMPOTENCY_KEY_TTL_S");
  }
  if (config.idempotencyLockTtlS * 1000 <= config.livekit.timeoutMs + config.redisCommandTimeoutMs * 2) {
    // A lock that can expire while its request still waits on LiveKit would let a retry create twice.
    throw new ConfigError("IDEMPOTENCY_LOCK_TTL_S must be longer than LIVEKIT_TIMEOUT_MS plus two REDIS_COMMAND_TIMEOUT_MS");
  }
  return config;
}
