/**
 * Every store the service uses, made once from the configuration: in production on Redis and PostgreSQL
 * together (REDIS_URL and DATABASE_URL), in process memory otherwise (development, the demo, tests).
 * PostgreSQL is the record of what customers made (digital humans, webhook endpoints and their delivery
 * logs, memories, documents) and of ended sessions (their transcripts, tool calls, usage), read behind
 * Redis and written from its queue; Redis keeps what is live (one connection, shared by the session,
 * webhook and transcript stores and the rate limiter) and one copy, the webhook endpoints', which a
 * session change's script routes its events by. The only place that decides between them; compose.ts
 * wires what it returns.
 */
import type { Cluster, Redis } from "ioredis";
import type { Logger } from "pino";
import { type Config, ConfigError, VARIABLES } from "../config.js";
import type { RateLimiter } from "../domain/accounts/rate-limiter.js";
import type { ConversationStore } from "../domain/conversation/ports.js";
import type { WebhookStore } from "../domain/customer-webhooks/ports.js";
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
import { connectLoggedDatabase, connectLoggedRedis } from "./logged-connections.js";
import { MemoryConversationStore } from "./memory/conversation-store.js";
import { MemoryWebhookStore } from "./memory/customer-webhook-store.js";
import { MemoryDigitalHumanStore } from "./memory/digital-human-store.js";
import { MemoryKnowledgeStore } from "./memory/knowledge-store.js";
import { MemoryParticipantMemories } from "./memory/participant-memory-store.js";
import { MemoryRecordingExpiries } from "./memory/recording-expiries.js";
import { MemorySessionStore } from "./memory/session-store.js";
import { MemoryTranscriptStore } from "./memory/transcript-store.js";
import type { Database } from "./postgres/database.js";
import { PostgresKnowledgeStore } from "./postgres/knowledge-store.js";
import { PostgresParticipantMemories } from "./postgres/participant-memory-store.js";
import { DatabaseSchema } from "./postgres/schema-version.js";
import { PostgresSessionHistory } from "./postgres/session-history.js";
import { PostgresToolCallHistory } from "./postgres/tool-call-history.js";
import { PostgresTranscriptHistory } from "./postgres/transcript-history.js";
import { PostgresUsageHistory } from "./postgres/usage-history.js";
import { FlexibleRateLimiter } from "./rate-limiter.js";
import { RedisConversationStore } from "./redis/conversation-store.js";
import { StoreLayout } from "./redis/layout-version.js";
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
  /** The history database and the live store's side of what moves there; undefined in memory. */
  history: Omit<HistoryParts, "leases"> | undefined;
  /** The accounts' documents and their passages: PostgreSQL's, or memory's. */
  knowledge: KnowledgeStore;
  /** Ended sessions' tool calls in the history database; undefined in memory. */
  toolCallHistory: ToolCallHistory | undefined;
  /** What digital humans remember about participants: PostgreSQL's, or memory's. */
  memories: MemoryStore;
  /** When ready recordings' files are deleted: Redis's, or memory's. */
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
  const { redisUrl } = config;
  const databaseUrl = config.database.url;
  // Both or neither (config.ts refuses one alone): Redis is never the record of what customers made.
  if ((redisUrl === undefined) !== (databaseUrl === undefined)) throw new ConfigError("REDIS_URL and DATABASE_URL go together");
  const made = redisUrl && databaseUrl ? onRedisAndPostgres(redisUrl, databaseUrl, config, options) : inMemory(options);
  const { rateLimit } = config;
  const rateLimiter = rateLimit.enabled
    ? new FlexibleRateLimiter({ perSecond: rateLimit.perSecond, burst: rateLimit.burst, keyPrefix: config.redisKeyPrefix }, made.redis)
    : undefined;
  // A store of the caller's pings its own connection, not ours, which the others share.
  const { redis, db, sessions } = made;
  const schema = db ? new DatabaseSchema(db) : undefined;
  const readiness = new StoreReadiness(
    sessions,
    options.sessions ? redis : undefined,
    new StoreLayout(redis, config.redisKeyPrefix),
    schema,
  );
  return {
    ...made.stores,
    sessions,
    rateLimiter,
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

type MadeStores = Omit<Stores, "sessions" | "rateLimiter" | "connection">;

interface Made {
  redis: Redis | Cluster | undefined;
  db: Database | undefined;
  sessions: SessionStore;
  stores: MadeStores;
}

/**
 * Production's: PostgreSQL the record of what customers made and of ended sessions, Redis what is live,
 * the history's queue, and the one copy a session change's script must read (the webhook endpoints, by
 * which it routes its events in the same step).
 */
function onRedisAndPostgres(redisUrl: string, databaseUrl: string, config: StoreConfig, options: StoreOptions): Made {
  const redis = connectLoggedRedis(redisUrl, { mode: config.redisMode, commandTimeoutMs: config.redisCommandTimeoutMs }, options);
  const { poolSize, statementTimeoutMs } = config.database;
  const db = connectLoggedDatabase(databaseUrl, { poolSize, statementTimeoutMs }, options);
  const prefix = config.redisKeyPrefix;
  const { tracing } = options;
  const stepSkipped = loggedAndCounted(options.logger, options.metrics);
  const memories = new PostgresParticipantMemories(db);
  const history = { sessions: new PostgresSessionHistory(db, historyBounds(config)), usage: new PostgresUsageHistory(db), memories };
  const webhooks = webhookRecord(redis, prefix, db, tracing, stepSkipped);
  const redisSessions = new RedisSessionStore(redis, { prefix, onStepSkipped: stepSkipped, history, ...(tracing ? { tracing } : {}) });
  const live = options.sessions instanceof RedisSessionStore ? options.sessions : redisSessions;
  return {
    redis,
    db,
    sessions: options.sessions ?? redisSessions,
    stores: {
      digitalHumans: new PostgresDigitalHumanStore(db, redis, prefix, stepSkipped),
      webhooks: webhooks.store,
      transcripts: new HistoryTranscriptStore(
        new RedisTranscriptStore(redis, prefix, true),
        new PostgresTranscriptHistory(db, historyBounds(config)),
      ),
      conversations: new RedisConversationStore(redis, prefix, tracing),
      knowledge: new PostgresKnowledgeStore(db),
      toolCallHistory: new PostgresToolCallHistory(db, historyBounds(config)),
      memories,
      recordingExpiries: new RedisRecordingExpiries(redis, prefix),
      history: { ...history, queue: live.historyQueue, usageMoves: live.usageMoves, webhooks: webhooks.copier },
    },
  };
}

/** Development's, the demo's and the tests': everything in this process, gone with it. */
function inMemory(options: StoreOptions): Made {
  // The session store queues webhook events in the webhook store's maps, in the same step.
  const webhooks = new MemoryWebhookStore();
  const memorySessions = new MemorySessionStore(Date.now, webhooks);
  // The conversation's timer is a session timer: it lives where the session store keeps them.
  const timers = options.sessions instanceof MemorySessionStore ? options.sessions.state : memorySessions.state;
  return {
    redis: undefined,
    db: undefined,
    sessions: options.sessions ?? memorySessions,
    stores: {
      digitalHumans: new MemoryDigitalHumanStore(),
      webhooks,
      transcripts: new MemoryTranscriptStore(),
      conversations: new MemoryConversationStore(webhooks, timers),
      knowledge: new MemoryKnowledgeStore(),
      toolCallHistory: undefined,
      memories: new MemoryParticipantMemories(),
      recordingExpiries: new MemoryRecordingExpiries(),
      history: undefined,
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
