import { describe, expect, it } from "vitest";
import { sessionRecord } from "../../test/support/session-fixtures.js";
import type { WebhookRecordSync } from "../domain/customer-webhooks/ports.js";
import { ValueRefusedError } from "../domain/dependency-errors.js";
import type {
  HistoryClaim,
  HistoryEntry,
  HistoryQueue,
  SessionHistory,
  UsageHistory,
  UsageMoves,
} from "../domain/sessions/history-ports.js";
import { HistoryWriter, type RefusedSession } from "./history-writer.js";

const entry = (id: string): HistoryEntry => ({
  record: sessionRecord({ id, status: "cancelled", ended_at: "2026-11-27T10:00:01.000Z", created_at: "2026-11-27T10:00:00.000Z" }),
  transcript: { state: { segmentCount: 0, final: false, deletedAtMs: null }, segments: [] },
  toolCalls: [],
});

const idOf = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;

/**
 * A queue of `n` sessions due, a database that fails while `down` and refuses the values of the sessions
 * in `refuses` (as PostgreSQL refuses U+0000 in jsonb), and a clock the test moves.
 */
function writer(n: number) {
  const clock = { now: 1_000_000 };
  const due = new Map<string, number>(Array.from({ length: n }, (_, i) => [idOf(i), 0]));
  const aside = new Set<string>();
  const unreadable = new Set<string>();
  const db = { down: false, rows: new Map<string, number>(), claimsRead: 0, refuses: new Set<string>(), statements: 0 };
  const refused: RefusedSession[] = [];
  const requeued: number[] = [];
  const queue: HistoryQueue = {
    claimDue: async (nowMs, _lease, max) => {
      const ids = [...due].filter(([, at]) => at <= nowMs).slice(0, max);
      db.claimsRead += ids.length;
      for (const [id] of ids) due.set(id, nowMs + 30_000);
      return ids.map(([id]) =>
        unreadable.has(id)
          ? { sessionId: id, entry: undefined, claim: String(nowMs + 30_000), unreadable: new Error("stored session has format 9") }
          : { sessionId: id, entry: entry(id), claim: String(nowMs + 30_000) },
      );
    },
    complete: async (claims: readonly HistoryClaim[]) => {
      for (const c of claims) if (due.get(c.sessionId) === Number(c.claim)) due.delete(c.sessionId);
    },
    release: async (claims: readonly HistoryClaim[], atMs: number) => {
      for (const c of claims) if (due.get(c.sessionId) === Number(c.claim)) due.set(c.sessionId, atMs);
    },
    setAside: async (claims: readonly HistoryClaim[]) => {
      for (const c of claims) {
        if (due.get(c.sessionId) !== Number(c.claim)) continue;
        due.delete(c.sessionId);
        aside.add(c.sessionId);
      }
    },
    requeueSetAside: async (nowMs) => {
      for (const id of aside) if (!due.has(id)) due.set(id, nowMs);
      const count = aside.size;
      aside.clear();
      return count;
    },
    backlog: async () => ({ size: due.size, oldestMs: undefined, setAside: aside.size }),
  };
  const sessions = {
    writeSessions: async (entries: readonly HistoryEntry[]) => {
      db.statements++;
      if (db.down) throw new Error("database unavailable");
      const bad = entries.find((e) => db.refuses.has(e.record.id));
      // All or none, as one transaction is.
      if (bad) throw new ValueRefusedError("database", "PostgreSQL: unsupported Unicode escape sequence");
      for (const e of entries) db.rows.set(e.record.id, (db.rows.get(e.record.id) ?? 0) + 1);
    },
    dropExpired: async () => [],
  } as unknown as SessionHistory;
  const usageMoves: UsageMoves = {
    beginMoves: async () => [],
    endMoves: async () => undefined,
    snapshot: async () => ({ counters: [], pending: [], takenAtUs: 0 }),
  };
  const usage = { applyUsageMoves: async () => undefined, dropExpiredUsage: async () => undefined } as unknown as UsageHistory;
  const leases = { acquireLease: async () => true };
  const hooks = { copied: [] as number[], restores: [] as boolean[] };
  const webhooks: WebhookRecordSync = {
    copyDue: async (nowMs) => {
      hooks.copied.push(nowMs);
      if (db.down) throw new Error("database unavailable");
      return 0;
    },
    restore: async (sweep) => {
      hooks.restores.push(sweep);
      return 0;
    },
  };
  const history = new HistoryWriter(
    { queue, sessions, usageMoves, usage, leases, webhooks },
    {
      intervalMs: 1000,
      leaseMs: 30_000,
      batch: 10,
      keepMs: 3_600_000,
      holder: "h",
      now: () => clock.now,
      onRefused: (sessions) => refused.push(...sessions),
      onRequeued: (count) => requeued.push(count),
    },
  );
  return { history, due, aside, unreadable, db, clock, hooks, refused, requeued };
}

