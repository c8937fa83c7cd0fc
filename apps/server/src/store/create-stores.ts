/**
 * Every store the service uses, made once from the configuration: on Redis (one connection, shared by the
 * session, webhook and transcript stores and the rate limiter) when REDIS_URL is set, in process memory
 * otherwise; with DATABASE_URL, PostgreSQL keeps the history (ended sessions, their transcripts, usage),
 * read behind Redis and written from its queue, the record of the accounts' digital humans and webhook
 * endpoints (with their delivery logs; Redis a copy of the endpoints, which session scripts read), and the
 * accounts' documents (knowledge). The only place that decides between them; compose.ts wires what it returns.
 */
import type { Logger } from "pino";
import { type Config, VARIABLES } from "../config.js";
import type { RateLimiter } from "../domain/accounts/rate-limiter.js";
import type { ConversationStore } from "../domain/conversation/ports.js";
import type { WebhookRecordSync, WebhookStore } from "../domain/customer-webhooks/ports.js";
import type { DigitalHumanStore } from "../domain/digital-humans/ports.js";
import type { KnowledgeStore } from "../domain/knowledge/ports.js";
import type { MemoryStore } from "../domain/memories/ports.js";
import type { RecordingExpiries } from "../domain/recordings/ports.js";
import type { SessionStore } from "../domain/sessions/ports.js";
import type { ToolCallHistory } from "../domain/tools/ports.js";
import type { TranscriptStore } from "../domain/transcripts/ports.js";
import type { Tracing } from "../tracing/tracing.js";
import type { HistoryParts } from "../workers/history-writer.js";
import { HistoryTranscriptStore } from "./history-transcript-store.js";
import { PostgresDigitalHumanStore } from "./hybrid/digital-human-store.js";
import { webhookRecord } from "./hybrid/webhook-record.js";
import { MemoryConversationStore } from "./memory/conversation-store.js";
import { MemoryWebhookStore } from "./memory/customer-webhook-store.js";
import { MemoryDigitalHumanStore } from "./memory/digital-human-store.js";
import { MemoryKnowledgeStore } from "./memory/knowledge-store.js";
import { MemoryParticipantMemories } from "./memory/participant-memory-store.js";
import { MemoryRecordingExpiries } from "./memory/recording-expiries.js";
import { MemorySessionStore } from "./memory/session-store.js";
import { MemoryTranscriptStore } from "./memory/transcript-store.js";
import { connectDatabase, type Database } from "./postgres/database.js";
import { PostgresKnowledgeStore } from "./postgres/knowledge-store.js";
import { PostgresParticipantMemories } from "./postgres/participant-memory-store.js";
import { DatabaseSchema } from "./postgres/schema-version.js";
import { PostgresSessionHistory } from "./postgres/session-history.js";
import { PostgresToolCallHistory } from "./postgres/tool-call-history.js";
import { PostgresTranscriptHistory } from "./postgres/transcript-history.js";
import { PostgresUsageHistory } from "./postgres/usage-history.js";
import { FlexibleRateLimiter } from "./rate-limiter.js";
import { connectRedis } from "./redis/client.js";
import { RedisConversationStore } from "./redis/conversation-store.js";
import { RedisWebhookStore } from "./redis/customer-webhook-store.js";
import { RedisDigitalHumanStore } from "./redis/digital-humans/digital-human-store.js";
import { StoreLayout } from "./redis/layout-version.js";
import { RedisParticipantMemories } from "./redis/participant-memory-store.js";
import { RedisRecordingExpiries } from "./redis/recording-expiries.js";
import { RedisSessionStore } from "./redis/session-store.js";
import { RedisTranscriptStore } from "./redis/transcript-store.js";
import { loggedAndCounted, type SkippedStep } from "./skipped-steps.js";
import { StoreReadiness } from "./store-readiness.js";

/** What of the configuration the stores are made from. */
export type StoreConfig = Pick<
  Config,
  | "redisUrl"
  | "redisMode"
  | "redisCommandTimeoutMs"
  | "redisKeyPrefix"
  | "rateLimit"
  | "database"
  | "sessionRetentionS"
  | "sessionJoinTimeoutS"
  | "sessionDepartureTimeoutS"
