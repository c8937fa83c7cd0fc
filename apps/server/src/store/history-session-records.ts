/**
 * Stored sessions read across the live store and the history database (docs/storage.md): the live
 * store holds open sessions and ended ones not yet written (and, for a while, written ones); the history
 * holds the written ones. A read asks the live store first and the history second, and a session is
 * written to the history before the live store lets it go, so a session on its way between them is
 * found in one or both, never in neither; a list merges both by the one order of every list (a cursor
 * means the same in each) and lists a session found in both once. Every change goes to the live store.
 */

import { newestFirst } from "../domain/list-order.js";
import type { SessionHistory } from "../domain/sessions/history-ports.js";
import type { ListQuery, SessionRecords } from "../domain/sessions/ports.js";
import { type SessionRecord, TERMINAL } from "../domain/sessions/session.js";

export class HistorySessionRecords implements SessionRecords {
  constructor(
    private readonly live: SessionRecords,
    private readonly history: SessionHistory,
  ) {}

  async getSession(accountId: string, sessionId: string): Promise<SessionRecord | undefined> {
    const found = (await this.live.getSession(accountId, sessionId)) ?? (await this.history.findSession(sessionId));
    return found?.account_id === accountId ? found : undefined;
  }

  async findSession(sessionId: string): Promise<SessionRecord | undefined> {
    return (await this.live.findSession(sessionId)) ?? (await this.history.findSession(sessionId));
  }

  /** The live store's page first, the history's second (see above); one more than asked, as every store. */
  async listSessions(accountId: string, query: ListQuery): Promise<SessionRecord[]> {
    const live = await this.live.listSessions(accountId, query);
    if (query.status !== undefined && !TERMINAL.has(query.status)) return live;
    const written = await this.history.listSessions(accountId, query);
    const ids = new Set(live.map((record) => record.id));
    return [...live, ...written.filter((record) => !ids.has(record.id))].sort(byPosition).slice(0, query.limit + 1);
  }

  readForChange: SessionRecords["readForChange"] = (...a) => this.live.readForChange(...a);
  sessionPersona: SessionRecords["sessionPersona"] = (...a) => this.live.sessionPersona(...a);
  replaceSession: SessionRecords["replaceSession"] = (...a) => this.live.replaceSession(...a);
  rememberEvent: SessionRecords["rememberEvent"] = (...a) => this.live.rememberEvent(...a);
  settleEnded: SessionRecords["settleEnded"] = (...a) => this.live.settleEnded(...a);
  openSessions: SessionRecords["openSessions"] = (...a) => this.live.openSessions(...a);
}

const byPosition = (a: SessionRecord, b: SessionRecord) =>
  newestFirst({ createdAtMs: Date.parse(a.created_at), id: a.id }, { createdAtMs: Date.parse(b.created_at), id: b.id });
