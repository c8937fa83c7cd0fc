/**
 * Usage per UTC day (contract guide, "Accounts"): sessions created, ended by status and end reason, and
 * active seconds, kept as counters updated in the same atomic step as each change, so they match the
 * sessions exactly, also when a thousand sessions end at once.
 */

import type { SessionSummary } from "@dhs/client";
import { describe, expect, it } from "vitest";
import { expectApiError, expectData, KEYS, roomEvent, useHarness } from "../support/harness.js";

const h = useHarness({ RATE_LIMIT_PER_SECOND: "100000", RATE_LIMIT_BURST: "100000" });
const today = () => new Date().toISOString().slice(0, 10);
const usage = async (query: { from?: string; to?: string } = {}, key: string = KEYS.b) => expectData(await h.client(key).getUsage(query));

/**
 * Sends until answered 200, retrying a 503 with backoff as LiveKit retries its webhooks and a client its
 * calls: on a busy machine a Redis command can time out under a thousand concurrent requests, and a
 * thousand retries at a fixed 100 ms kept the storm going (503 after 20 of them on a starved CI machine).
 */
async function delivered(send: () => Promise<Response>): Promise<void> {
  let res = await send();
  for (let attempt = 0; res.status === 503 && attempt < 12; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** attempt, 4000) * (0.5 + Math.random())));
    res = await send();
  }
  expect(res.status).toBe(200);
}

async function inBatches<T>(items: T[], size: number, run: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(run));
}

describe("GET /v1/usage", () => {
  it("lists the last 30 days by default, every day, zeros included", async () => {
    const body = await usage({}, KEYS.aRead);
    expect(body.days).toHaveLength(30);
    expect(body.to).toBe(today());
    expect(body.days.at(-1)?.date).toBe(today());
    expect(body.days[0]?.usage).toEqual({
      sessions_created: 0,
      sessions_created_by_digital_human: {},
      sessions_ended: { completed: 0, cancelled: 0, failed: 0 },
      end_reasons: {},
      active_seconds: 0,
      transcript_segments: 0,
      transcript_characters: 0,
      recorded_seconds: 0,
    });
  });

  it("refuses a range longer than 92 days, or one that ends before it starts, with 422 naming the parameter", async () => {
    const b = h.client(KEYS.b);
    const long = await expectApiError(await b.getUsage({ from: "2026-01-01", to: "2026-06-01" }), 422, "validation_failed");
    expect(long.detail).toEqual([{ location: "query", path: "from", message: "the range is at most 92 days" }]);
    await expectApiError(await b.getUsage({ from: "2026-11-20", to: "2026-11-10" }), 422, "validation_failed");
    await expectApiError(await b.getUsage({ from: "2026-13-01" }), 422, "validation_failed");
    expect((await usage({ from: "2026-09-01", to: "2026-11-30" })).days).toHaveLength(91);
  });

  it("matches the sessions exactly after 1000 of them end at once", async () => {
    const before = (await usage({ from: today(), to: today() })).totals;
    const sessions: { id: string; room_name: string; identity: string }[] = [];
    await inBatches(
      Array.from({ length: 1000 }, (_, i) => i),
      50,
      async (i) => {
        const identity = `usage-${i}-${crypto.randomUUID().slice(0, 6)}`;
        const answer = await h.retryingClient(KEYS.b).createSession({ participant_identity: identity });
        sessions.push({ ...expectData(answer, 201), identity });
      },
    );
    // A third become active, so they end completed with active seconds; the rest end cancelled.
    await inBatches(sessions.slice(0, 334), 50, (s) =>
      delivered(() => h.webhook(roomEvent("participant_joined", s, { identity: s.identity, sid: `PA_${s.id}` }, "acct_b"))),
    );
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await Promise.all(
      sessions.map((s, i) =>
        delivered(() =>
          i % 2 === 0
            ? h
                .client(KEYS.b)
                .endSession(s.id)
                .then((answer) => answer.response)
            : h.webhook(roomEvent("room_finished", s, undefined, "acct_b")),
        ),
      ),
    );
    const now = (await usage({ from: today(), to: today() })).totals;

    // The sessions themselves, as listSessions shows them.
    const ids = new Set(sessions.map((s) => s.id));
    const mine: SessionSummary[] = [];
    for (let cursor: string | null = null; ; ) {
      const page: { data: SessionSummary[]; next_cursor: string | null } = expectData(
        await h.client(KEYS.b).listSessions(cursor ? { limit: 100, cursor } : { limit: 100 }),
      );
      mine.push(...page.data.filter((s) => ids.has(s.id)));
      cursor = page.next_cursor;
      if (cursor === null) break;
    }
    expect(mine).toHaveLength(1000);
    const count = (field: "status" | "end_reason", value: string) => mine.filter((s) => s[field] === value).length;
    const seconds = mine.reduce(
      (sum, s) => sum + (s.started_at ? Math.ceil((Date.parse(s.ended_at as string) - Date.parse(s.started_at)) / 1000) : 0),
      0,
    );
    expect(count("status", "completed")).toBe(334);
    expect(now.sessions_created - before.sessions_created).toBe(1000);
    expect(now.sessions_ended.completed - before.sessions_ended.completed).toBe(334);
    expect(now.sessions_ended.cancelled - before.sessions_ended.cancelled).toBe(count("status", "cancelled"));
    for (const reason of ["user_ended", "room_finished"]) {
      expect((now.end_reasons[reason as "user_ended"] ?? 0) - (before.end_reasons[reason as "user_ended"] ?? 0), reason).toBe(
        count("end_reason", reason),
      );
    }
    expect(now.active_seconds - before.active_seconds).toBe(seconds);
    expect(seconds).toBeGreaterThanOrEqual(334);
  }, 120_000);
});
