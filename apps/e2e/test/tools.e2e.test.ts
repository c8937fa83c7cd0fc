/**
 * Tools, with real parts: LiveKit, the service, the worker with its LLM pointed at the testkit's Chat
 * Completions server (which calls the tools as OpenAI streams them), the demo page in Chromium whose fake
 * microphone asks a question, and the customer's endpoint (a WebhookReceiver verifying with its own copy
 * of the secret). Each case is a session of one digital human with a tool of each type.
 */
import { readFileSync } from "node:fs";
import { createClient, type DhsClient, verifyToolCall } from "@dhs/client";
import { LOG } from "@dhs/digital-human/log-lines";
import { ChatCompletionsServer, type ChatRequest, type ChatScript, toolResults, until, WebhookReceiver } from "@dhs/testkit";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { askingMicrophone, demoState, joinDemo, launchBrowser } from "./support/demo-page.js";
import { ARTIFACTS, DEV_API_KEY, type Stack, startStack, TIMEOUTS } from "./support/stack.js";

const QUESTION = "Where is my order, please?";
/** Seconds of quiet after the question before the microphone asks it again. */
const QUIET_S = 8;
const HOLD_LINE = "One moment, let me check.";
const ANSWER = "Your order shipped this morning and arrives on Thursday.";
const STILL_LOOKING = "I am still looking into your order.";
const FAILURE = "Sorry, I could not check your order right now.";
const SHOWN = "I put the details on your screen.";
const GOODBYE = "Goodbye Ada, have a lovely day!";

type Case = "order" | "slow" | "timeout" | "card" | "bye";
let now: Case = "order";
let stack: Stack;
let llm: ChatCompletionsServer;
let browser: Browser;
let api: DhsClient;
const endpoint = new WebhookReceiver();
let endpointId = "";

/** The LLM's part: a tool call for the participant's first turn of each case, then words from the tool's result. */
function script(request: ChatRequest): ChatScript {
  const last = request.messages.at(-1);
  if (last?.role === "tool") {
    const result = toolResults(request).at(-1)?.content ?? "";
    if (result.includes("shipped")) return { tokens: [ANSWER] };
    if (result.includes("shown")) return { tokens: [SHOWN] };
    if (result.includes("did not answer")) return { tokens: [FAILURE] };
    return { tokens: ["Done."] };
  }
  const called = request.messages.some((m) => m.role === "assistant" && (m.tool_calls?.length ?? 0) > 0);
  if (called) return { tokens: [STILL_LOOKING] };
  if (now === "card") return { toolCalls: [{ name: "show_card", arguments: { title: "Order A-1042", text: "Arrives Thursday" } }] };
  if (now === "bye") return { tokens: [GOODBYE], toolCalls: [{ name: "end_call", arguments: {} }] };
  return { toolCalls: [{ name: now === "timeout" ? "quick_status" : "order_status", arguments: { order_id: "A-1042" } }] };
}

beforeAll(async () => {
  llm = await new ChatCompletionsServer({ script, apiKey: "sk-e2e" }).start();
  await endpoint.start();
  stack = await startStack(inject("livekitServer"), TIMEOUTS, "all", { OPENAI_BASE_URL: llm.baseUrl, OPENAI_API_KEY: "sk-e2e" });
  api = createClient({ baseUrl: stack.apiUrl, apiKey: DEV_API_KEY, maxRetries: 0 });
  const made = await api.createWebhookEndpoint({ url: endpoint.url, event_types: ["session.tool_called"] });
  if (!made.data) throw new Error(`createWebhookEndpoint: ${JSON.stringify(made.error)}`);
  endpointId = made.data.id;
  endpoint.secrets = [made.data.secret ?? ""];
  browser = await launchBrowser(await askingMicrophone(QUESTION, QUIET_S, "e2e-participant-asks-order"));
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await llm?.stop();
  await endpoint.stop();
});

const ORDER = { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] };

/** A session of a digital human with every kind of tool, joined from the demo page as `case`. */
async function joined(which: Case, delayMs = 0): Promise<{ page: Page; sessionId: string; done: () => Promise<void> }> {
  now = which;
  endpoint.answer = (d) =>
    d.type === "session.tool_call" ? { status: 200, body: JSON.stringify({ result: { status: "shipped" } }), delayMs } : { status: 204 };
  const { data: dh, error } = await api.createDigitalHuman({
    name: "Maya",
    greeting: null,
    voice: "slt",
    tools: [
      {
        type: "webhook",
        name: "order_status",
        description: "Looks up an order.",
        parameters: ORDER,
        endpoint_id: endpointId,
        timeout_ms: 15_000,
      },
      {
        type: "webhook",
        name: "quick_status",
        description: "Looks up an order fast.",
        parameters: ORDER,
        endpoint_id: endpointId,
        timeout_ms: 1_500,
      },
      { type: "client", name: "show_card", description: "Shows a card on the participant's screen." },
      { type: "end_session", name: "end_call" },
    ],
  });
  if (!dh) throw new Error(`createDigitalHuman: ${JSON.stringify(error)}`);
  const { page, sessionId } = await joinDemo(stack.demoUrl, browser, `?identity=ada&digital_human_id=${dh.id}`);
  return {
    page,
    sessionId,
    done: async () => {
      await page.screenshot({ path: `${ARTIFACTS}e2e-tools-${which}.png`, fullPage: true });
      await page.close();
      await api.endSession(sessionId).catch(() => undefined);
      await stack.untilWorkerIdle();
      await api.deleteDigitalHuman(dh.id).catch(() => undefined);
    },
  };
}