>;

export interface StoreOptions {
  /** Where the Redis connection's errors are logged, one line per distinct error. */
  logger: Logger;
  metrics: { redisError(): void; databaseError(): void; storeStepSkipped(step: SkippedStep): void };
  /** Spans of the Redis scripts. */
  tracing?: Tracing | undefined;
  /** A session store of the caller's (a test's), used instead of the one made here; it closes its own connection. */
  sessions?: SessionStore | undefined;
}

export interface Stores {
  sessions: SessionStore;
  /** The accounts' own digital humans. */
  digitalHumans: DigitalHumanStore;
  webhooks: WebhookStore;
  transcripts: TranscriptStore;
  /** Each session's conversation as its backend drives it. */
  conversations: ConversationStore;
  /** Per-API-key rate limits on the same store; undefined when they are off. */
  rateLimiter: RateLimiter | undefined;
  /** The history database and the live store's side of what moves there; undefined without DATABASE_URL. */
  history: Omit<HistoryParts, "leases"> | undefined;
  /** The accounts' documents and their passages: PostgreSQL's, memory's; undefined on Redis without DATABASE_URL. */
  knowledge: KnowledgeStore | undefined;
  /** Ended sessions' tool calls in the history database; undefined without DATABASE_URL. */
  toolCallHistory: ToolCallHistory | undefined;
  /** What digital humans remember about participants: PostgreSQL's with DATABASE_URL (months outlive Redis's keeping), else Redis's, else memory's. */
  memories: MemoryStore;
  /** When ready recordings' files are deleted: Redis's, else memory's. */
  recordingExpiries: RecordingExpiries;
  connection: StoresConnection;
}

