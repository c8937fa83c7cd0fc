/**
 * Two replicas on one Redis and one PostgreSQL, each with its own sweeper: every due session is ended exactly once, by one
 * of them, and its room deleted once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness, until } from "../support/harness.js";

let replicas: Harness[];
beforeAll(async () => {
  // One keyspace for both: they are replicas of one deployment.
  const env = { SESSION_JOIN_TIMEOUT_S: "1", SWEEP_INTERVAL_MS: "50", REDIS_KEY_PREFIX: `r${crypto.randomUUID().slice(0, 8)}` };
  const first = await startHarness(env);
  // And one database: the first harness's, which it drops when it closes, last.
  replicas = [first, await startHarness({ ...env, DATABASE_URL: first.databaseUrl as string })];
});
afterAll(async () => {
  for (const replica of [...(replicas ?? [])].reverse()) await replica.close();
});

describe("two sweepers sharing one Redis", () => {
  it("end each due session once and delete its room once", async () => {
    const [a, b] = replicas as [Harness, Harness];
    const sessions = await Promise.all(Array.from({ length: 30 }, async () => (await a.create({})).json()));
    // Replica b's LiveKit stand-in must know the rooms too, as one LiveKit serves both replicas.
    for (const s of sessions) b.livekit.rooms.add(s.room_name);
    await until(
      async () => {
        const list = await (await a.request("GET", "/v1/sessions?status=cancelled&limit=100")).json();
        return sessions.every((s) => list.data.some((i: { id: string }) => i.id === s.id));
        // The sweepers' pace, not the test's: a starved CI machine took longer than the default 8 s.
      },
      { timeoutMs: 60_000, what: "all 30 sessions cancelled by the join timeout" },
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const deletes = [...a.livekit.callsOf("DeleteRoom"), ...b.livekit.callsOf("DeleteRoom")].map((c) => c.body.room as string);
    for (const s of sessions)
      expect(
        deletes.filter((room) => room === s.room_name),
        s.room_name,
      ).toHaveLength(1);
    const ended = await Promise.all(sessions.map((s) => a.session(s.id)));
    expect(new Set(ended.map((s) => s.status))).toEqual(new Set(["cancelled"]));
    expect(deletes).toHaveLength(sessions.length);
  });
});
