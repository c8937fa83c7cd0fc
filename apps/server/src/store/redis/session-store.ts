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
  beginCreate: SessionStore["beginCreate"] = (...a) => this.creates.beginCreate(...a);
  completeCreate: SessionStore["completeCreate"] = (...a) => this.creates.completeCreate(...a);
  abandonCreate: SessionStore["abandonCreate"] = (...a) => this.creates.abandonCreate(...a);
  // SessionRecords
  getSession: SessionStore["getSession"] = (...a) => this.records.getSession(...a);
  findSession: SessionStore["findSession"] = (...a) => this.records.findSession(...a);
  readForChange: SessionStore["readForChange"] = (...a) => this.records.readForChange(...a);
  replaceSession: SessionStore["replaceSession"] = (...a) => this.records.replaceSession(...a);
  rememberEvent: SessionStore["rememberEvent"] = (...a) => this.records.rememberEvent(...a);
  listSessions: SessionStore["listSessions"] = (...a) => this.list.listSessions(...a);
  settleEnded: SessionStore["settleEnded"] = (...a) => this.places.settleEnded(...a);
  openSessions: SessionStore["openSessions"] = (...a) => this.places.openSessions(...a);
  // UsageCounters
  usage: SessionStore["usage"] = (...a) => this.counters.usage(...a);
  countUsage: SessionStore["countUsage"] = (...a) => this.counters.countUsage(...a);
  // TimerQueue
  scheduleTimers: SessionStore["scheduleTimers"] = (...a) => this.timers.scheduleTimers(...a);
  cancelTimer: SessionStore["cancelTimer"] = (...a) => this.timers.cancelTimer(...a);
  cancelTimers: SessionStore["cancelTimers"] = (...a) => this.timers.cancelTimers(...a);
  sessionTimers: SessionStore["sessionTimers"] = (...a) => this.timers.sessionTimers(...a);
  claimDueTimers: SessionStore["claimDueTimers"] = (...a) => this.timers.claimDueTimers(...a);
  completeTimer: SessionStore["completeTimer"] = (...a) => this.timers.completeTimer(...a);
  // EndingMarks
  markEnding: SessionStore["markEnding"] = (...a) => this.endings.markEnding(...a);
  clearEnding: SessionStore["clearEnding"] = (...a) => this.endings.clearEnding(...a);
  // Leases
  acquireLease: SessionStore["acquireLease"] = (...a) => this.leases.acquireLease(...a);
  // StoreConnection
  ping: SessionStore["ping"] = () => this.connection.ping();
  close: SessionStore["close"] = () => this.connection.close();
}
