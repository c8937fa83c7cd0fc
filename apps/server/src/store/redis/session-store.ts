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
import type { SessionStore } from "../../domain/sessions/ports.js";
import { type RedisSessionStoreOptions, sessionStoreContext } from "./sessions/context.js";
import { RedisEndingMarks } from "./sessions/ending-marks.js";
import { RedisIdempotentCreates } from "./sessions/idempotent-creates.js";
import { RedisLeases } from "./sessions/leases.js";
import { OpenSessions } from "./sessions/open-sessions.js";
import { RedisSessionList } from "./sessions/session-list.js";
import { RedisSessionRecords } from "./sessions/session-records.js";
import { RedisStoreConnection } from "./sessions/store-connection.js";
import { RedisTimerQueue } from "./sessions/timer-queue.js";
import { RedisUsageCounters } from "./sessions/usage-counters.js";

export type { RedisSessionStoreOptions, StoreStep } from "./sessions/context.js";

export class RedisSessionStore implements SessionStore {
  readonly creates: RedisIdempotentCreates;
  readonly records: RedisSessionRecords;
  readonly list: RedisSessionList;
  readonly places: OpenSessions;
  readonly counters: RedisUsageCounters;
  readonly timers: RedisTimerQueue;
  readonly endings: RedisEndingMarks;
  readonly leases: RedisLeases;
  readonly connection: RedisStoreConnection;

  /** `options` as a string is the key prefix alone. */
  constructor(
    /** The connection the store was given, and closes. */
    readonly redis: Redis | Cluster,
    options: RedisSessionStoreOptions | string = {},
  ) {
    const context = sessionStoreContext(redis, options);
    this.places = new OpenSessions(context);
    this.creates = new RedisIdempotentCreates(context, this.places);
    this.records = new RedisSessionRecords(context, this.places);
    this.list = new RedisSessionList(context);
    this.counters = new RedisUsageCounters(context);
    this.timers = new RedisTimerQueue(context);
    this.endings = new RedisEndingMarks(context);
    this.leases = new RedisLeases(context);
    this.connection = new RedisStoreConnection(context);
  }

  // IdempotentCreates
  readonly beginCreate: SessionStore["beginCreate"] = (...a) => this.creates.beginCreate(...a);
  readonly completeCreate: SessionStore["completeCreate"] = (...a) => this.creates.completeCreate(...a);
  readonly abandonCreate: SessionStore["abandonCreate"] = (...a) => this.creates.abandonCreate(...a);
  // SessionRecords
  readonly getSession: SessionStore["getSession"] = (...a) => this.records.getSession(...a);
  readonly findSession: SessionStore["findSession"] = (...a) => this.records.findSession(...a);
  readonly readForChange: SessionStore["readForChange"] = (...a) => this.records.readForChange(...a);
  readonly replaceSession: SessionStore["replaceSession"] = (...a) => this.records.replaceSession(...a);
  readonly rememberEvent: SessionStore["rememberEvent"] = (...a) => this.records.rememberEvent(...a);
  readonly listSessions: SessionStore["listSessions"] = (...a) => this.list.listSessions(...a);
  readonly settleEnded: SessionStore["settleEnded"] = (...a) => this.places.settleEnded(...a);
  readonly openSessions: SessionStore["openSessions"] = (...a) => this.places.openSessions(...a);
  // UsageCounters
  readonly usage: SessionStore["usage"] = (...a) => this.counters.usage(...a);
  readonly countUsage: SessionStore["countUsage"] = (...a) => this.counters.countUsage(...a);
  // TimerQueue
  readonly scheduleTimers: SessionStore["scheduleTimers"] = (...a) => this.timers.scheduleTimers(...a);
  readonly cancelTimer: SessionStore["cancelTimer"] = (...a) => this.timers.cancelTimer(...a);
  readonly cancelTimers: SessionStore["cancelTimers"] = (...a) => this.timers.cancelTimers(...a);
  readonly sessionTimers: SessionStore["sessionTimers"] = (...a) => this.timers.sessionTimers(...a);
  readonly claimDueTimers: SessionStore["claimDueTimers"] = (...a) => this.timers.claimDueTimers(...a);
  readonly completeTimer: SessionStore["completeTimer"] = (...a) => this.timers.completeTimer(...a);
  // EndingMarks
  readonly markEnding: SessionStore["markEnding"] = (...a) => this.endings.markEnding(...a);
  readonly clearEnding: SessionStore["clearEnding"] = (...a) => this.endings.clearEnding(...a);
  // Leases
  readonly acquireLease: SessionStore["acquireLease"] = (...a) => this.leases.acquireLease(...a);
  // StoreConnection
  readonly ping: SessionStore["ping"] = () => this.connection.ping();
  readonly close: SessionStore["close"] = () => this.connection.close();
}
