/**
 * Analyses in the PostgreSQL history: written with their session (its record holds the analysis), read
 * the same once Redis has lost the session, and erased there with the transcript.
 */
import { ChatCompletionsServer } from "@dhs/testkit";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { flushPrefix } from "../support/database.js";
import { postSegments, segment } from "../support/digital-human-posts.js";
import { DIGITAL_HUMANS, expectData, KEYS, until, useHarness } from "../support/harness.js";

const SUMMARY = "Ada asked for a quote for 40 seats.";
const llm = await new ChatCompletionsServer({ script: () => ({ json: { summary: SUMMARY } }) }).start();
const h = useHarness({ SWEEP_INTERVAL_MS: "100", OPENAI_BASE_URL: llm.baseUrl });
let redis: Redis;
beforeAll(async () => {
  redis = new Redis(inject("redisUrl"));
});
afterAll(async () => {
  redis?.disconnect();
  await llm.stop();
});

/** The analysis as the history's row of the session holds it. */
async function storedAnalysis(sessionId: string): Promise<Record<string, unknown> | undefined> {
  const client = new pg.Client({ connectionString: h.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ analysis: Record<string, unknown> | null }>(
      "SELECT record->'analysis' AS analysis FROM sessions WHERE id = $1",
      [sessionId],
    );
    return rows[0]?.analysis ?? undefined;
  } finally {
    await client.end();
  }
}

describe("analyses in the PostgreSQL history", () => {
  it("are written with their session, read the same once Redis lost it, and erased there with the transcript", async () => {
    const dh = expectData(
      await h.client(KEYS.aPersonas).createDigitalHuman({ name: "Lena", appearance: DIGITAL_HUMANS[0].id, analysis: { summary: true } }),
      201,
    );
    const session = expectData(await h.client().createSession({ digital_human_id: dh.id }), 201);
    expect(
      (await postSegments(h, session, { segments: [segment("a", 0, "I'm Ada, a quote for 40 seats please.", "participant")] })).status,
    ).toBe(200);
    await h.client().endSession(session.id);
    expect((await postSegments(h, session, { segments: [], final: true })).status).toBe(200);
    await until(async () => ((await storedAnalysis(session.id))?.status === "complete" ? true : undefined), { timeoutMs: 15_000 });
    const before = expectData(await h.client().getSessionAnalysis(session.id));
    expect(before).toMatchObject({ status: "complete", summary: SUMMARY });

    await flushPrefix(redis, h.redisPrefix);
    expect(expectData(await h.client().getSessionAnalysis(session.id))).toEqual(before);
    expect((await h.request("GET", `/v1/sessions/${session.id}/analysis`, { key: KEYS.b })).status).toBe(404);

    expectData(await h.client().deleteSessionTranscript(session.id));
    expect(expectData(await h.client().getSessionAnalysis(session.id)).status).toBe("deleted");
    const erased = await storedAnalysis(session.id);
    expect(erased).toMatchObject({ status: "deleted" });
    expect(erased).not.toHaveProperty("summary");
  });
});
