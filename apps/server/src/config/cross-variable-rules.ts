/**
 * What no single variable can say: the rules between variables, checked once each has been read on its
 * own (variables.ts). Each broken rule stops the start with one line naming the variables.
 */
import { ConfigError } from "./config-error.js";
import { type Settings, VARIABLES } from "./variables.js";

export function checkCrossVariableRules(settings: Settings): void {
  const production = settings.NODE_ENV === "production";
  const devKey = settings.LIVEKIT_API_KEY === VARIABLES.LIVEKIT_API_KEY.default;
  if (production && (devKey || settings.LIVEKIT_API_SECRET === VARIABLES.LIVEKIT_API_SECRET.default)) {
    throw new ConfigError("LIVEKIT_API_KEY and LIVEKIT_API_SECRET must be set in production (the development credentials are public)");
  }
  if (production && settings.WEBHOOK_ALLOW_PRIVATE_URLS) {
    // An API key would let anyone make the service post to the deployment's own network.
    throw new ConfigError("WEBHOOK_ALLOW_PRIVATE_URLS must not be true in production (endpoints could reach internal addresses)");
  }
  if (settings.REDIS_MODE === "standalone" && settings.REDIS_URL?.includes(",")) {
    throw new ConfigError("REDIS_URL lists several servers: set REDIS_MODE=cluster to use them as Redis Cluster seed nodes");
  }
  if (settings.REDIS_URL !== undefined && settings.DATABASE_URL === undefined) {
    // Redis holds what is live and the copies its scripts read; the record of what customers made is PostgreSQL's.
    throw new ConfigError(
      "REDIS_URL needs DATABASE_URL: PostgreSQL is the record of the digital humans, webhook endpoints, memories, documents and ended sessions",
    );
  }
  if (settings.DATABASE_URL !== undefined && settings.REDIS_URL === undefined) {
    // The queue of sessions to write, and everything live, are in Redis.
    throw new ConfigError("DATABASE_URL needs REDIS_URL: sessions are live in Redis and written to PostgreSQL from a queue there");
  }
  if (settings.DATABASE_URL !== undefined && settings.HISTORY_REDIS_KEEP_S <= settings.TRANSCRIPT_GRACE_S) {
    // A transcript completes, and its session changes once more, in Redis.
    throw new ConfigError("HISTORY_REDIS_KEEP_S must be longer than TRANSCRIPT_GRACE_S");
  }
  if (settings.DATABASE_URL !== undefined && settings.HISTORY_REDIS_KEEP_S <= settings.RECORDING_DELIVERY_TIMEOUT_S) {
    // A recording is settled, and its session changes once more, in Redis.
    throw new ConfigError("HISTORY_REDIS_KEEP_S must be longer than RECORDING_DELIVERY_TIMEOUT_S");
  }
  if (settings.RATE_LIMIT_BURST < settings.RATE_LIMIT_PER_SECOND) {
    throw new ConfigError("RATE_LIMIT_BURST must be at least RATE_LIMIT_PER_SECOND");
  }
  if (settings.REQUEST_TIMEOUT_S < settings.HEADERS_TIMEOUT_S) {
    throw new ConfigError("REQUEST_TIMEOUT_S must be at least HEADERS_TIMEOUT_S");
  }
  if (settings.SESSION_RETENTION_S < settings.IDEMPOTENCY_KEY_TTL_S) {
    // A replayed create must find the session its key made.
    throw new ConfigError("SESSION_RETENTION_S must be at least IDEMPOTENCY_KEY_TTL_S");
  }
  if (settings.IDEMPOTENCY_LOCK_TTL_S * 1000 <= settings.LIVEKIT_TIMEOUT_MS + settings.REDIS_COMMAND_TIMEOUT_MS * 2) {
    // A lock that can expire while its request still waits on LiveKit would let a retry create twice.
    throw new ConfigError("IDEMPOTENCY_LOCK_TTL_S must be longer than LIVEKIT_TIMEOUT_MS plus two REDIS_COMMAND_TIMEOUT_MS");
  }
}
