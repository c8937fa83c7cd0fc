import { describe, expect, it } from "vitest";
import { sessionRecord } from "../../test/support/session-fixtures.js";
import type { SessionHistory } from "../domain/sessions/history-ports.js";
import type { ListQuery, SessionRecords } from "../domain/sessions/ports.js";
import type { SessionRecord } from "../domain/sessions/session.js";
import { HistorySessionRecords } from "./history-session-records.js";

const ACCOUNT = "acct_1";
const at = (n: number) => new Date(Date.UTC(2026, 10, 27, 12, 0, n)).toISOString();
const ended = (n: number, id: string): SessionRecord =>
  sessionRecord({ id, account_id: ACCOUNT, created_at: at(n), status: "completed", ended_at: at(n + 1) });
const query: ListQuery = { limit: 10, oldestCreatedMs: 0 };

/** Two stores in memory, and a hook that runs right after the live store answered a read. */
function stores(live: SessionRecord[], written: SessionRecord[], afterLiveRead: () => void = () => undefined) {
  const byPosition = (list: SessionRecord[]) => [...list].sort((a, b) => b.created_at.localeCompare(a.created_at));
  const liveRecords = {
    getSession: async (_account: string, id: string) => {
      const found = live.find((r) => r.id === id);
      afterLiveRead();
      return found;
    },
    findSession: async (id: string) => {
      const found = live.find((r) => r.id === id);
      afterLiveRead();
      return found;
    },
    listSessions: async () => {
      const page = byPosition(live);
      afterLiveRead();
      return page;
    },
  } as unknown as SessionRecords;
  const history = {
    findSession: async (id: string) => written.find((r) => r.id === id),
    listSessions: async () => byPosition(written),
  } as unknown as SessionHistory;
  return new HistorySessionRecords(liveRecords, history);
}

describe("HistorySessionRecords", () => {
  it("finds a session that moves to the history right after the live store was asked (written before Redis lets it go)", async () => {
    const session = ended(1, "00000000-0000-4000-8000-000000000001");
    const live = [session];
    const written: SessionRecord[] = [];
    const records = stores(live, written, () => {
      written.push(session);
      live.splice(0);
    });
    expect(await records.getSession(ACCOUNT, session.id)).toEqual(session);
  });

  it("lists a session found in both stores once, and merges both in the order of every list", async () => {
    const a = ended(1, "00000000-0000-4000-8000-00000000000a");
    const b = ended(2, "00000000-0000-4000-8000-00000000000b");
    const c = ended(3, "00000000-0000-4000-8000-00000000000c");
    const records = stores([c, a], [b, a]);
    expect((await records.listSessions(ACCOUNT, query)).map((r) => r.id)).toEqual([c.id, b.id, a.id]);
  });

  it("does not show another account's session from the history", async () => {
    const other = { ...ended(1, "00000000-0000-4000-8000-000000000002"), account_id: "acct_2" };
    expect(await stores([], [other]).getSession(ACCOUNT, other.id)).toBeUndefined();
  });

  it("asks the history nothing for a list of open sessions (none is ever written)", async () => {
    const records = stores([], [ended(1, "00000000-0000-4000-8000-000000000003")]);
    expect(await records.listSessions(ACCOUNT, { ...query, status: "active" })).toEqual([]);
  });

  it("keeps one more than asked, as every store (the page's next cursor depends on it)", async () => {
    const many = Array.from({ length: 6 }, (_, i) => ended(i, `00000000-0000-4000-8000-00000000001${i}`));
    const records = stores(many.slice(0, 3), many.slice(3));
    expect(await records.listSessions(ACCOUNT, { ...query, limit: 2 })).toHaveLength(3);
  });
});
