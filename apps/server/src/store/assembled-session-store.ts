/**
 * A session store assembled from one part per port of domain/sessions/ports.ts: what both adapters are
 * (redis/session-store.ts, memory/session-store.ts), each with parts of its own. Callers take the whole
 * SessionStore, or only the ports they need.
 */
import type {
  EndingMarks,
  IdempotentCreates,
  Leases,
  SessionRecords,
  SessionStore,
  StoreConnection,
  TimerQueue,
  UsageCounters,
} from "../domain/sessions/ports.js";

export interface SessionStoreParts {
  creates: IdempotentCreates;
  records: SessionRecords;
  counters: UsageCounters;
  timers: TimerQueue;
  endings: EndingMarks;
  leases: Leases;
  connection: StoreConnection;
}

export class AssembledSessionStore implements SessionStore {
  constructor(private readonly parts: SessionStoreParts) {}

  // IdempotentCreates
  beginCreate: SessionStore["beginCreate"] = (...a) => this.parts.creates.beginCreate(...a);
  completeCreate: SessionStore["completeCreate"] = (...a) => this.parts.creates.completeCreate(...a);
  abandonCreate: SessionStore["abandonCreate"] = (...a) => this.parts.creates.abandonCreate(...a);
  // SessionRecords
  getSession: SessionStore["getSession"] = (...a) => this.parts.records.getSession(...a);
  findSession: SessionStore["findSession"] = (...a) => this.parts.records.findSession(...a);
  readForChange: SessionStore["readForChange"] = (...a) => this.parts.records.readForChange(...a);
  sessionPersona: SessionStore["sessionPersona"] = (...a) => this.parts.records.sessionPersona(...a);
  replaceSession: SessionStore["replaceSession"] = (...a) => this.parts.records.replaceSession(...a);
  rememberEvent: SessionStore["rememberEvent"] = (...a) => this.parts.records.rememberEvent(...a);
  settleEnded: SessionStore["settleEnded"] = (...a) => this.parts.records.settleEnded(...a);
  openSessions: SessionStore["openSessions"] = (...a) => this.parts.records.openSessions(...a);
  listSessions: SessionStore["listSessions"] = (...a) => this.parts.records.listSessions(...a);
  // UsageCounters
  usage: SessionStore["usage"] = (...a) => this.parts.counters.usage(...a);
  countUsage: SessionStore["countUsage"] = (...a) => this.parts.counters.countUsage(...a);
  // TimerQueue
  scheduleTimers: SessionStore["scheduleTimers"] = (...a) => this.parts.timers.scheduleTimers(...a);
  cancelTimer: SessionStore["cancelTimer"] = (...a) => this.parts.timers.cancelTimer(...a);
  cancelTimers: SessionStore["cancelTimers"] = (...a) => this.parts.timers.cancelTimers(...a);
  sessionTimers: SessionStore["sessionTimers"] = (...a) => this.parts.timers.sessionTimers(...a);
  claimDueTimers: SessionStore["claimDueTimers"] = (...a) => this.parts.timers.claimDueTimers(...a);
  completeTimer: SessionStore["completeTimer"] = (...a) => this.parts.timers.completeTimer(...a);
  // EndingMarks
  markEnding: SessionStore["markEnding"] = (...a) => this.parts.endings.markEnding(...a);
  clearEnding: SessionStore["clearEnding"] = (...a) => this.parts.endings.clearEnding(...a);
  // Leases
  acquireLease: SessionStore["acquireLease"] = (...a) => this.parts.leases.acquireLease(...a);
  // StoreConnection
  ping: SessionStore["ping"] = () => this.parts.connection.ping();
  close: SessionStore["close"] = () => this.parts.connection.close();
}
