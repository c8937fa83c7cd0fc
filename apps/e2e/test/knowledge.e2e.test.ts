/**
 * Knowledge, with real parts and no LLM (a newcomer's machine): LiveKit, the service on Redis with its
 * PostgreSQL (the documents' index), the worker, and the demo page in Chromium whose fake microphone asks
 * about the demo's hotel in Flite's voice. The digital human answers with the sentence of the hotel's
 * facts that answers the question, word for word: heard, captioned and in the transcript; the turn's
 * session.participant_turn names the passage. (With an LLM, the passage in the LLM's request is the
 * demo command's test: pnpm demo's concierge.)
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createClient, type DhsClient } from "@dhs/client";
import { until, WebhookReceiver } from "@dhs/testkit";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { askingMicrophone, demoState, joinDemo, launchBrowser } from "./support/demo-page.js";
import { ARTIFACTS, DEV_API_KEY, type Stack, startStack, TIMEOUTS } from "./support/stack.js";

const QUESTION = "What time is breakfast?";
const ANSWER = "Breakfast is served from seven to half past ten in the garden room.";
const FACTS = readFileSync(fileURLToPath(new URL("../../demo/knowledge/harbour-hotel.md", import.meta.url)), "utf8");

let stack: Stack;
let browser: Browser;
let api: DhsClient;
const events = new WebhookReceiver();

beforeAll(async () => {
  await events.start();
  stack = await startStack(inject("livekitServer"), TIMEOUTS, "all");
  api = createClient({ baseUrl: stack.apiUrl, apiKey: DEV_API_KEY, maxRetries: 0 });
  const endpoint = await api.createWebhookEndpoint({ url: events.url, event_types: ["session.participant_turn"] });
  events.secrets = [endpoint.data?.secret ?? ""];
  // Asked once, then quiet long enough to hear the answer.
  browser = await launchBrowser(await askingMicrophone(QUESTION, 20, "e2e-participant-asks-breakfast"));
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await events.stop();
});

describe("a digital human with documents, without an LLM", () => {
  it("answers a spoken question about the hotel with the passage's sentence, heard, captioned, in the transcript, and names the passage in the turn's event", async () => {
    const doc = await api.createDocument({ name: "Harbour Hotel facts", format: "markdown", content: FACTS });
    if (!doc.data) throw new Error(`createDocument: ${JSON.stringify(doc.error)}`);
    const documentId = doc.data.id;
    await until(async () => (await api.getDocument(documentId)).data?.status === "ready", { what: "the document ready" });
    const dh = await api.createDigitalHuman({ name: "Maya", greeting: null, voice: "slt", knowledge: { document_ids: [documentId] } });
    if (!dh.data) throw new Error(`createDigitalHuman: ${JSON.stringify(dh.error)}`);

    const { page, sessionId } = await joinDemo(stack.demoUrl, browser, `?identity=ada&digital_human_id=${dh.data.id}`);
    try {
      await until(
        async () => ((await demoState(page)).captions.some((c) => c.who === "digital_human" && c.text === ANSWER) ? true : undefined),
        {
          what: `the digital human saying "${ANSWER}"`,
          timeoutMs: 60_000,
        },
      );
      const captions = (await demoState(page)).captions;
      console.log(
        `knowledge without an LLM: heard ${JSON.stringify(captions.filter((c) => c.who === "you").map((c) => c.text))}, said ${JSON.stringify(ANSWER)}`,
      );
      await page.screenshot({ path: `${ARTIFACTS}e2e-knowledge.png`, fullPage: true });

      const turn = await until(
        () => events.received.find((r) => r.body.data.session_id === sessionId && r.body.data.knowledge.length > 0),
        {
          what: "the participant's turn naming the passage",
        },
      );
      expect(turn.body.data.knowledge[0]).toMatchObject({ document_id: documentId, score: expect.any(Number) });
    } finally {
      await page.close();
      await api.endSession(sessionId);
    }
    const transcript = await until(
      async () => {
        const { data } = await api.getSessionTranscript(sessionId, { limit: 500 });
        return data?.segments.some((s) => s.speaker === "digital_human" && s.text.includes(ANSWER)) ? data : undefined;
      },
      { what: "the answer in the transcript", timeoutMs: 30_000 },
    );
    expect(transcript.segments.some((s) => s.speaker === "participant")).toBe(true);
    await stack.untilWorkerIdle();
  });
});
