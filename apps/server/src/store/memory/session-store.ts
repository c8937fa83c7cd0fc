/**
 * The session store in process memory: the embedded default for development (REDIS_URL unset), refused
 * in production. One part per port (sessions/), sharing plain maps shaped like the domain
 * (sessions/state.ts). The same contract suites (test/contract) and HTTP suite run against it and against
 * Redis, so it keeps their semantics, but only for one process: replicas would not share it.
 */
import type { SessionStore } from "../../domain/sessions/ports.js";
import { MemoryWebhookStore } from "./customer-webhook-store.js";
import { MemoryEndingMarks } from "./sessions/ending-marks.js";
import { MemoryIdempotentCreates } from "./sessions/idempotent-creates.js";
import { MemoryLeases } from "./sessions/leases.js";
import { MemorySessionRecords } from "./sessions/session-records.js";
import { MemorySessionState } from "./sessions/state.js";
import { MemoryTimerQueue } from "./sessions/timer-queue.js";
import { MemoryUsageCounters } from "./sessions/usage-counters.js";

export class MemorySessionStore implements SessionStore {
  readonly state: MemorySessionState;
  readonly creates: MemoryIdempotentCreates;
  readonly records: MemorySessionRecords;
  readonly counters: MemoryUsageCounters;
  readonly timers: MemoryTimerQueue;
  readonly endings: MemoryEndingMarks;
  readonly leases: MemoryLeases;
  private readonly sweep: NodeJS.Timeout;

  constructor(
    now: () => number = Date.now,
    /** Where the events of a change are queued, in the same step as the change. */
    webhooks: MemoryWebhookStore = new MemoryWebhookStore(now),
  ) {
    this.state = new MemorySessionState(now, webhooks);
    this.creates = new MemoryIdempotentCreates(this.state);
    this.records = new MemorySessionRecords(this.state);
    this.counters = new MemoryUsageCounters(this.state);
    this.timers = new MemoryTimerQueue(this.state);
    this.endings = new MemoryEndingMarks(this.state);
    this.leases = new MemoryLeases(this.state);
    // Expired entries are dropped on read; this bounds the memory of those nobody asks for again (which
    // Redis would expire by itself).
    this.sweep = setInterval(() => this.state.dropExpired(), 60_000);
    this.sweep.unref();
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
  listSessions: SessionStore["listSessions"] = (...a) => this.records.listSessions(...a);
  settleEnded: SessionStore["settleEnded"] = (...a) => this.records.settleEnded(...a);
  openSessions: SessionStore["openSessions"] = (...a) => this.records.openSessions(...a);
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
  // StoreConnection: memory always answers; closing stops the sweep.
  ping: SessionStore["ping"] = async () => {};
  close: SessionStore["close"] = async () => clearInterval(this.sweep);
}