/** The stores as one dependency: whether they can be used, waiting until they can, closing them. */
export interface StoresConnection {
  /** Rejects with DependencyUnavailableError unless the store answers and holds this server's key layout. */
  ready(): Promise<void>;
  /** See Composed.waitForStore. */
  waitFor(timeoutMs: number, pollMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export function createStores(config: StoreConfig, options: StoreOptions): Stores {
  const redis = config.redisUrl ? connectLoggedRedis(config.redisUrl, config, options) : undefined;
  const prefix = config.redisKeyPrefix;
  const { tracing } = options;
  const stepSkipped = loggedAndCounted(options.logger, options.metrics);
  const db = config.database.url ? connectLoggedDatabase(config.database.url, config, options) : undefined;
  const postgresMemories = db ? new PostgresParticipantMemories(db) : undefined;
  const history = db
    ? { sessions: new PostgresSessionHistory(db, historyBounds(config)), usage: new PostgresUsageHistory(db), memories: postgresMemories }
    : undefined;
  let live: RedisSessionStore | undefined;
  let sessions: SessionStore;
  let webhooks: WebhookStore;
  let transcripts: TranscriptStore;
  let digitalHumans: DigitalHumanStore;
  let conversations: ConversationStore;
  let webhookSync: WebhookRecordSync | undefined;
  if (redis) {
    // With the history database, it is their record; Redis keeps their creates' keys (and no copy).
    digitalHumans = db ? new PostgresDigitalHumanStore(db, redis, prefix, stepSkipped) : new RedisDigitalHumanStore(redis, prefix, tracing);
    if (db) {
      // With the history database, it is the endpoints' record; Redis keeps a copy and the deliveries.
      const record = webhookRecord(redis, prefix, db, tracing, stepSkipped);
      webhooks = record.store;
      webhookSync = record.copier;
    } else {
      webhooks = new RedisWebhookStore(redis, prefix, tracing);
    }
    const redisSessions = new RedisSessionStore(redis, {
      prefix,
      onStepSkipped: stepSkipped,
      ...(tracing ? { tracing } : {}),
      ...(history ? { history } : {}),
    });
    sessions = options.sessions ?? redisSessions;
    live = options.sessions instanceof RedisSessionStore ? options.sessions : redisSessions;
    const redisTranscripts = new RedisTranscriptStore(redis, prefix, history !== undefined);
    transcripts = db
      ? new HistoryTranscriptStore(redisTranscripts, new PostgresTranscriptHistory(db, historyBounds(config)))
      : redisTranscripts;
    conversations = new RedisConversationStore(redis, prefix, tracing);
  } else {
    // In memory, the session store queues webhook events in the webhook store's maps, in the same step.
    const memoryHooks = new MemoryWebhookStore();
    digitalHumans = new MemoryDigitalHumanStore();
    webhooks = memoryHooks;
    const memorySessions = new MemorySessionStore(Date.now, memoryHooks);
    sessions = options.sessions ?? memorySessions;
    transcripts = new MemoryTranscriptStore();
    // The conversation's timer is a session timer: it lives where the session store keeps them.
    const timers = options.sessions instanceof MemorySessionStore ? options.sessions.state : memorySessions.state;
    conversations = new MemoryConversationStore(memoryHooks, timers);
  }
  const { rateLimit } = config;
  const rateLimiter = rateLimit.enabled
    ? new FlexibleRateLimiter({ perSecond: rateLimit.perSecond, burst: rateLimit.burst, keyPrefix: prefix }, redis)
    : undefined;
  // A store of the caller's pings its own connection, not ours, which the others share.
  const schema = db ? new DatabaseSchema(db) : undefined;
  const readiness = new StoreReadiness(sessions, options.sessions ? redis : undefined, new StoreLayout(redis, prefix), schema);
  return {
    sessions,
    digitalHumans,
    webhooks,
    transcripts,
    conversations,
    rateLimiter,
    // Without Redis everything is in memory, knowledge too; on Redis, knowledge needs PostgreSQL.
    knowledge: db ? new PostgresKnowledgeStore(db) : redis ? undefined : new MemoryKnowledgeStore(),
    toolCallHistory: db ? new PostgresToolCallHistory(db, historyBounds(config)) : undefined,
    memories: postgresMemories ?? (redis ? new RedisParticipantMemories(redis, prefix, tracing) : new MemoryParticipantMemories()),
    recordingExpiries: redis ? new RedisRecordingExpiries(redis, prefix) : new MemoryRecordingExpiries(),
    history: history && live ? { ...history, queue: live.historyQueue, usageMoves: live.usageMoves, webhooks: webhookSync } : undefined,
    connection: {
      ready: () => readiness.ready(),
      waitFor: (timeoutMs, pollMs) => readiness.waitFor(timeoutMs, pollMs),
      close: async () => {
        await sessions.close();
        // The session store closes the connection it was given; a store of the caller's leaves ours open.
        if (options.sessions && redis) await redis.quit().catch(() => redis.disconnect());
        await db?.end();
      },
    },
  };
}

/**
 * What the history keeps and for how long: a session's retention after its end, and the longest it can
 * run before it (any account's: an account's keys may allow the variable's maximum), so that a day's
 * partition is dropped only once every session created that day is past its retention.
 */
function historyBounds(config: StoreConfig): { retentionMs: number; maxLifeMs: number } {
  const longestS = config.sessionJoinTimeoutS + VARIABLES.SESSION_MAX_DURATION_S.max + config.sessionDepartureTimeoutS;
  return { retentionMs: config.sessionRetentionS * 1000, maxLifeMs: longestS * 1000 };
}

function connectLoggedDatabase(url: string, config: StoreConfig, { logger, metrics }: StoreOptions): Database {
  let lastError = "";
  return connectDatabase({
    url,
    poolSize: config.database.poolSize,
    statementTimeoutMs: config.database.statementTimeoutMs,
    // One line per distinct error of an idle connection (the address, which may hold a password, never).
    onError: (err) => {
      metrics.databaseError();
      if (err.message === lastError) return;
      lastError = err.message;
      logger.warn({ err: { message: err.message } }, "postgres connection error");
    },
  });
}

function connectLoggedRedis(url: string, config: StoreConfig, { logger, metrics }: StoreOptions): ReturnType<typeof connectRedis> {
  let lastError = "";
  return connectRedis({
    url,
    mode: config.redisMode,
    commandTimeoutMs: config.redisCommandTimeoutMs,
    // One line per distinct connection error, not one per reconnect attempt.
    onError: (err) => {
      metrics.redisError();
      if (err.message === lastError) return;
      lastError = err.message;
      logger.warn({ err: { message: err.message } }, "redis connection error");
    },
  });
}