const said = async (page: Page) => (await demoState(page)).captions.filter((c) => c.who === "digital_human").map((c) => c.text);
const saying = (page: Page, text: string, timeoutMs = 60_000) =>
  until(async () => ((await said(page)).includes(text) ? true : undefined), { what: `the digital human saying "${text}"`, timeoutMs });
const callsOf = (sessionId: string) => endpoint.of("session.tool_call").filter((d) => d.body.data.session_id === sessionId);
const listed = async (sessionId: string) => (await api.listSessionToolCalls(sessionId)).data?.data ?? [];

describe("tools in a conversation", () => {
  it("a spoken question: the LLM calls a webhook tool, the endpoint gets it signed, its result is in the next request and the answer is heard", async () => {
    const c = await joined("order");
    try {
      await saying(c.page, ANSWER);
      const [call] = callsOf(c.sessionId);
      expect(call?.verifiedWith).toBe(0);
      const verified = verifyToolCall(call?.raw ?? "", call?.headers as Record<string, string>, endpoint.secrets[0] ?? "");
      expect(verified.data).toMatchObject({ name: "order_status", arguments: { order_id: "A-1042" }, participant_identity: "ada" });
      const answered = llm.requests.find((r) => toolResults(r).some((t) => t.toolCallId === verified.data.tool_call_id));
      expect(toolResults(answered as ChatRequest).at(-1)?.content).toContain("shipped");
      expect(await listed(c.sessionId)).toEqual([expect.objectContaining({ id: verified.data.tool_call_id, status: "succeeded" })]);
      await until(() => (endpoint.of("session.tool_called").some((e) => e.body.data.session_id === c.sessionId) ? true : undefined));
    } finally {
      await c.done();
    }
  });

  it("a slow call the participant talks over: one call, the hold line, and its result used once it comes", async () => {
    const c = await joined("slow", 12_000);
    try {
      await saying(c.page, ANSWER, 90_000);
      const lines = await said(c.page);
      expect(lines).toContain(HOLD_LINE);
      expect(callsOf(c.sessionId)).toHaveLength(1);
      const turns = readFileSync(`${stack.logs}digital-human.log`, "utf8")
        .split("\n")
        .filter((line) => line.includes(c.sessionId) && line.includes(LOG.participantSaid));
      console.log(`slow call: the participant spoke ${turns.length} times; the digital human said ${JSON.stringify(lines)}`);
      // They spoke again while the call ran, and were answered; the call's result came after, and was used.
      expect(turns.length).toBeGreaterThanOrEqual(2);
      expect(lines.indexOf(STILL_LOOKING)).toBeGreaterThanOrEqual(0);
      expect(lines.indexOf(STILL_LOOKING)).toBeLessThan(lines.indexOf(ANSWER));
      expect(await listed(c.sessionId)).toEqual([expect.objectContaining({ name: "order_status", status: "succeeded" })]);
    } finally {
      await c.done();
    }
  });

  it("an endpoint past the tool's timeout: the call is timed_out and the digital human says it could not", async () => {
    const c = await joined("timeout", 4_000);
    try {
      await saying(c.page, FAILURE);
      expect(await listed(c.sessionId)).toEqual([expect.objectContaining({ name: "quick_status", status: "timed_out" })]);
    } finally {
      await c.done();
    }
  });

  it("a client tool shows a card on the demo page, and is recorded with the page's answer", async () => {
    const c = await joined("card");
    try {
      await saying(c.page, SHOWN);
      expect(await c.page.textContent("#cards")).toContain("Arrives Thursday");
      expect(await listed(c.sessionId)).toEqual([
        expect.objectContaining({ name: "show_card", type: "client", status: "succeeded", result: { shown: true } }),
      ]);
    } finally {
      await c.done();
    }
  });

  it("end_session ends the session, completed with digital_human_ended, after the goodbye is heard", async () => {
    const c = await joined("bye");
    try {
      await saying(c.page, GOODBYE);
      const heardAt = Date.now();
      const ended = await until(
        async () => {
          const { data } = await api.listSessions({ limit: 10 });
          const mine = data?.data.find((s) => s.id === c.sessionId);
          return mine?.status === "completed" ? mine : undefined;
        },
        { what: "the session ended", timeoutMs: 30_000 },
      );
      expect(ended.end_reason).toBe("digital_human_ended");
      // The end comes after the goodbye's caption (captioned as it starts): it was said, then the session ended.
      expect(Date.parse(ended.ended_at ?? "")).toBeGreaterThan(heardAt - 1_000);
      expect(await listed(c.sessionId)).toEqual([expect.objectContaining({ name: "end_call", type: "end_session", status: "succeeded" })]);
    } finally {
      await c.done();
    }
  });
});
