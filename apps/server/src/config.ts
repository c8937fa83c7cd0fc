/**
 * All configuration comes from the environment and is parsed here, once, at start, including the API key
 * and digital human files it names. A bad value stops the start with one line that names the variable,
 * so an operator sees the mistake rather than a stack. Development runs on embedded defaults (in-memory
 * store, LiveKit's `--dev` credentials, a published development key); production refuses each of them.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { scopeValues } from "@dhs/contract";
import { ACCOUNT_ID_PATTERN, type ApiKeyRecord, KEY_ID_PATTERN } from "./domain/api-keys.js";
import type { DigitalHuman } from "./domain/digital-humans.js";

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
const LOG_LEVELS: readonly LogLevel[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/** What `livekit-server --dev` uses; fine on a laptop, refused in production. */
export const LIVEKIT_DEV = { url: "ws://localhost:7880", apiKey: "devkey", apiSecret: "secret" } as const;

const EMBEDDED = {
  apiKeysFile: fileURLToPath(new URL("../config/dev-api-keys.json", import.meta.url)),
  digitalHumansFile: fileURLToPath(new URL("../config/digital-humans.json", import.meta.url)),
};

export interface Config {
  nodeEnv: string;
  production: boolean;
  port: number;
  host: string;
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
  };
  apiKeys: { file: string; records: ApiKeyRecord[] };
  digitalHumans: { file: string; entries: [DigitalHuman, ...DigitalHuman[]] };
  participantTokenTtlS: number;
  sessionJoinTimeoutS: number;
  digitalHumanJoinTimeoutS: number;
  sessionMaxDurationS: number;
  idempotencyKeyTtlS: number;
  idempotencyLockTtlS: number;
  /** Per-API-key limits; enabled unless RATE_LIMIT_ENABLED=false. */
  rateLimit: { enabled: boolean; perSecond: number; burst: number };
  /** How often each replica looks for due session timers. */
  sweepIntervalMs: number;
  /** Check every response against the contract (tests; costs CPU). */
  validateResponses: boolean;
}

type Env = Record<string, string | undefined>;

export type RedisMode = "standalone" | "cluster";
const REDIS_MODES: readonly RedisMode[] = ["standalone", "cluster"];

