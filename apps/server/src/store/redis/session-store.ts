/**
 * The session store on Redis (or Redis Cluster), assembled from one part per port (sessions/). A session
 * lives in its shard's slot with its timers, the Idempotency-Key that created it and the customer webhook
 * deliveries it causes; its account keeps only what its concurrency cap needs and its usage; its ended
 * sessions are listed per account and day. Each step within one slot is one Lua script
 * (sessions/*-scripts.ts); the steps across slots, a create's (sessions/idempotent-creates.ts) and an
 * end's (sessions/session-records.ts), are ordered so that a crash between any two of them leaves nothing
 * a reader could misread, and what it leaves counted is repaired (sessions/open-sessions.ts).
 *
 * Redis unreachable becomes DependencyUnavailableError (503); anything else, a refused command or a
 * record that cannot be read, DependencyFaultError (500): guard.ts sorts them.
 */
import type { Cluster, Redis } from "ioredis";
import { AssembledSessionStore } from "../assembled-session-store.js";
import { HistorySessionRecords } from "../history-session-records.js";
import { HistoryUsageCounters } from "../history-usage-counters.js";
import { type RedisSessionStoreOptions, sessionStoreContext } from "./sessions/context.js";
import { RedisEndingMarks } from "./sessions/ending-marks.js";
import { RedisHistoryQueue } from "./sessions/history-queue.js";
import { RedisIdempotentCreates } from "./sessions/idempotent-creates.js";
import { RedisLeases } from "./sessions/leases.js";
import { OpenSessions } from "./sessions/open-sessions.js";
import { RedisSessionList } from "./sessions/session-list.js";
import { RedisSessionRecords } from "./sessions/session-records.js";
import { RedisStoreConnection } from "./sessions/store-connection.js";
import { RedisTimerQueue } from "./sessions/timer-queue.js";
import { RedisUsageCounters } from "./sessions/usage-counters.js";
import { RedisUsageMoves } from "./sessions/usage-moves.js";

export type { RedisSessionStoreOptions, StoreStep } from "./sessions/context.js";

export class RedisSessionStore extends AssembledSessionStore {
  /** The lists of sessions (a test steps between their reads). */
  readonly list: RedisSessionList;
  /** Ended sessions to write to the history database (filled only when options.history is given). */
  readonly historyQueue: RedisHistoryQueue;
  /** Usage counters on their way to the history database. */
  readonly usageMoves: RedisUsageMoves;

  /** `options` as a string is the key prefix alone. */
  constructor(
    /** The connection the store was given, and closes. */
    readonly redis: Redis | Cluster,
    options: RedisSessionStoreOptions | string = {},
  ) {
    const context = sessionStoreContext(redis, options);
    const places = new OpenSessions(context);
    const list = new RedisSessionList(context);
    const records = new RedisSessionRecords(context, places, list);
    const history = typeof options === "string" ? undefined : options.history;
    const counters = new RedisUsageCounters(context);
    const usageMoves = new RedisUsageMoves(context);
    super({
      creates: new RedisIdempotentCreates(context, places),
      records: history ? new HistorySessionRecords(records, history.sessions) : records,
      counters: history ? new HistoryUsageCounters(counters, usageMoves, history.usage) : counters,
      timers: new RedisTimerQueue(context),
      endings: new RedisEndingMarks(context),
      leases: new RedisLeases(context),
      connection: new RedisStoreConnection(context),
    });
    this.list = list;
    this.historyQueue = new RedisHistoryQueue(context);
    this.usageMoves = usageMoves;
  }
}
