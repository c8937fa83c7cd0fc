/**
 * Stored sessions in memory (SessionRecords): read, changed by compare-and-set of their JSON with their
 * timers, usage, webhook events and LiveKit event in one synchronous step, listed and counted. An end and
 * the return of its place among the open sessions are that one step, so there is nothing to repair.
 */
import type { Persona } from "../../../domain/digital-humans/persona.js";
import { isAfterCursor, newestFirst } from "../../../domain/list-order.js";
import type { ListQuery, SessionChange, SessionRecords, SessionSnapshot, SessionVersion } from "../../../domain/sessions/ports.js";
import type { SessionRecord } from "../../../domain/sessions/session.js";
import type { MemorySessionState, StoredSession } from "./state.js";

export class MemorySessionRecords implements SessionRecords {
  constructor(private readonly state: MemorySessionState) {}

  async getSession(accountId: string, sessionId: string): Promise<SessionRecord | undefined> {
    const stored = this.state.stored(accountId, sessionId);
    return stored === undefined ? undefined : (JSON.parse(stored.json) as SessionRecord);
  }

  async findSession(sessionId: string): Promise<SessionRecord | undefined> {
    const accountId = this.state.sessions.get(sessionId)?.accountId;
    return accountId === undefined ? undefined : this.getSession(accountId, sessionId);
  }

  async sessionPersona(sessionId: string): Promise<Persona | undefined> {
    const kept = this.state.personas.get(sessionId);
    if (kept === undefined || kept.expiresAt <= this.state.now()) return undefined;
    return JSON.parse(kept.json) as Persona;
  }

  async readForChange(accountId: string, sessionId: string, livekitEventId?: string): Promise<SessionSnapshot | undefined> {
    const { state } = this;
    const stored = state.stored(accountId, sessionId);
    if (stored === undefined) return undefined;
    return {
      record: JSON.parse(stored.json) as SessionRecord,
      version: stored.json as unknown as SessionVersion,
      ending: (state.ending.get(sessionId) ?? 0) > state.now(),
      eventApplied: livekitEventId !== undefined && state.remembers(sessionId, livekitEventId),
    };
  }

  async replaceSession(change: SessionChange): Promise<boolean> {
    const { state } = this;
    const { record, events, usage, timers, livekitEvent } = change;
    if (state.stored(record.account_id, record.id)?.json !== (change.version as unknown as string)) return false;
    state.store(record, change.expiresAtMs);
    state.count(state.account(record.account_id), usage);
    state.webhooks.record(record.account_id, events);
    for (const timer of timers.cancel) state.dropTimer(record.id, timer);
    state.schedule(record.account_id, record.id, timers.schedule);
    if (livekitEvent) state.remember(record.id, livekitEvent.id, livekitEvent.ttlMs);
    return true;
  }

  async rememberEvent(sessionId: string, eventId: string, ttlMs: number): Promise<void> {
    this.state.remember(sessionId, eventId, ttlMs);
  }

  /** Nothing to repair: an end and its place's return are one step here. */
  async settleEnded(_record: SessionRecord): Promise<void> {}

  async openSessions(accountId: string): Promise<number> {
    return this.state.open(this.state.account(accountId));
  }

  async listSessions(accountId: string, query: ListQuery): Promise<SessionRecord[]> {
    const { state } = this;
    const found: SessionRecord[] = [];
    const positions = [...state.account(accountId).sessions]
      .flatMap((id) => {
        const stored = state.stored(accountId, id);
        return stored && (query.status === undefined || stored.status === query.status) ? [{ id, createdAtMs: stored.createdAtMs }] : [];
      })
      .filter((position) => isAfterCursor(position, query.after))
      .sort(newestFirst)
      .slice(0, query.limit + 1);
    for (const { id } of positions) found.push(JSON.parse((state.sessions.get(id) as StoredSession).json) as SessionRecord);
    return found;
  }
}
