/**
 * A list read page by page while sessions end and move from Redis to the PostgreSQL history (written,
 * then forgotten by Redis once their keep is over), over generated sequences: every session that existed
 * when the reader started is listed once, never twice or not at all, whichever store each page found it
 * in, and nothing is listed that was never created. The writer is driven by the sequence (not its timer),
 * so a move happens between any two reads, and its two halves apart (written to PostgreSQL, then taken off
 * Redis's lists), so a page can find a session in both. LIST_SEED replays a run.
 */
import type { SessionSummary } from "@dhs/client";
import fc from "fast-check";
import { Redis } from "ioredis";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { HistoryClaim } from "../../src/domain/sessions/history-ports.js";
import { PostgresSessionHistory } from "../../src/store/postgres/session-history.js";
import { keyspace } from "../../src/store/redis/keys.js";
import type { RedisSessionStore } from "../../src/store/redis/session-store.js";
import { testPool } from "../support/database.js";
import { expectData, newSession, useHarness } from "../support/harness.js";

const RUNS = Number(process.env.LIST_RUNS ?? 60);
// Pages by the hundred: no rate limit in the way.
const h = useHarness({ RATE_LIMIT_ENABLED: "false" });
let redis: Redis;

let db: pg.Pool;
let history: PostgresSessionHistory;

beforeAll(async () => {
  // The sequence moves sessions itself.
  await h.composed.historyWriter?.stop();
  redis = new Redis(inject("redisUrl"));
  db = testPool(h.databaseUrl as string, 2);
  history = new PostgresSessionHistory(db, { retentionMs: 30 * 86_400_000, maxLifeMs: 86_400_000 });
});
afterAll(async () => {
  redis?.disconnect();
  await db?.end();
});

type Action =
  | { kind: "create"; count: number }
  | { kind: "end"; pick: number }
  | { kind: "drain" }
  | { kind: "write" }
  | { kind: "complete" }
  | { kind: "forget"; pick: number }
  | { kind: "read"; limit: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ kind: fc.constant("create" as const), count: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant("end" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("drain" as const) }),
  // The writer's two halves apart: written to PostgreSQL, still listed by Redis, until completed.
  fc.record({ kind: fc.constant("write" as const) }),
  fc.record({ kind: fc.constant("complete" as const) }),
  fc.record({ kind: fc.constant("forget" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("read" as const), limit: fc.integer({ min: 1, max: 4 }) }),
);

/** One page-through: the sessions there were when it started, and what its pages listed so far. */
interface Reader {
  expected: Set<string>;
  listed: string[];
  cursor: string | undefined;
  limit: number;
}

describe("a list read while sessions move to the history", () => {
  it("lists every session there was when it started once, wherever each page finds it", async () => {
    const keys = keyspace(h.redisPrefix);
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 5, maxLength: 30 }), async (actions) => {
        const runStart = Date.now() - 1;
        const created: string[] = [];
        const open: string[] = [];
        const ended = new Set<string>();
        /** Written and taken off the queue: Redis may forget them. */
        const moved = new Set<string>();
        let reader: Reader | undefined;
        let written: HistoryClaim[] = [];
        const queue = (h.composed.store as RedisSessionStore).historyQueue;

        /** The next page; the page-through is done once it passes this run's oldest session. */
        const readPage = async (current: Reader): Promise<boolean> => {
          const page = expectData(
            await h.client().listSessions({ limit: current.limit, ...(current.cursor ? { cursor: current.cursor } : {}) }),
          );
          const ours = page.data.filter((s: SessionSummary) => Date.parse(s.created_at) >= runStart);
          current.listed.push(...ours.map((s) => s.id));
          current.cursor = page.next_cursor ?? undefined;
          return page.next_cursor === null || ours.length < page.data.length;
        };
        /** Checks a page-through that is done. */
        const verify = (current: Reader) => {
          expect(new Set(current.listed).size, "a session listed twice").toBe(current.listed.length);
          for (const id of current.expected) expect(current.listed, `session ${id} not listed`).toContain(id);
          for (const id of current.listed) expect(created).toContain(id);
        };
        /** Reads a page-through's remaining pages, then checks it. */
        const finish = async (current: Reader) => {
          while (!(await readPage(current))) {}
          verify(current);
        };

        for (const step of actions) {
          if (step.kind === "create") {
            const made = await Promise.all(Array.from({ length: step.count }, () => newSession(h)));
            created.push(...made.map((s) => s.id));
            open.push(...made.map((s) => s.id));
          } else if (step.kind === "end" && open.length > 0) {
            const [id] = open.splice(step.pick % open.length, 1) as [string];
            expectData(await h.client().endSession(id));
            ended.add(id);
          } else if (step.kind === "drain") {
            await h.composed.historyWriter?.drain();
            for (const id of ended) moved.add(id);
          } else if (step.kind === "write") {
            const claims = await queue.claimDue(Date.now(), 60_000, 100);
            await history.writeSessions(claims.flatMap((claim) => (claim.entry ? [claim.entry] : [])));
            written.push(...claims);
          } else if (step.kind === "complete") {
            await queue.complete(written, 3_600_000);
            for (const claim of written) moved.add(claim.sessionId);
            written = [];
          } else if (step.kind === "forget" && moved.size > 0) {
            // Its keep in Redis is over.
            const id = [...moved][step.pick % moved.size] as string;
            await redis.del(keys.session(id));
          } else if (step.kind === "read") {
            if (reader && (await readPage(reader))) {
              verify(reader);
              reader = undefined;
            } else if (!reader) {
              reader = { expected: new Set(created), listed: [], cursor: undefined, limit: step.limit };
            }
          }
        }
        if (reader) await finish(reader);
        // And a reader that starts now sees the run whole.
        await finish({ expected: new Set(created), listed: [], cursor: undefined, limit: 3 });
      }),
      { numRuns: RUNS, ...(process.env.LIST_SEED ? { seed: Number(process.env.LIST_SEED) } : {}) },
    );
  });
});
