/**
 * An ended session is kept SESSION_RETENTION_S after it ended, then it is gone: not read, not listed,
 * with no timer or sweep to delete it (it expires by itself) and nothing of it left in the shared timer
 * sets once its transcript's grace period is over. On Redis the keys carry the expiry; in memory a later
 * clock shows it; with the PostgreSQL history, the history's reads leave out a row whose retention ended
 * (its day's partition is dropped later, whole).
 */
import type { ListSessionsQuery } from "@dhs/client";
import type { Cluster, Redis } from "ioredis";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { MemorySessionStore } from "../../src/store/memory/session-store.js";
import { keyspace, shardOf } from "../../src/store/redis/keys.js";
import { expectApiError, expectData, type Harness, listed, STORE, until, useHarness } from "../support/harness.js";

const RETENTION_S = 172_800;
const PREFIX = `ret${crypto.randomUUID().slice(0, 8)}`;
const keys = keyspace(PREFIX);
let shiftMs = 0;
const r: Harness = useHarness(
  {
    SESSION_RETENTION_S: String(RETENTION_S),
    TRANSCRIPT_GRACE_S: "1",
    SWEEP_INTERVAL_MS: "100",
    ...(STORE === "memory" ? {} : { REDIS_KEY_PREFIX: PREFIX }),
  },
  STORE === "memory" ? { store: new MemorySessionStore(() => Date.now() + shiftMs) } : {},
);

const ids = async (query: ListSessionsQuery = {}) => (await listed(r, query)).map((s) => s.id);

async function endedSession(): Promise<{ id: string; created_at: string }> {
  const session = expectData(await r.client().createSession({}), 201);
  expect((await r.client().endSession(session.id)).response.status).toBe(200);
  return session;
}

describe("an ended session", () => {
  it("leaves no timer behind once its transcript's grace is over: nothing of it stays in the shared timer sets", async () => {
    const ended = await endedSession();
    const open = expectData(await r.client().createSession({}), 201);
    // The transcript's timer fires at the end and again when its grace (1 s here) is over, then is gone.
    await until(async () => (await r.composed.store.sessionTimers("acct_a", ended.id)).length === 0, {
      what: "the transcript's timer done",
    });
    // Everything due within a year, claimed (this file's harness has its own keyspace).
    const due = await r.composed.store.claimDueTimers(Date.now() + 365 * 86_400_000, 1, 1000);
    expect(due.filter((t) => t.sessionId === ended.id)).toEqual([]);
    expect(due.filter((t) => t.sessionId === open.id).map((t) => t.timer)).toContain("join_timeout");
  });

  // Each store shows expiry its own way; only its own tests are defined, none skipped.
  if (STORE === "memory")
    it("is read and listed until its retention ends, then neither, with no sweep", async () => {
      const ended = await endedSession();
      const kept = expectData(await r.client().createSession({}), 201);
      shiftMs = (RETENTION_S - 60) * 1000;
      expect((await r.client().getSession(ended.id)).response.status).toBe(200);
      expect(await ids()).toContain(ended.id);

      shiftMs = (RETENTION_S + 60) * 1000;
      await expectApiError(await r.client().getSession(ended.id), 404, "not_found");
      expect(await ids()).not.toContain(ended.id);
      for (const status of ["cancelled", "created", "active", "completed", "failed"] as const) {
        expect(await ids({ status })).not.toContain(ended.id);
      }
      expect(await ids()).toContain(kept.id);
      shiftMs = 0;
    });

  if (STORE !== "memory")
    it("expires in Redis when its retention ends, and so does the day's index of it (with the history, until it is written)", async () => {
      const redis = (r.composed.store as unknown as { redis: Redis | Cluster }).redis;
      // With the PostgreSQL history, this is what Redis keeps while the writer has not written it yet.
      await r.composed.historyWriter?.stop();
      const ended = await endedSession();
      const retentionMs = RETENTION_S * 1000;
      const ttl = await redis.pttl(keys.session(ended.id));
      expect(ttl).toBeGreaterThan(retentionMs - 10_000);
      expect(ttl).toBeLessThanOrEqual(retentionMs);
      const index = keys.ended("acct_a", shardOf(ended.id), ended.created_at.slice(0, 10));
      expect(await redis.zscore(index, ended.id)).not.toBeNull();
      expect(await redis.pttl(index)).toBeGreaterThan(retentionMs - 10_000);
      r.composed.historyWriter?.start();
    });

  if (STORE !== "memory")
    it("once expired, is neither read nor listed, and a page is filled from the sessions after it", async () => {
      const redis = (r.composed.store as unknown as { redis: Redis | Cluster }).redis;
      const older = await endedSession();
      const expired = await endedSession();
      const newest = await endedSession();
      await expireInHistory([older.id, expired.id, newest.id], expired.id);
      // What Redis does when the retention of `expired` ends; its index entry stays until the day's index expires.
      await redis.pexpire(keys.session(expired.id), 1);
      await new Promise((resolve) => setTimeout(resolve, 20));

      await expectApiError(await r.client().getSession(expired.id), 404, "not_found");
      for (const query of [{}, { status: "cancelled" } as const]) {
        const listed = await ids(query);
        expect(listed).not.toContain(expired.id);
        expect(listed.indexOf(newest.id)).toBeLessThan(listed.indexOf(older.id));
      }
      // One per page: the second page skips the expired entry and still answers the older session.
      const first = expectData(await r.client().listSessions({ limit: 1, status: "cancelled" }));
      expect(first.data.map((s) => s.id)).toEqual([newest.id]);
      const second = expectData(await r.client().listSessions({ limit: 1, status: "cancelled", cursor: first.next_cursor as string }));
      expect(second.data.map((s) => s.id)).toEqual([older.id]);
    });
});

/**
 * With the PostgreSQL history: waits until the writer has these sessions, then moves the end of `expired`
 * back past its retention, which is what time does to the row (its partition stays until the day is due).
 */
async function expireInHistory(written: readonly string[], expired: string): Promise<void> {
  const db = new pg.Client({ connectionString: r.databaseUrl });
  db.on("error", () => undefined);
  await db.connect();
  try {
    await until(
      async () => {
        const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM sessions WHERE id = ANY($1::uuid[])", [written]);
        return rows[0]?.n === written.length ? true : undefined;
      },
      { what: "the sessions written to the history", timeoutMs: 10_000 },
    );
    await db.query("UPDATE sessions SET ended_at = ended_at - make_interval(secs => $2) WHERE id = $1", [expired, RETENTION_S + 60]);
  } finally {
    await db.end();
  }
}
