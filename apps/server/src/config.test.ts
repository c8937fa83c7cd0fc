import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, VARIABLES } from "./config.js";

const AVA_ID = "6f1c2d0e-8b7a-4c55-9a9e-2f3b1d4c5e6f";

function file(name: string, content: unknown): string {
  const path = join(tmpdir(), `dhs-config-${process.pid}-${name}`);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

const keysFile = file("keys.json", { keys: [{ id: "k", account_id: "acct_1", scopes: ["sessions:read"], sha256: "a".repeat(64) }] });
const PRODUCTION = {
  NODE_ENV: "production",
  REDIS_URL: "redis://redis:6379",
  DATABASE_URL: "postgres://dhs@postgres:5432/dhs",
  API_KEYS_FILE: keysFile,
  LIVEKIT_URL: "wss://livekit.example.net",
  LIVEKIT_API_KEY: "APIabc",
  LIVEKIT_API_SECRET: "s3cret",
};

describe("loadConfig", () => {
  it("runs development on embedded defaults", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      nodeEnv: "development",
      production: false,
      port: 8080,
      host: "0.0.0.0",
      logLevel: "info",
      redisUrl: undefined,
      livekit: {
        url: "ws://localhost:7880",
        apiUrl: "http://localhost:7880",
        apiKey: "devkey",
        apiSecret: "secret",
        timeoutMs: 800,
        webhookDedupeS: 3600,
      },
      participantTokenTtlS: 600,
      sessionJoinTimeoutS: 600,
      digitalHumanJoinTimeoutS: 60,
      sessionMaxDurationS: 1800,
      idempotencyKeyTtlS: 86_400,
      idempotencyLockTtlS: 10,
      validateResponses: false,
    });
    expect(config.apiKeys.records).toEqual([
      expect.objectContaining({ id: "key_dev", account_id: "acct_dev", mode: "live" }),
      expect.objectContaining({ id: "key_dev_test", account_id: "acct_dev", mode: "test" }),
    ]);
    expect(config.digitalHumans.entries[0]).toMatchObject({ name: "Ava", agent_name: "ava" });
  });

  it("reads exactly the variables of VARIABLES, which the configuration reference of docs/operators.md is generated from", () => {
    const read = new Set<string>();
    loadConfig(new Proxy({}, { get: (_target, name) => void read.add(String(name)) }));
    expect([...read].sort()).toEqual(Object.keys(VARIABLES).sort());
  });

  it("accepts a complete production configuration", () => {
    expect(loadConfig(PRODUCTION)).toMatchObject({
      production: true,
      redisUrl: "redis://redis:6379",
      livekit: { apiUrl: "https://livekit.example.net" },
    });
  });

  it.each([
    ["PORT", { PORT: "3000" }, { port: 3000 }],
    ["HOST", { HOST: "127.0.0.1" }, { host: "127.0.0.1" }],
    ["LOG_LEVEL", { LOG_LEVEL: "debug" }, { logLevel: "debug" }],
    [
      "LIVEKIT_API_URL over the derived one",
      { LIVEKIT_URL: "wss://lk.example.net", LIVEKIT_API_URL: "http://lk-internal:7880/" },
      { livekit: { url: "wss://lk.example.net", apiUrl: "http://lk-internal:7880" } },
    ],
    ["an http LIVEKIT_URL", { LIVEKIT_URL: "http://localhost:7880" }, { livekit: { apiUrl: "http://localhost:7880" } }],
    ["VALIDATE_RESPONSES", { VALIDATE_RESPONSES: "true" }, { validateResponses: true }],
    ["REDIS_KEY_PREFIX", { REDIS_KEY_PREFIX: "staging" }, { redisKeyPrefix: "staging" }],
    ["LIVEKIT_WEBHOOK_DEDUPE_S", { LIVEKIT_WEBHOOK_DEDUPE_S: "600" }, { livekit: { webhookDedupeS: 600 } }],
    [
      "REDIS_MODE=cluster with seed nodes",
      { REDIS_MODE: "cluster", REDIS_URL: "redis://a:7000, redis://b:7001", DATABASE_URL: "postgres://db/dhs" },
      { redisMode: "cluster", redisUrl: "redis://a:7000, redis://b:7001" },
    ],
    ["rate limits", { RATE_LIMIT_PER_SECOND: "10", RATE_LIMIT_BURST: "30" }, { rateLimit: { enabled: true, perSecond: 10, burst: 30 } }],
    ["RATE_LIMIT_ENABLED=false", { RATE_LIMIT_ENABLED: "false" }, { rateLimit: { enabled: false, perSecond: 100, burst: 200 } }],
    ["blank values as unset", { PORT: " ", LOG_LEVEL: "" }, { port: 8080, logLevel: "info" }],
    ["METRICS_PORT", { METRICS_PORT: "0" }, { metricsPort: 0 }],
    [
      "connection limits by default",
      {},
      { metricsPort: 9464, connections: { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxConnections: 10_000 } },
    ],
    [
      "connection limits",
      { HEADERS_TIMEOUT_S: "2", REQUEST_TIMEOUT_S: "5", MAX_CONNECTIONS: "64" },
      { connections: { headersTimeoutMs: 2000, requestTimeoutMs: 5000, maxConnections: 64 } },
    ],
    [
      "customer webhooks by default",
      {},
      {
        webhooks: {
          retryDelaysS: [5, 300, 1800, 7200, 18_000, 36_000, 36_000],
          attemptTimeoutMs: 10_000,
          concurrency: 50,
          disableAfterMs: 432_000_000,
          allowPrivateUrls: false,
        },
      },
    ],
    ["WEBHOOK_RETRY_DELAYS_S", { WEBHOOK_RETRY_DELAYS_S: "1, 2,3" }, { webhooks: { retryDelaysS: [1, 2, 3] } }],
    ["ACCOUNT_MAX_OPEN_SESSIONS", { ACCOUNT_MAX_OPEN_SESSIONS: "7" }, { accountMaxOpenSessions: 7 }],
    [
      "per-account limits and a catalog entry's description and accounts",
      {
        API_KEYS_FILE: file("acc.json", { keys: [], accounts: [{ id: "acct_1", max_open_sessions: 50 }, { id: "acct_2" }] }),
        DIGITAL_HUMANS_FILE: file("dh-full.json", {
          digital_humans: [{ id: AVA_ID, name: "Ava", agent_name: "ava", description: "Guide", accounts: ["acct_1"] }],
        }),
      },
      {
        apiKeys: { accounts: [{ id: "acct_1", max_open_sessions: 50 }, { id: "acct_2" }] },
        digitalHumans: { entries: [{ id: AVA_ID, name: "Ava", agent_name: "ava", description: "Guide", accounts: ["acct_1"] }] },
      },
    ],
    ["WEBHOOK_ALLOW_PRIVATE_URLS in development", { WEBHOOK_ALLOW_PRIVATE_URLS: "true" }, { webhooks: { allowPrivateUrls: true } }],
  ])("reads %s", (_name, env, want) => {
    expect(loadConfig(env)).toMatchObject(want);
  });

  it.each([
    ["PORT", { PORT: "http" }, 'PORT must be an integer from 0 to 65535 (got "http")'],
    ["PORT", { PORT: "65536" }, 'PORT must be an integer from 0 to 65535 (got "65536")'],
    ["LOG_LEVEL", { LOG_LEVEL: "loud" }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")'],
    ["REDIS_URL", { REDIS_URL: "localhost:6379" }, 'REDIS_URL must start with redis:// or rediss:// (got "localhost:6379")'],
    [
      "REDIS_URL",
      { REDIS_URL: "redis://a:7000,redis://b:7001", DATABASE_URL: "postgres://db/dhs" },
      "REDIS_URL lists several servers: set REDIS_MODE=cluster to use them as Redis Cluster seed nodes",
    ],
    [
      "REDIS_URL",
      { REDIS_MODE: "cluster", REDIS_URL: "redis://a:7000,b:7001", DATABASE_URL: "postgres://db/dhs" },
      'REDIS_URL must start with redis:// or rediss:// (got "b:7001")',
    ],
    ["REDIS_MODE", { REDIS_MODE: "sentinel" }, 'REDIS_MODE must be one of standalone, cluster (got "sentinel")'],
    ["REQUEST_TIMEOUT_S", { HEADERS_TIMEOUT_S: "20", REQUEST_TIMEOUT_S: "10" }, "REQUEST_TIMEOUT_S must be at least HEADERS_TIMEOUT_S"],
    ["MAX_CONNECTIONS", { MAX_CONNECTIONS: "0" }, 'MAX_CONNECTIONS must be an integer from 1 to 1000000 (got "0")'],
    ["SESSION_RETENTION_S", { SESSION_RETENTION_S: "3600" }, "SESSION_RETENTION_S must be at least IDEMPOTENCY_KEY_TTL_S"],
    [
      "DATABASE_URL",
      { DATABASE_URL: "mysql://db/dhs" },
      'DATABASE_URL must start with postgres:// or postgresql:// (got "mysql://db/dhs")',
    ],
    [
      "DATABASE_URL",
      { DATABASE_URL: "postgres://db/dhs" },
      "DATABASE_URL needs REDIS_URL: sessions are live in Redis and written to PostgreSQL from a queue there",
    ],
    [
      "REDIS_URL",
      { REDIS_URL: "redis://r:6379" },
      "REDIS_URL needs DATABASE_URL: PostgreSQL is the record of the digital humans, webhook endpoints, memories, documents and ended sessions",
    ],
    [
      "HISTORY_REDIS_KEEP_S",
      { REDIS_URL: "redis://r:6379", DATABASE_URL: "postgres://db/dhs", TRANSCRIPT_GRACE_S: "600", HISTORY_REDIS_KEEP_S: "600" },
      "HISTORY_REDIS_KEEP_S must be longer than TRANSCRIPT_GRACE_S",
    ],
    ["LIVEKIT_URL", { LIVEKIT_URL: "livekit" }, 'LIVEKIT_URL must be a URL (got "livekit")'],
    ["PARTICIPANT_TOKEN_TTL_S", { PARTICIPANT_TOKEN_TTL_S: "5" }, 'PARTICIPANT_TOKEN_TTL_S must be an integer from 30 to 86400 (got "5")'],
    ["VALIDATE_RESPONSES", { VALIDATE_RESPONSES: "yes" }, 'VALIDATE_RESPONSES must be true or false (got "yes")'],
    [
      "RATE_LIMIT_BURST",
      { RATE_LIMIT_PER_SECOND: "50", RATE_LIMIT_BURST: "10" },
      "RATE_LIMIT_BURST must be at least RATE_LIMIT_PER_SECOND",
    ],
    ["REDIS_KEY_PREFIX", { REDIS_KEY_PREFIX: "a{b}" }, 'REDIS_KEY_PREFIX must be 1-32 characters of A-Z a-z 0-9 _ . : - (got "a{b}")'],
    [
      "WEBHOOK_RETRY_DELAYS_S",
      { WEBHOOK_RETRY_DELAYS_S: "5,soon" },
      'WEBHOOK_RETRY_DELAYS_S must be 1 to 20 comma-separated whole seconds from 1 to 86400, got "5,soon"',
    ],
    [
      "WEBHOOK_RETRY_DELAYS_S",
      { WEBHOOK_RETRY_DELAYS_S: "0" },
      'WEBHOOK_RETRY_DELAYS_S must be 1 to 20 comma-separated whole seconds from 1 to 86400, got "0"',
    ],
    [
      "IDEMPOTENCY_LOCK_TTL_S",
      { IDEMPOTENCY_LOCK_TTL_S: "1", LIVEKIT_TIMEOUT_MS: "900" },
      "IDEMPOTENCY_LOCK_TTL_S must be longer than LIVEKIT_TIMEOUT_MS plus two REDIS_COMMAND_TIMEOUT_MS",
    ],
    ["API_KEYS_FILE", { API_KEYS_FILE: "/nonexistent/keys.json" }, "API_KEYS_FILE: cannot read /nonexistent/keys.json (ENOENT)"],
    ["API_KEYS_FILE", { API_KEYS_FILE: file("bad.json", "{") }, /^API_KEYS_FILE: .* is not valid JSON/],
    ["API_KEYS_FILE", { API_KEYS_FILE: file("shape.json", { nope: [] }) }, /^API_KEYS_FILE: .* must hold \{"keys": \[\.\.\.\]\}$/],
    [
      "API_KEYS_FILE",
      { API_KEYS_FILE: file("hash.json", { keys: [{ id: "k", account_id: "a", scopes: [], sha256: "zz" }] }) },
      "API_KEYS_FILE: keys[0].sha256 must be 64 hexadecimal characters",
    ],
    [
      "API_KEYS_FILE",
      { API_KEYS_FILE: file("scope.json", { keys: [{ id: "k", account_id: "a", scopes: ["admin"], sha256: "a".repeat(64) }] }) },
      "API_KEYS_FILE: keys[0].scopes must be a list of sessions:read, sessions:write",
    ],
    [
      "DIGITAL_HUMANS_FILE",
      {
        DIGITAL_HUMANS_FILE: file("dh-modes.json", {
          digital_humans: [{ id: "6f1c2d0e-8b7a-4c55-9a9e-2f3b1d4c5e6f", name: "Ava", agent_name: "ava", modes: ["sandbox"] }],
        }),
      },
      "DIGITAL_HUMANS_FILE: digital_humans[0].modes must be a list of live, test",
    ],
    [
      "API_KEYS_FILE",
      { API_KEYS_FILE: file("mode.json", { keys: [{ id: "k", account_id: "a", scopes: [], sha256: "a".repeat(64), mode: "sandbox" }] }) },
      "API_KEYS_FILE: keys[0].mode must be one of live, test",
    ],
    [
      "API_KEYS_FILE",
      { API_KEYS_FILE: file("acct.json", { keys: [{ id: "k", account_id: "a{b}", scopes: [], sha256: "a".repeat(64) }] }) },
      "API_KEYS_FILE: keys[0].account_id must be 1-64 characters of A-Z a-z 0-9 _ . : -",
    ],
    [
      "API_KEYS_FILE",
      { API_KEYS_FILE: file("id.json", { keys: [{ id: "key 1", account_id: "a", scopes: [], sha256: "a".repeat(64) }] }) },
      "API_KEYS_FILE: keys[0].id must be 1-64 characters of A-Z a-z 0-9 _ . : -",
    ],
    [
      "API_KEYS_FILE",
      {
        API_KEYS_FILE: file("dup.json", {
          keys: [
            { id: "k", account_id: "a", scopes: [], sha256: "a".repeat(64) },
            { id: "k", account_id: "a", scopes: [], sha256: "b".repeat(64) },
          ],
        }),
      },
      'API_KEYS_FILE: keys[1].id "k" is used twice',
    ],
    [
      "API_KEYS_FILE",
      {
        API_KEYS_FILE: file("dup-hash.json", {
          keys: [
            { id: "k1", account_id: "acct_1", scopes: [], sha256: "c".repeat(64) },
            { id: "k2", account_id: "acct_2", scopes: [], sha256: "b".repeat(64) },
            // The same secret's hash in upper case, under another account.
            { id: "k3", account_id: "acct_3", scopes: [], sha256: "C".repeat(64) },
          ],
        }),
      },
      "API_KEYS_FILE: keys[2].sha256 is the same key as keys[0]: each secret belongs to one key",
    ],
    [
      "DIGITAL_HUMANS_FILE",
      {
        DIGITAL_HUMANS_FILE: file("dh-twice.json", {
          digital_humans: [
            { id: AVA_ID, name: "Ava", agent_name: "ava" },
            { id: AVA_ID.toUpperCase(), name: "Ava", agent_name: "ava-2" },
          ],
        }),
      },
      `DIGITAL_HUMANS_FILE: digital_humans[1].id "${AVA_ID.toUpperCase()}" is listed twice`,
    ],
    [
      "DIGITAL_HUMANS_FILE",
      { DIGITAL_HUMANS_FILE: file("dh-empty.json", { digital_humans: [] }) },
      /^DIGITAL_HUMANS_FILE: .* at least one entry$/,
    ],
    [
      "DIGITAL_HUMANS_FILE",
      { DIGITAL_HUMANS_FILE: file("dh-id.json", { digital_humans: [{ id: "ava", name: "Ava", agent_name: "ava" }] }) },
      "DIGITAL_HUMANS_FILE: digital_humans[0].id must be a UUID",
    ],
    [
      "DIGITAL_HUMANS_FILE",
      {
        DIGITAL_HUMANS_FILE: file("dh-acc.json", { digital_humans: [{ id: AVA_ID, name: "Ava", agent_name: "ava", accounts: ["a{b}"] }] }),
      },
      "DIGITAL_HUMANS_FILE: digital_humans[0].accounts must be a list of account ids",
    ],
    [
      "API_KEYS_FILE",
      { API_KEYS_FILE: file("acc-limit.json", { keys: [], accounts: [{ id: "acct_1", max_open_sessions: 0 }] }) },
      "API_KEYS_FILE: accounts[0].max_open_sessions must be an integer from 1 to 100000",
    ],
    [
      "API_KEYS_FILE",
      { API_KEYS_FILE: file("acc-twice.json", { keys: [], accounts: [{ id: "acct_1" }, { id: "acct_1" }] }) },
      'API_KEYS_FILE: accounts[1].id "acct_1" is listed twice',
    ],
    [
      "ACCOUNT_MAX_OPEN_SESSIONS",
      { ACCOUNT_MAX_OPEN_SESSIONS: "0" },
      'ACCOUNT_MAX_OPEN_SESSIONS must be an integer from 1 to 100000 (got "0")',
    ],
    ["API_KEYS_FILE", { API_KEYS_FILE: file("array.json", []) }, /^API_KEYS_FILE: .* must hold \{"keys": \[\.\.\.\]\}$/],
    [
      "API_KEYS_FILE",
      { API_KEYS_FILE: file("allow.json", { keys: [], allow_no_keys: "yes" }) },
      /^API_KEYS_FILE: "allow_no_keys" must be true or false$/,
    ],
    ["API_KEYS_FILE", { API_KEYS_FILE: file("acc-list.json", { keys: [], accounts: {} }) }, /^API_KEYS_FILE: "accounts" must be a list$/],
    ["API_KEYS_FILE", { API_KEYS_FILE: file("entry.json", { keys: ["k"] }) }, /^API_KEYS_FILE: keys\[0\] must be an object$/],
    [
      "API_KEYS_FILE",
      { API_KEYS_FILE: file("no-hash.json", { keys: [{ id: "k", account_id: "a", scopes: [] }] }) },
      /^API_KEYS_FILE: keys\[0\]\.sha256 must be 64 hexadecimal characters$/,
    ],
    [
      "API_KEYS_FILE",
      {
        API_KEYS_FILE: file("scope-item.json", {
          keys: [{ id: "k", account_id: "a", scopes: ["sessions:read", 3], sha256: "a".repeat(64) }],
        }),
      },
      /^API_KEYS_FILE: keys\[0\]\.scopes must be a list of sessions:read, sessions:write, digital_humans:read, digital_humans:write, webhooks:read, webhooks:write, knowledge:read, knowledge:write$/,
    ],
    [
      "DIGITAL_HUMANS_FILE",
      { DIGITAL_HUMANS_FILE: file("dh-name.json", { digital_humans: [{ id: AVA_ID, name: "", agent_name: "ava" }] }) },
      /^DIGITAL_HUMANS_FILE: digital_humans\[0\]\.name must be 1-100 characters, no control character$/,
    ],
    [
      "DIGITAL_HUMANS_FILE",
      { DIGITAL_HUMANS_FILE: file("dh-agent.json", { digital_humans: [{ id: AVA_ID, name: "Ava" }] }) },
      /^DIGITAL_HUMANS_FILE: digital_humans\[0\]\.agent_name must be a non-empty string$/,
    ],
    [
      "DIGITAL_HUMANS_FILE",
      {
        DIGITAL_HUMANS_FILE: file("dh-description.json", {
          digital_humans: [{ id: AVA_ID, name: "Ava", agent_name: "ava", description: "x".repeat(501) }],
        }),
      },
      /^DIGITAL_HUMANS_FILE: digital_humans\[0\]\.description must be a string of 1-500 characters, no control character$/,
    ],
    [
      "DIGITAL_HUMANS_FILE",
      { DIGITAL_HUMANS_FILE: file("dh-long-name.json", { digital_humans: [{ id: AVA_ID, name: "x".repeat(101), agent_name: "ava" }] }) },
      /^DIGITAL_HUMANS_FILE: digital_humans\[0\]\.name must be 1-100 characters, no control character$/,
    ],
    [
      "DIGITAL_HUMANS_FILE",
      { DIGITAL_HUMANS_FILE: file("dh-voice.json", { digital_humans: [{ id: AVA_ID, name: "Ava", agent_name: "ava", voice: "nope" }] }) },
      'DIGITAL_HUMANS_FILE: digital_humans[0].voice "nope" is not one of the voices',
    ],
    [
      "DIGITAL_HUMANS_FILE",
      { DIGITAL_HUMANS_FILE: file("dh-lang.json", { digital_humans: [{ id: AVA_ID, name: "Ava", agent_name: "ava", language: "fr" }] }) },
      'DIGITAL_HUMANS_FILE: digital_humans[0].language "fr" is not its voice\'s (en)',
    ],
    [
      "DIGITAL_HUMANS_FILE",
      {
        DIGITAL_HUMANS_FILE: file("dh-greeting.json", {
          digital_humans: [{ id: AVA_ID, name: "Ava", agent_name: "ava", greeting: "Hi\u0007" }],
        }),
      },
      /^DIGITAL_HUMANS_FILE: digital_humans\[0\]\.greeting must be null or 1-1000 characters, no control character$/,
    ],
    [
      "DIGITAL_HUMANS_FILE",
      {
        DIGITAL_HUMANS_FILE: file("dh-duration.json", {
          digital_humans: [{ id: AVA_ID, name: "Ava", agent_name: "ava", max_session_duration_s: 0 }],
        }),
      },
      /^DIGITAL_HUMANS_FILE: digital_humans\[0\]\.max_session_duration_s must be null or an integer from 1 to 86400$/,
    ],
    [
      "DIGITAL_HUMANS_FILE",
      { DIGITAL_HUMANS_FILE: file("dh-voices.json", { digital_humans: [{ id: AVA_ID, name: "Ava", agent_name: "ava" }], voices: [] }) },
      /^DIGITAL_HUMANS_FILE: "voices" must be a list of at least one voice$/,
    ],
    [
      "DIGITAL_HUMANS_FILE",
      {
        DIGITAL_HUMANS_FILE: file("dh-voice-id.json", {
          digital_humans: [{ id: AVA_ID, name: "Ava", agent_name: "ava" }],
          voices: [{ id: "Bad Voice", name: "B", language: "en" }],
        }),
      },
      /^DIGITAL_HUMANS_FILE: voices\[0\]\.id must be 1-64 characters of a-z 0-9 _ \. - \(a voice id\)$/,
    ],
    [
      "DIGITAL_HUMANS_FILE",
      {
        DIGITAL_HUMANS_FILE: file("dh-voice-twice.json", {
          digital_humans: [{ id: AVA_ID, name: "Ava", agent_name: "ava" }],
          voices: [
            { id: "slt", name: "A", language: "en" },
            { id: "slt", name: "B", language: "en" },
          ],
        }),
      },
      'DIGITAL_HUMANS_FILE: voices[1].id "slt" is listed twice',
    ],
    [
      "DIGITAL_HUMANS_FILE",
      {
        DIGITAL_HUMANS_FILE: file("dh-voice-provider.json", {
          digital_humans: [{ id: AVA_ID, name: "Ava", agent_name: "ava" }],
          voices: [{ id: "nova", name: "Nova", language: "en" }],
        }),
      },
      "DIGITAL_HUMANS_FILE: voices[0].provider is missing (flite, espeak, openai, elevenlabs, deepgram)",
    ],
    [
      "DIGITAL_HUMANS_FILE",
      {
        DIGITAL_HUMANS_FILE: file("dh-voice-provider-voice.json", {
          digital_humans: [{ id: AVA_ID, name: "Ava", agent_name: "ava" }],
          voices: [{ id: "slt", name: "SLT", language: "en", provider: "openai" }],
        }),
      },
      "DIGITAL_HUMANS_FILE: voices[0].provider_voice is missing: the voice as openai names it",
    ],
    [
      "DIGITAL_HUMANS_FILE",
      {
        DIGITAL_HUMANS_FILE: file("dh-voice-bad-provider.json", {
          digital_humans: [{ id: AVA_ID, name: "Ava", agent_name: "ava" }],
          voices: [{ id: "slt", name: "SLT", language: "en", provider: "polly" }],
        }),
      },
      /^DIGITAL_HUMANS_FILE: voices\[0\]\.provider must be one of flite, espeak, openai, elevenlabs, deepgram$/,
    ],
    [
      "DIGITAL_HUMANS_FILE",
      {
        DIGITAL_HUMANS_FILE: file("dh-unheard.json", {
          digital_humans: [{ id: AVA_ID, name: "Sofía", agent_name: "ava", voice: "espeak-es" }],
        }),
      },
      'DIGITAL_HUMANS_FILE: digital_humans[0].language "es" is not a language this deployment hears: en (PocketSphinx, offline',
    ],
    [
      "DIGITAL_HUMANS_FILE",
      {
        DIGITAL_HUMANS_FILE: file("dh-hearing.json", {
          digital_humans: [{ id: AVA_ID, name: "Ava", agent_name: "ava" }],
          hearing_languages: [],
        }),
      },
      /^DIGITAL_HUMANS_FILE: "hearing_languages" must be a list of at least one BCP 47 language tag/,
    ],
  ])("refuses a bad %s with one line naming it", (_name, env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it.each([
    ["REDIS_URL", { REDIS_URL: "" }, "REDIS_URL must be set in production (the in-memory store is for development only)"],
    [
      "DATABASE_URL",
      { DATABASE_URL: "" },
      "DATABASE_URL must be set in production (production's record of history, configuration and knowledge is PostgreSQL)",
    ],
    ["API_KEYS_FILE", { API_KEYS_FILE: "" }, "API_KEYS_FILE must be set in production (the embedded development key is public)"],
    ["LIVEKIT_URL", { LIVEKIT_URL: "" }, "LIVEKIT_URL must be set in production (browsers cannot reach the development default)"],
    [
      "LIVEKIT_API_KEY",
      { LIVEKIT_API_KEY: "" },
      "LIVEKIT_API_KEY and LIVEKIT_API_SECRET must be set in production (the development credentials are public)",
    ],
    [
      "LIVEKIT_API_SECRET",
      { LIVEKIT_API_SECRET: "secret" },
      "LIVEKIT_API_KEY and LIVEKIT_API_SECRET must be set in production (the development credentials are public)",
    ],
    [
      "WEBHOOK_ALLOW_PRIVATE_URLS",
      { WEBHOOK_ALLOW_PRIVATE_URLS: "true" },
      "WEBHOOK_ALLOW_PRIVATE_URLS must not be true in production (endpoints could reach internal addresses)",
    ],
  ])("production refuses the development default of %s", (_name, override, message) => {
    expect(() => loadConfig({ ...PRODUCTION, ...override })).toThrow(new ConfigError(message));
  });
});