function text(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw === undefined || raw === "" ? undefined : raw;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = text(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (raw === "true" || raw === "1") return true;
  if (raw === "false" || raw === "0") return false;
  throw new ConfigError(`${name} must be true or false (got "${raw}")`);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(", ")} (got "${raw}")`);
  }
  return raw as T;
}

function url(env: Env, name: string, fallback: string, protocols: readonly string[]): string {
  const raw = text(env, name) ?? fallback;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL (got "${raw}")`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.map((p) => `${p}//`).join(" or ")} (got "${raw}")`);
  }
  return raw.replace(/\/+$/, "");
}

function keyPrefix(env: Env): string {
  const raw = text(env, "REDIS_KEY_PREFIX") ?? "dhs";
  // Braces would change the keys' Redis Cluster hash tags.
  if (!/^[A-Za-z0-9_.:-]{1,32}$/.test(raw)) throw new ConfigError(`REDIS_KEY_PREFIX must be 1-32 characters of A-Z a-z 0-9 _ . : - (got "${raw}")`);
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

function parseApiKeys(name: string, file: string): ApiKeyRecord[] {
  const data = readJson(name, file) as { keys?: unknown };
  if (!Array.isArray(data?.keys)) throw new ConfigError(`${name}: ${file} must hold {"keys": [...]}`);
  const ids = new Set<string>();
  return data.keys.map((entry: Record<string, unknown>, i: number) => {
    const at = `${name}: keys[${i}]`;
    if (typeof entry?.id !== "string" || !KEY_ID_PATTERN.test(entry.id)) throw new ConfigError(`${at}.id must be 1-64 characters of A-Z a-z 0-9 _ . : -`);
    if (ids.has(entry.id)) throw new ConfigError(`${at}.id "${entry.id}" is used twice`);
    ids.add(entry.id);
    if (typeof entry.account_id !== "string" || !ACCOUNT_ID_PATTERN.test(entry.account_id)) {
      throw new ConfigError(`${at}.account_id must be 1-64 characters of A-Z a-z 0-9 _ . : -`);
    }
    if (typeof entry.sha256 !== "string" || !/^[0-9a-f]{64}$/i.test(entry.sha256)) {
      throw new ConfigError(`${at}.sha256 must be 64 hexadecimal characters`);
    }
    const scopes = entry.scopes;
    if (!Array.isArray(scopes) || scopes.some((s) => !(scopeValues as readonly unknown[]).includes(s))) {
      throw new ConfigError(`${at}.scopes must be a list of ${scopeValues.join(", ")}`);
    }
    return { id: entry.id, account_id: entry.account_id, sha256: entry.sha256.toLowerCase(), scopes };
  });
}

function parseDigitalHumans(name: string, file: string): [DigitalHuman, ...DigitalHuman[]] {
  const data = readJson(name, file) as { digital_humans?: unknown };
  const list = data?.digital_humans;
  if (!Array.isArray(list) || list.length === 0) {
    throw new ConfigError(`${name}: ${file} must hold {"digital_humans": [...]} with at least one entry`);
  }
  const entries = list.map((entry: Record<string, unknown>, i: number) => {
    const at = `${name}: digital_humans[${i}]`;
    if (typeof entry?.id !== "string" || !UUID.test(entry.id)) throw new ConfigError(`${at}.id must be a UUID`);
    if (typeof entry.name !== "string" || entry.name === "") throw new ConfigError(`${at}.name must be a non-empty string`);
    if (typeof entry.agent_name !== "string" || entry.agent_name === "") {
      throw new ConfigError(`${at}.agent_name must be a non-empty string`);
    }
    return { id: entry.id.toLowerCase(), name: entry.name, agent_name: entry.agent_name };
  });
  return entries as [DigitalHuman, ...DigitalHuman[]];
}

export function loadConfig(env: Env = process.env): Config {
  const nodeEnv = text(env, "NODE_ENV") ?? "development";
  const production = nodeEnv === "production";
  const refuseInProduction = (name: string, why: string) => {
    if (production) throw new ConfigError(`${name} must be set in production (${why})`);
  };

  const redisUrl = text(env, "REDIS_URL");
  const redisMode = oneOf(env, "REDIS_MODE", REDIS_MODES, "standalone");
  if (redisUrl === undefined) refuseInProduction("REDIS_URL", "the in-memory store is for development only");
  else {
    const seeds = redisUrl.split(",").map((seed) => seed.trim());
    if (redisMode === "standalone" && seeds.length > 1) {
      throw new ConfigError("REDIS_URL lists several servers: set REDIS_MODE=cluster to use them as Redis Cluster seed nodes");
    }
    for (const seed of seeds) url({ REDIS_URL: seed }, "REDIS_URL", seed, ["redis:", "rediss:"]);
  }

  const livekitUrl = url(env, "LIVEKIT_URL", LIVEKIT_DEV.url, ["ws:", "wss:", "http:", "https:"]);
  // LiveKit serves its API on the same address as its WebSocket, over HTTP.
  const derivedApiUrl = livekitUrl.replace(/^ws(s?):/, "http$1:");
  const livekitApiKey = text(env, "LIVEKIT_API_KEY") ?? LIVEKIT_DEV.apiKey;
  const livekitApiSecret = text(env, "LIVEKIT_API_SECRET") ?? LIVEKIT_DEV.apiSecret;
  if (production && (livekitApiKey === LIVEKIT_DEV.apiKey || livekitApiSecret === LIVEKIT_DEV.apiSecret)) {
    throw new ConfigError("LIVEKIT_API_KEY and LIVEKIT_API_SECRET must be set in production (the development credentials are public)");
  }

  const apiKeysFile = text(env, "API_KEYS_FILE");
  if (apiKeysFile === undefined) refuseInProduction("API_KEYS_FILE", "the embedded development key is public");
  const digitalHumansFile = text(env, "DIGITAL_HUMANS_FILE") ?? EMBEDDED.digitalHumansFile;

  const config: Config = {
    nodeEnv,
    production,
    port: integer(env, "PORT", 8080, 0, 65535),
    host: text(env, "HOST") ?? "0.0.0.0",
    logLevel: oneOf(env, "LOG_LEVEL", LOG_LEVELS, "info"),
    shutdownGraceMs: integer(env, "SHUTDOWN_GRACE_MS", 10_000, 0, 600_000),
    redisUrl,
    redisMode,
    redisCommandTimeoutMs: integer(env, "REDIS_COMMAND_TIMEOUT_MS", 500, 50, 10_000),
    redisKeyPrefix: keyPrefix(env),
    livekit: {
      url: livekitUrl,
      apiUrl: url(env, "LIVEKIT_API_URL", derivedApiUrl, ["http:", "https:"]),
      apiKey: livekitApiKey,
      apiSecret: livekitApiSecret,
      timeoutMs: integer(env, "LIVEKIT_TIMEOUT_MS", 800, 50, 30_000),
    },
    apiKeys: { file: apiKeysFile ?? EMBEDDED.apiKeysFile, records: parseApiKeys("API_KEYS_FILE", apiKeysFile ?? EMBEDDED.apiKeysFile) },
    digitalHumans: { file: digitalHumansFile, entries: parseDigitalHumans("DIGITAL_HUMANS_FILE", digitalHumansFile) },
    participantTokenTtlS: integer(env, "PARTICIPANT_TOKEN_TTL_S", 600, 30, 86_400),
    sessionJoinTimeoutS: integer(env, "SESSION_JOIN_TIMEOUT_S", 600, 1, 86_400),
    digitalHumanJoinTimeoutS: integer(env, "DIGITAL_HUMAN_JOIN_TIMEOUT_S", 60, 1, 3_600),
    sessionMaxDurationS: integer(env, "SESSION_MAX_DURATION_S", 1800, 1, 86_400),
    idempotencyKeyTtlS: integer(env, "IDEMPOTENCY_KEY_TTL_S", 86_400, 60, 30 * 86_400),
    idempotencyLockTtlS: integer(env, "IDEMPOTENCY_LOCK_TTL_S", 10, 1, 300),
    sweepIntervalMs: integer(env, "SWEEP_INTERVAL_MS", 1000, 50, 60_000),
    rateLimit: {
      enabled: boolean(env, "RATE_LIMIT_ENABLED", true),
      perSecond: integer(env, "RATE_LIMIT_PER_SECOND", 100, 1, 1_000_000),
      burst: integer(env, "RATE_LIMIT_BURST", 200, 1, 1_000_000),
    },
    validateResponses: boolean(env, "VALIDATE_RESPONSES", false),
  };
  if (config.rateLimit.burst < config.rateLimit.perSecond) {
    throw new ConfigError("RATE_LIMIT_BURST must be at least RATE_LIMIT_PER_SECOND");
  }
  if (config.idempotencyLockTtlS * 1000 <= config.livekit.timeoutMs + config.redisCommandTimeoutMs * 2) {
    // A lock that can expire while its request still waits on LiveKit would let a retry create twice.
    throw new ConfigError("IDEMPOTENCY_LOCK_TTL_S must be longer than LIVEKIT_TIMEOUT_MS plus two REDIS_COMMAND_TIMEOUT_MS");
  }
  return config;
}