describe("HistoryWriter", () => {
  it("writes every due session in batches until none is left, each once", async () => {
    const { history, due, db } = writer(35);
    expect(await history.drain()).toBe(35);
    expect(due.size).toBe(0);
    expect([...db.rows.values()].every((n) => n === 1)).toBe(true);
    expect(db.rows.size).toBe(35);
  });

  it("while the database is down: gives each failed batch back, tries again later and later (one batch a try), then drains", async () => {
    const { history, due, db, clock } = writer(50);
    db.down = true;
    const tries: number[] = [];
    for (let second = 0; second < 20; second++) {
      const before = db.claimsRead;
      await history.drain().catch(() => undefined);
      if (db.claimsRead > before) tries.push(second);
      clock.now += 1000;
    }
    // A second, then doubling up to five between tries; never more than a batch read per try.
    expect(tries).toEqual([0, 1, 3, 7, 12, 17]);
    expect(db.claimsRead).toBe(tries.length * 10);
    expect(due.size).toBe(50);
    db.down = false;
    clock.now += 5000;
    expect(await history.drain()).toBe(50);
    expect(db.rows.size).toBe(50);
  });

  it("keeps the webhook endpoints' record in step each pass (their sweep with the hourly retention), not while the database is down", async () => {
    const { history, db, clock, hooks } = writer(5);
    await history.pass();
    expect(hooks).toEqual({ copied: [clock.now], restores: [false, true] });
    clock.now += 1000;
    await history.pass();
    expect(hooks.restores).toEqual([false, true, false]);
    db.down = true;
    const tries: number[] = [];
    for (let second = 0; second < 10; second++) {
      clock.now += 1000;
      const before = hooks.copied.length;
      await history.pass().catch(() => undefined);
      if (hooks.copied.length > before) tries.push(second);
    }
    // A failed copy waits as a failed write does: a second, then doubling up to five.
    expect(tries).toEqual([0, 1, 3, 7]);
  });

  it("sets aside a session whose values the database refuses, writes the rest of its batch and the batches after it, and says which", async () => {
    const { history, due, aside, db, refused } = writer(25);
    db.refuses.add(idOf(3));
    expect(await history.drain()).toBe(24);
    expect(due.size).toBe(0);
    expect([...aside]).toEqual([idOf(3)]);
    expect(db.rows.has(idOf(3))).toBe(false);
    expect(db.rows.size).toBe(24);
    expect(refused.map(({ sessionId, accountId, error }) => [sessionId, accountId, error.name])).toEqual([
      [idOf(3), "acct_1", "ValueRefusedError"],
    ]);
    // The batch that held it: once whole, then its ten sessions one by one; the two others once each.
    expect(db.statements).toBe(1 + 10 + 2);
  });

  it("sets aside a session whose record the live store could not read, and writes the rest", async () => {
    const { history, due, aside, unreadable, db, refused } = writer(5);
    unreadable.add(idOf(1));
    expect(await history.drain()).toBe(4);
    expect([due.size, [...aside], db.rows.size]).toEqual([0, [idOf(1)], 4]);
    expect(refused.map(({ sessionId, error }) => [sessionId, error.message])).toEqual([[idOf(1), "stored session has format 9"]]);
  });

  it("queues the set-aside sessions again each hour, so a cause fixed since heals them", async () => {
    const { history, due, aside, db, clock, requeued } = writer(0);
    // The first pass runs the hourly one too.
    await history.pass();
    db.refuses.add(idOf(0));
    due.set(idOf(0), 0);
    clock.now += 1000;
    await history.pass();
    expect([...aside]).toEqual([idOf(0)]);
    // Within the hour: left aside, and nothing else is held back.
    clock.now += 60_000;
    due.set(idOf(9), 0);
    await history.pass();
    expect([db.rows.has(idOf(9)), [...aside]]).toEqual([true, [idOf(0)]]);
    db.refuses.clear();
    clock.now += 3_600_000;
    await history.pass();
    expect(requeued).toEqual([1]);
    expect(await history.drain()).toBe(1);
    expect([db.rows.get(idOf(0)), aside.size, due.size]).toEqual([1, 0, 0]);
  });
});
