/**
 * Transcripts in the PostgreSQL history: written with their session once it ended, read the same (page by
 * page) once Redis has lost them; a deletion erases the rows at once, stays as it was, and while the
 * database is out of reach it fails 503 and is carried out from the queue once the database is back.
 */
import { TcpGate } from "@dhs/testkit";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { flushPrefix } from "../support/database.js";
import { postSegments, segment } from "../support/digital-human-posts.js";
import { expectData, newSession, until, useHarness } from "../support/harness.js";

const gate = new TcpGate({ host: "127.0.0.1", port: 5432 });
beforeAll(async () => {
  await gate.open();
});
// A transcript is complete a second after its session ended.
const h = useHarness({ TRANSCRIPT_GRACE_S: "1" }, {}, {}, { databasePort: () => gate.port });
let redis: Redis;
beforeAll(() => {
  redis = new Redis(inject("redisUrl"));
});
afterAll(async () => {
  redis?.disconnect();
  await gate.close();
});

async function query<T extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<T[]> {
  const client = new pg.Client({ connectionString: h.databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

const segmentRows = async (id: string) =>
  (await query<{ n: number }>("SELECT count(*)::int AS n FROM transcript_segments WHERE session_id = $1", [id]))[0]?.n ?? 0;

const flushRedis = () => flushPrefix(redis, h.redisPrefix);

/** A session with a transcript of `n` segments, ended, its transcript complete and written. */
async function writtenTranscript(n: number) {
  const session = await newSession(h);
  const segments = Array.from({ length: n }, (_, i) => segment(`s-${i}`, i % 4, `line ${i}`, i % 2 ? "participant" : "digital_human"));
  expect((await postSegments(h, session, { segments })).status).toBe(200);
  expectData(await h.client().endSession(session.id));
  await until(
    async () => {
      const rows = await query<{ ready: string | null }>("SELECT record->>'transcript_ready_at' AS ready FROM sessions WHERE id = $1", [
        session.id,
      ]);
      return rows[0]?.ready ? true : undefined;
    },
    { timeoutMs: 15_000 },
  );
  return session;
}

/** Every page of the transcript, `limit` segments at a time. */
async function allPages(id: string, limit: number) {
  const pages = [];
  let cursor: string | undefined;
  do {
    const page = expectData(await h.client().getSessionTranscript(id, { limit, ...(cursor ? { cursor } : {}) }));
    pages.push(page);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return pages;
}

describe("transcripts in the PostgreSQL history", () => {
  it("are written with their session and read the same, page by page, once Redis lost them", async () => {
    const session = await writtenTranscript(9);
    expect(await segmentRows(session.id)).toBe(9);
    const before = await allPages(session.id, 4);
    await flushRedis();
    expect(await allPages(session.id, 4)).toEqual(before);
    expect(before.flatMap((p) => p.segments)).toHaveLength(9);
    expect(before[0]).toMatchObject({ status: "complete", segment_count: 9, deleted_at: null });
  });

  it("are erased at once by a deletion, which stays as it was after Redis lost it", async () => {
    const session = await writtenTranscript(3);
    const deleted = expectData(await h.client().deleteSessionTranscript(session.id));
    expect(deleted).toMatchObject({ status: "deleted", segment_count: 0 });
    expect(await segmentRows(session.id)).toBe(0);
    await flushRedis();
    expect(expectData(await h.client().getSessionTranscript(session.id))).toEqual(deleted);
    expect(expectData(await h.client().deleteSessionTranscript(session.id))).toEqual(deleted);
  });

  it("answer a deletion 503 while the database is out of reach, and are erased from the queue once it is back", async () => {
    const session = await writtenTranscript(5);
    await gate.close();
    const refused = await h.client().deleteSessionTranscript(session.id);
    expect(refused.response.status).toBe(503);
    await gate.open();
    await until(async () => ((await segmentRows(session.id)) === 0 ? true : undefined), { timeoutMs: 15_000 });
    const [row] = await query<{ deleted_at: Date | null }>("SELECT transcript_deleted_at AS deleted_at FROM sessions WHERE id = $1", [
      session.id,
    ]);
    expect(row?.deleted_at).not.toBeNull();
    // The retry answers as the first deletion would have.
    const retried = expectData(await h.client().deleteSessionTranscript(session.id));
    expect(Date.parse(retried.deleted_at as string)).toBe(row?.deleted_at?.getTime());
  });
});
