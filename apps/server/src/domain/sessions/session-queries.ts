/** Reading sessions: one (with a fresh token while connectable), a token refresh, and the list. */
import type { Session, SessionSummary } from "@dhs/contract";
import type { Principal } from "../accounts/api-keys.js";
import { AppError } from "../app-error.js";
import type { ListPosition } from "../list-order.js";
import type { ListQuery } from "./ports.js";
import { isConnectable, toSessionSummary } from "./session.js";
import { longestKeptS, type SessionContext } from "./session-deps.js";
import type { SessionReader } from "./session-reader.js";

export class SessionQueries {
  constructor(
    private readonly context: SessionContext,
    private readonly reader: SessionReader,
  ) {}

  async get(principal: Principal, sessionId: string): Promise<Session> {
    return this.reader.view(await this.reader.find(principal, sessionId));
  }

  /** POST /v1/sessions/{id}/token: a fresh token while connectable; 409 once terminal. */
  async refreshToken(principal: Principal, sessionId: string): Promise<Session> {
    const record = await this.reader.find(principal, sessionId);
    if (!isConnectable(record.status)) {
      throw new AppError("session_not_connectable", `Session ${record.id} is ${record.status}; a terminal session has no token.`);
    }
    return this.reader.view(record);
  }

  /** GET /v1/sessions: a page of the account's sessions, newest first, and where the next one starts (null: none). */
  async list(
    principal: Principal,
    query: Omit<ListQuery, "oldestCreatedMs">,
  ): Promise<{ items: SessionSummary[]; next: ListPosition | null }> {
    const { durations } = this.context.settings;
    // The longest a session can have lived, plus its retention, plus a day for sweeps that ran late.
    const keptS = longestKeptS(durations) + 86_400;
    const records = await this.context.store.listSessions(principal.accountId, {
      ...query,
      oldestCreatedMs: this.context.now().getTime() - keptS * 1000,
    });
    const page = records.slice(0, query.limit);
    const last = page.at(-1);
    return {
      items: page.map(toSessionSummary),
      next: records.length > query.limit && last ? { createdAtMs: Date.parse(last.created_at), id: last.id } : null,
    };
  }
}
