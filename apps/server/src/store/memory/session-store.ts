/**
 * The session store in process memory: the embedded default for development (REDIS_URL unset), refused
 * in production. One part per port (sessions/), sharing plain maps shaped like the domain
 * (sessions/state.ts). The same contract suites (test/contract) and HTTP suite run against it and against
 * Redis, so it keeps their semantics, but only for one process: replicas would not share it.
 */
import { AssembledSessionStore } from "../assembled-session-store.js";
import { MemoryWebhookStore } from "./customer-webhook-store.js";
import { MemoryEndingMarks } from "./sessions/ending-marks.js";
import { MemoryIdempotentCreates } from "./sessions/idempotent-creates.js";
import { MemoryLeases } from "./sessions/leases.js";
import { MemorySessionRecords } from "./sessions/session-records.js";
import { MemorySessionState } from "./sessions/state.js";
import { MemoryTimerQueue } from "./sessions/timer-queue.js";
import { MemoryUsageCounters } from "./sessions/usage-counters.js";

export class MemorySessionStore extends AssembledSessionStore {
  readonly state: MemorySessionState;

  constructor(
    now: () => number = Date.now,
    /** Where the events of a change are queued, in the same step as the change. */
    webhooks: MemoryWebhookStore = new MemoryWebhookStore(now),
  ) {
    const state = new MemorySessionState(now, webhooks);
    // Expired entries are dropped on read; this bounds the memory of those nobody asks for again (which
    // Redis would expire by itself).
    const sweep = setInterval(() => state.dropExpired(), 60_000);
    sweep.unref();
    super({
      creates: new MemoryIdempotentCreates(state),
      records: new MemorySessionRecords(state),
      counters: new MemoryUsageCounters(state),
      timers: new MemoryTimerQueue(state),
      endings: new MemoryEndingMarks(state),
      leases: new MemoryLeases(state),
      // Memory always answers; closing stops the sweep.
      connection: { ping: async () => {}, close: async () => clearInterval(sweep) },
    });
    this.state = state;
  }
}
