/**
 * Analysis on a deployment without an LLM (no OPENAI_BASE_URL): a live session's analysis is `failed`
 * with `llm_not_configured`, never made up, with its event; a test session's waits `pending` for
 * setTestSessionAnalysis, so a customer can build their handler without one.
 */
import { randomUUID } from "node:crypto";
import { WebhookReceiver } from "@dhs/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postSegments, segment } from "../support/digital-human-posts.js";
import { DIGITAL_HUMANS, expectData, KEYS, until, useHarness } from "../support/harness.js";

const h = useHarness({ SWEEP_INTERVAL_MS: "100" });
const [AVA] = DIGITAL_HUMANS;
const events = new WebhookReceiver();

beforeAll(async () => {
  await events.start();
  for (const key of [KEYS.aHooks, KEYS.aTest]) {
    const endpoint = expectData(
      await h.client(key).createWebhookEndpoint({ url: events.url, event_types: ["session.analysis_ready"] }),
      201,
    );
    events.secrets = [...events.secrets, endpoint.secret as string];
  }
});
afterAll(() => events.stop());

async function endedSession(key: string, personaKey: string) {
  const dh = expectData(
    await h
      .client(personaKey)
      .createDigitalHuman({ name: "Lena", appearance: AVA?.id, analysis: { success_criteria: ["The guest got an answer."] } }),
    201,
  );
  const session = expectData(
    await h.client(key).createSession({ digital_human_id: dh.id, participant_identity: `p-${randomUUID().slice(0, 8)}` }),
    201,
  );
  expect((await postSegments(h, session, { segments: [segment("a", 0, "What time is breakfast?", "participant")] })).status).toBe(200);
  await h.client(key).endSession(session.id);
  expect((await postSegments(h, session, { segments: [], final: true })).status).toBe(200);
  return session;
}
const readyFor = (id: string) => events.received.filter((r) => r.type === "session.analysis_ready" && r.body.data?.session_id === id);

describe("without an LLM", () => {
  it("fails a live session's analysis with llm_not_configured, and says so in its one event", async () => {
    const session = await endedSession(KEYS.a, KEYS.aPersonas);
    const shown = await until(async () => {
      const analysis = expectData(await h.client().getSessionAnalysis(session.id));
      return analysis.status === "pending" ? undefined : analysis;
    });
    expect(shown).toMatchObject({
      status: "failed",
      summary: null,
      data: null,
      success_criteria: [],
      error: { code: "llm_not_configured" },
    });
    const [event] = await until(() => (readyFor(session.id).length > 0 ? readyFor(session.id) : undefined));
    expect(event?.body).toMatchObject({ type: "session.analysis_ready", mode: "live", data: shown });
  });

  it("keeps a test session's analysis pending for setTestSessionAnalysis", async () => {
    const session = await endedSession(KEYS.aTest, KEYS.aTest);
    await new Promise((resolve) => setTimeout(resolve, 600));
    const client = h.client(KEYS.aTest);
    expect(expectData(await client.getSessionAnalysis(session.id)).status).toBe("pending");
    expect(readyFor(session.id)).toHaveLength(0);
    const set = expectData(
      await client.setTestSessionAnalysis(session.id, {
        status: "complete",
        summary: "The guest asked when breakfast is.",
        success_criteria: [{ criterion: "The guest got an answer.", result: "unknown", reason: "Nobody answered." }],
      }),
    );
    expect(set).toMatchObject({ status: "complete", data: null });
    const [event] = await until(() => (readyFor(session.id).length > 0 ? readyFor(session.id) : undefined));
    expect(event?.body).toMatchObject({ type: "session.analysis_ready", mode: "test", data: set });
  });
});
