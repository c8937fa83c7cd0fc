/**
 * The service's configuration, read from the environment once, at start: every variable as declared in
 * config/variables.ts (production refusing the development defaults), the rules between them
 * (config/cross-variable-rules.ts), and the operator's files they name (config/operator-files.ts). A bad
 * value stops the start with one ConfigError line that names the variable. `Config` is what this
 * assembles: its types come from the variables' parsers and the files' records, never restated.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkCrossVariableRules } from "./config/cross-variable-rules.js";
import { readOperatorFiles } from "./config/operator-files.js";
import { readVariables } from "./config/variables.js";

export { ConfigError } from "./config/config-error.js";
export { VARIABLES } from "./config/variables.js";

export type Config = ReturnType<typeof loadConfig>;

/** standalone: REDIS_URL is one server; cluster: REDIS_URL lists one or more seed nodes of a Redis Cluster. */
export type RedisMode = Config["redisMode"];

export function loadConfig(env: Record<string, string | undefined> = process.env) {
  const s = readVariables(env);
  checkCrossVariableRules(s);
  return {
    nodeEnv: s.NODE_ENV,
    production: s.NODE_ENV === "production",
    port: s.PORT,
    host: s.HOST,
    metricsPort: s.METRICS_PORT,
    /** Bounds on slow or idle clients, per process. */
    connections: {
      headersTimeoutMs: s.HEADERS_TIMEOUT_S * 1000,
      requestTimeoutMs: s.REQUEST_TIMEOUT_S * 1000,
      maxConnections: s.MAX_CONNECTIONS,
    },
    logLevel: s.LOG_LEVEL,
    /** How long SIGTERM waits for in-flight requests before closing them. */
    shutdownGraceMs: s.SHUTDOWN_GRACE_MS,
    /** Undefined: the in-memory store (development only). */
    redisUrl: s.REDIS_URL,
    redisMode: s.REDIS_MODE,
    redisCommandTimeoutMs: s.REDIS_COMMAND_TIMEOUT_MS,
    /** Prefix of every Redis key, so deployments can share one Redis. */
    redisKeyPrefix: s.REDIS_KEY_PREFIX,
    /** PostgreSQL, the record (with Redis; neither: everything in process memory). */
    database: {
      url: s.DATABASE_URL,
      poolSize: s.DATABASE_POOL_SIZE,
      statementTimeoutMs: s.DATABASE_STATEMENT_TIMEOUT_MS,
      /** How long an ended session stays in Redis once written (ms). */
      redisKeepMs: s.HISTORY_REDIS_KEEP_S * 1000,
    },
    livekit: {
      /** Returned to callers as rtc_url. */
      url: s.LIVEKIT_URL,
      // LiveKit serves its API on the same address as its WebSocket, over HTTP.
      apiUrl: s.LIVEKIT_API_URL ?? s.LIVEKIT_URL.replace(/^ws(s?):/, "http$1:"),
      apiKey: s.LIVEKIT_API_KEY,
      apiSecret: s.LIVEKIT_API_SECRET,
      timeoutMs: s.LIVEKIT_TIMEOUT_MS,
      /** How long a LiveKit event id is remembered (s). */
      webhookDedupeS: s.LIVEKIT_WEBHOOK_DEDUPE_S,
    },
    ...readOperatorFiles({ apiKeysFile: s.API_KEYS_FILE, digitalHumansFile: s.DIGITAL_HUMANS_FILE }),
    /** Open sessions an account may have unless the keys file names another number for it. */
    accountMaxOpenSessions: s.ACCOUNT_MAX_OPEN_SESSIONS,
    /** Open sessions an account's test keys may have (test data is apart from live data). */
    testMaxOpenSessions: s.TEST_MAX_OPEN_SESSIONS,
    /** Digital humans of its own an account may have in each mode. */
    accountMaxDigitalHumans: s.ACCOUNT_MAX_DIGITAL_HUMANS,
    participantTokenTtlS: s.PARTICIPANT_TOKEN_TTL_S,
    sessionJoinTimeoutS: s.SESSION_JOIN_TIMEOUT_S,
    digitalHumanJoinTimeoutS: s.DIGITAL_HUMAN_JOIN_TIMEOUT_S,
    sessionMaxDurationS: s.SESSION_MAX_DURATION_S,
    testSessionMaxDurationS: s.TEST_SESSION_MAX_DURATION_S,
    sessionDepartureTimeoutS: s.SESSION_DEPARTURE_TIMEOUT_S,
    digitalHumanRedispatchS: s.DIGITAL_HUMAN_REDISPATCH_S,
    sessionRetentionS: s.SESSION_RETENTION_S,
    transcriptGraceS: s.TRANSCRIPT_GRACE_S,
    /** The LLM sessions' analyses ask (undefined: none is configured). */
    analysis: {
      baseUrl: s.OPENAI_BASE_URL,
      apiKey: s.OPENAI_API_KEY,
      model: s.ANALYSIS_MODEL,
      timeoutMs: s.ANALYSIS_TIMEOUT_S * 1000,
      retryMs: s.ANALYSIS_RETRY_S * 1000,
    },
    /** How long a participant's memory is kept after their last session or its last change (ms). */
    memoryRetentionMs: s.MEMORY_RETENTION_DAYS * 86_400_000,
    /** Where recordings are kept, and for how long (contract guide, "Recordings"). */
    recordings: {
      dir: s.RECORDING_DIR || join(tmpdir(), "dhs-recordings"),
      /** Undefined: derived from the port the service listens on. */
      publicUrl: s.RECORDING_PUBLIC_URL,
      s3: s.RECORDING_S3_BUCKET
        ? {
            bucket: s.RECORDING_S3_BUCKET,
            endpoint: s.RECORDING_S3_ENDPOINT,
            region: s.RECORDING_S3_REGION,
            prefix: s.RECORDING_S3_PREFIX,
            forcePathStyle: s.RECORDING_S3_FORCE_PATH_STYLE,
          }
        : undefined,
      urlTtlS: s.RECORDING_URL_TTL_S,
      deliveryTimeoutMs: s.RECORDING_DELIVERY_TIMEOUT_S * 1000,
      retentionMs: s.RECORDING_RETENTION_DAYS * 86_400_000,
    },
    /** The bounds of a session's conversation (say, addSessionContext). */
    conversation: {
      maxQueued: s.CONVERSATION_QUEUE_MAX,
      charactersPerMinute: s.CONVERSATION_CHARACTERS_PER_MINUTE,
      sayTtlMs: s.SAY_TTL_S * 1000,
      maxNotes: s.CONVERSATION_MAX_NOTES,
    },
    idempotencyKeyTtlS: s.IDEMPOTENCY_KEY_TTL_S,
    idempotencyLockTtlS: s.IDEMPOTENCY_LOCK_TTL_S,
    /** How often each replica looks for due session timers. */
    sweepIntervalMs: s.SWEEP_INTERVAL_MS,
    roomReconcileIntervalMs: s.ROOM_RECONCILE_INTERVAL_S * 1000,
    /** Per-API-key limits; enabled unless RATE_LIMIT_ENABLED=false. */
    rateLimit: { enabled: s.RATE_LIMIT_ENABLED, perSecond: s.RATE_LIMIT_PER_SECOND, burst: s.RATE_LIMIT_BURST },
    /** Check every response against the contract (tests; costs CPU). */
    validateResponses: s.VALIDATE_RESPONSES,
    webhooks: {
      retryDelaysS: s.WEBHOOK_RETRY_DELAYS_S,
      attemptTimeoutMs: s.WEBHOOK_ATTEMPT_TIMEOUT_S * 1000,
      concurrency: s.WEBHOOK_CONCURRENCY,
      disableAfterMs: s.WEBHOOK_DISABLE_AFTER_S * 1000,
      /** Endpoints on internal addresses and over plain http (never in production). */
      allowPrivateUrls: s.WEBHOOK_ALLOW_PRIVATE_URLS,
    },
  };
}
