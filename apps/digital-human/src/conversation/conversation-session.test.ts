/**
 * The conversation on LiveKit's real AgentSession, without a room: the persona's agent, the voice as the
 * session's TTS, the Speaker as its audio output, and (when the test gives one) the OpenAI plugin pointed
 * at the testkit's Chat Completions server. What the digital human says is read off the Speaker, as the
 * participant would hear it.
 */
import type { Tool } from "@dhs/contract";
import { ChatCompletionsServer, type ChatScript, messageText, toolResults, until } from "@dhs/testkit";
import { initializeLogger, llm, type VAD, voice } from "@livekit/agents";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadVad } from "../hearing/vad.js";
import type { JobPersona } from "../job/job-metadata.js";
import { testPersona } from "../job/persona.fixture.js";
import { type HeardLine, SAMPLE_RATE, Speaker } from "../speaking/speaker.js";
import type { Speech, Voice } from "../speaking/voice.js";
import { VoiceTTS } from "../speaking/voice-tts.js";
import { NOT_HEARD } from "./conversation-agent.js";
import { type ConversationEvents, createConversation } from "./conversation-session.js";
import { APOLOGY, type ReplyFailure } from "./guarded-reply.js";
import type { LlmSettings } from "./llm-settings.js";
import { REMEMBERED_HEADING, USE_NATURALLY } from "./remembered.js";
import { GOODBYE, HOLD_LINE, type ToolHost } from "./session-tools.js";
import { spokenLines } from "./spoken-lines.js";

/** A voice that says every text as 10 ms of tone per character, at once: the pipeline's timing without eSpeak's. */
const toneVoice: Voice = {
  async synthesize(text: string): Promise<Speech> {
    const samples = new Int16Array(160 * text.length).map((_, i) => Math.round(4000 * Math.sin(i / 4)));
    return { samples, sampleRate: 16_000 };
  },
};

const persona = (instructions: string | undefined, tools: Tool[] = [], memory?: string[], language = "en"): JobPersona =>
  testPersona({ instructions, llm: { model: "persona-model", temperature: 0.4 }, tools, memory, language });

let vad: VAD;
beforeAll(async () => {
  initializeLogger({ pretty: false, level: "warn" });
  vad = await loadVad();
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function converse(options: {
  instructions?: string;
  script?: (n: number) => ChatScript;
  timeoutMs?: number;
  tools?: Tool[];
  host?: Omit<ToolHost, "onLateResult">;
  memory?: string[];
  language?: string;
}) {
  let llm: LlmSettings | undefined;
  let server: ChatCompletionsServer | undefined;
  if (options.script) {
    const script = options.script;
    server = await new ChatCompletionsServer({ script: () => script((server?.requests.length ?? 1) - 1) }).start();
    cleanups.push(() => (server as ChatCompletionsServer).stop());
    llm = { baseUrl: server.baseUrl, apiKey: "sk-test", defaultModel: "default-model", timeoutMs: options.timeoutMs ?? 2000 };
  }
  const heard: HeardLine[] = [];
  const failures: ReplyFailure[] = [];
  // Frames taken 20 times faster than real time: a test hears a reply in a twentieth of its length.
  const speaker = new Speaker({ captureFrame: () => new Promise((resolve) => setTimeout(resolve, 1)) }, 5, {
    lineHeard: (line) => heard.push(line),
  });
  const running = speaker.run();
  const events: ConversationEvents = {
    participantSaid: () => undefined,
    step: () => undefined,
    replyFailed: (f) => failures.push(f),
    sttFailed: () => undefined,
  };
  const job = {
    persona: persona(options.instructions, options.tools, options.memory, options.language),
    digitalHuman: { id: "dh_ada", name: "Ada" },
  };
  const conversation = createConversation(
    job,
    { vad, tts: new VoiceTTS(toneVoice, undefined, SAMPLE_RATE), transcriber: undefined, llm, speaker, tools: options.host },
    events,
  );
  await conversation.session.start({ agent: conversation.agent, record: false });
  cleanups.push(async () => {
    await conversation.session.close();
    speaker.stop();
    await running;
  });
  const said = () => heard.map((line) => line.text).join(" ");
  return { ...conversation, server, heard, said, failures };
}

/** The testkit's until, polling often: the tests count what happened by the moment it holds. */
const soon = (check: () => boolean) => until(check, { everyMs: 20, timeoutMs: 10000 });

describe("the conversation, with an LLM", () => {
  it("asks the LLM as the persona, with the participant's words, and says its reply sentence by sentence", async () => {
    const c = await converse({
      instructions: "You are Ada, a concise travel agent.",
      script: () => ({ tokens: ["Lisbon is ", "sunny this week. ", "Pack light ", "clothes!"], firstTokenMs: 50 }),
    });
    await c.session.run({ userInput: "What is the weather in Lisbon?" }).wait();
    await soon(() => c.said().includes("Pack light clothes!"));
    const request = c.server?.requests[0];
    expect(request?.model).toBe("persona-model");
    expect(request?.temperature).toBe(0.4);
    expect(request?.stream).toBe(true);
    const messages = request?.messages.map((m) => [m.role, messageText(m)]);
    expect(messages?.[0]).toEqual(["system", "You are Ada, a concise travel agent."]);
    expect(messages?.at(-1)).toEqual(["user", "What is the weather in Lisbon?"]);
    expect(c.heard.map((line) => line.text)).toEqual(["Lisbon is sunny this week.", "Pack light clothes!"]);
    expect(c.failures).toEqual([]);
  });

  it("tells the LLM what it remembers about a returning participant, as data after the persona's instructions", async () => {
    const c = await converse({
      instructions: "You are Ada, a concise travel agent.",
      memory: ["Name is Grace", "Booked Lisbon in May"],
      script: () => ({ tokens: ["Welcome back, Grace!"] }),
    });
    await c.session.run({ userInput: "Hi, it's me again." }).wait();
    await soon(() => c.said().includes("Welcome back, Grace!"));
    const [system] = c.server?.requests[0]?.messages.map(messageText) ?? [];
    expect(system).toBe(
      ["You are Ada, a concise travel agent.", "", REMEMBERED_HEADING, "- Name is Grace", "- Booked Lisbon in May", USE_NATURALLY].join(
        "\n",
      ),
    );
  });

  // A 401 is not retried; a 503 is, once.
  it.each([
    ["refuses the key (401)", { status: 401 }, 1],
    ["is overloaded (503, and again on the retry)", { status: 503 }, 2],
  ] as const)("apologizes, and the next turn works, when the LLM %s", async (_, refusal, requests) => {
    const c = await converse({ script: (n) => (n < requests ? refusal : { tokens: ["Yes, I am here."] }) });
    await c.session.run({ userInput: "Hello?" }).wait();
    await soon(() => c.said().includes(APOLOGY));
    expect(c.failures.map((f) => f.kind)).toEqual(["error"]);
    expect(c.server?.requests).toHaveLength(requests);
    await c.session.run({ userInput: "Are you there?" }).wait();
    await soon(() => c.said().includes("Yes, I am here."));
    expect(c.session.agentState).not.toBe("initializing");
  });

  it("keeps what was said of a reply broken midway, then apologizes", async () => {
    const c = await converse({
      script: () => ({ tokens: ["The museum opens at nine. ", "On Sundays it ", "opens at ten."], breakAfter: 2 }),
    });
    await c.session.run({ userInput: "When does the museum open?" }).wait();
    await soon(() => c.said().includes(APOLOGY));
    expect(c.said()).toContain("The museum opens at nine.");
    expect(c.said()).not.toContain("opens at ten");
  });

  it("gives up on an LLM that hangs past the timeout, and says so", async () => {
    const c = await converse({ script: (n) => (n === 0 ? "hang" : { tokens: ["Ok."] }), timeoutMs: 500 });
    const asked = Date.now();
    await c.session.run({ userInput: "Hello?" }).wait();
    await soon(() => c.said().includes(APOLOGY));
    expect(Date.now() - asked).toBeLessThan(4000);
    expect(c.failures.length).toBeGreaterThanOrEqual(1);
  });

  it("asks the participant to say it again when the recognizer heard no words", async () => {
    const c = await converse({ script: () => ({ tokens: ["Unused."] }) });
    c.agent.nothingHeard();
    await soon(() => c.said() === NOT_HEARD);
    expect(c.server?.requests).toHaveLength(0);
  });
});

describe("a persona in Spanish", () => {
  it("tells the LLM to answer in Spanish, and says its own lines in Spanish", async () => {
    const spanish = spokenLines("es");
    const c = await converse({ language: "es", script: (n) => (n === 0 ? { status: 401 } : { tokens: ["Sí, aquí estoy."] }) });
    await c.session.run({ userInput: "¿Hola?" }).wait();
    await soon(() => c.said().includes(spanish.apology));
    expect(messageText(c.server?.requests[0]?.messages[0] as never)).toMatch(/Always answer in Spanish \(es\)/);
    c.agent.nothingHeard();
    await soon(() => c.said().includes(spanish.notHeard));
    expect(c.said()).not.toContain(NOT_HEARD);
  });
});

describe("a turn with no words (no recognizer installed)", () => {
  it("is answered as one nothing was heard in, and never sent to the LLM as an empty message", async () => {
    const c = await converse({ script: () => ({ tokens: ["Something nobody asked for."] }) });
    const turn = llm.ChatMessage.create({ role: "user", content: "" });
    await expect(c.agent.onUserTurnCompleted(c.agent.chatCtx.copy(), turn)).rejects.toBeInstanceOf(voice.StopResponse);
    await soon(() => c.said() === NOT_HEARD);
    expect(c.server?.requests).toHaveLength(0);
    // A turn with words goes to the LLM as before.
    await c.agent.onUserTurnCompleted(c.agent.chatCtx.copy(), llm.ChatMessage.create({ role: "user", content: "Hi" }));
  });

  it("without an LLM, is acknowledged", async () => {
    const c = await converse({});
    await expect(
      c.agent.onUserTurnCompleted(c.agent.chatCtx.copy(), llm.ChatMessage.create({ role: "user", content: " " })),
    ).rejects.toBeInstanceOf(voice.StopResponse);
    await soon(() => c.heard.length === 1);
  });
});

describe("the conversation, without an LLM", () => {
  it("acknowledges each turn, never the same line twice in a row, and asks no LLM", async () => {
    const c = await converse({});
    const turns = 4;
    for (let i = 0; i < turns; i++) {
      c.agent.nothingHeard();
      await soon(() => c.heard.length === i + 1);
    }
    const lines = c.heard.map((line) => line.text);
    for (let i = 1; i < lines.length; i++) expect(lines[i]).not.toBe(lines[i - 1]);
    expect(lines.every((line) => line.length < 30)).toBe(true);
  });
});

const ORDER_STATUS: Tool = {
  type: "webhook",
  name: "order_status",
  description: "Looks up an order by its id.",
  parameters: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] },
  endpoint_id: "we_000000000000000000000001",
  timeout_ms: 5_000,
};
const END_CALL: Tool = { type: "end_session", name: "end_call", description: "Ends the call after a goodbye." };

/** The service's side of the tools, as a test sees it: each call it was asked to run, answered as the test says. */
function fakeHost(answer: (call: { name: string; arguments: Record<string, unknown> }) => Promise<Record<string, unknown>>) {
  const runs: { id: string; name: string; arguments: Record<string, unknown>; outcome: unknown; heardBefore: string }[] = [];
  let heardNow = () => "";
  const host: Omit<ToolHost, "onLateResult"> = {
    async run(call, outcome) {
      runs.push({ ...call, outcome, heardBefore: heardNow() });
      const recorded = outcome
        ? { status: outcome.status, result: outcome.result ?? null, error: outcome.error ?? null }
        : await answer(call);
      return {
        id: call.id,
        name: call.name,
        type: "webhook",
        arguments: call.arguments,
        started_at: "",
        duration_ms: 1,
        ...recorded,
      } as never;
    },
    callPage: () => Promise.reject(new Error("no page in this test")),
  };
  return { host, runs, hear: (said: () => string) => (heardNow = said) };
}

describe("the conversation's tools", () => {
  it("offers the persona's tools, runs the one the LLM calls once, and answers with its result", async () => {
    const fake = fakeHost(async () => ({ status: "succeeded", result: { status: "shipped", arrives: "Thursday" }, error: null }));
    const c = await converse({
      tools: [ORDER_STATUS],
      host: fake.host,
      script: (n) =>
        n === 0
          ? { toolCalls: [{ id: "call_1", name: "order_status", arguments: { order_id: "A-1042" } }] }
          : { tokens: ["Your order arrives on Thursday."] },
    });
    await c.session.run({ userInput: "Where is my order A-1042?" }).wait();
    await soon(() => c.said().includes("arrives on Thursday"));
    expect(fake.runs.map((r) => [r.id, r.name, r.arguments])).toEqual([["call_1", "order_status", { order_id: "A-1042" }]]);
    expect(JSON.stringify(c.server?.requests[0]?.tools)).toContain('"name":"order_status"');
    expect(toolResults(c.server?.requests[1] as never)).toEqual([
      { toolCallId: "call_1", content: '{"status":"shipped","arrives":"Thursday"}' },
    ]);
  });

  it("gives the LLM a failed call's error, so the digital human says it could not", async () => {
    const fake = fakeHost(async () => ({ status: "timed_out", result: null, error: "The tool did not answer within 5000 ms." }));
    const c = await converse({
      tools: [ORDER_STATUS],
      host: fake.host,
      script: (n) =>
        n === 0
          ? { toolCalls: [{ name: "order_status", arguments: { order_id: "A-9" } }] }
          : { tokens: ["Sorry, I could not check that."] },
    });
    await c.session.run({ userInput: "Where is order A-9?" }).wait();
    await soon(() => c.said().includes("could not check"));
    expect(toolResults(c.server?.requests[1] as never)[0]?.content).toContain("did not answer within 5000 ms");
  });

  it("says a short line while a call runs past a second, then the answer", async () => {
    const fake = fakeHost(async () => {
      await new Promise((resolve) => setTimeout(resolve, 1_800));
      return { status: "succeeded", result: "booked", error: null };
    });
    const c = await converse({
      tools: [ORDER_STATUS],
      host: fake.host,
      script: (n) => (n === 0 ? { toolCalls: [{ name: "order_status", arguments: { order_id: "B" } }] } : { tokens: ["It is booked."] }),
    });
    await c.session.run({ userInput: "Book it." }).wait();
    await soon(() => c.said().includes("It is booked."));
    expect(c.said().indexOf(HOLD_LINE)).toBeGreaterThanOrEqual(0);
    expect(c.said().indexOf(HOLD_LINE)).toBeLessThan(c.said().indexOf("It is booked."));
  });

  it("ends the session with end_session only after its goodbye was heard", async () => {
    const fake = fakeHost(async () => ({ status: "succeeded", result: null, error: null }));
    const c = await converse({
      tools: [END_CALL],
      host: fake.host,
      script: (n) => (n === 0 ? { toolCalls: [{ name: "end_call", arguments: {} }] } : { tokens: ["Bye."] }),
    });
    fake.hear(c.said);
    await c.session.run({ userInput: "That's all, bye!" }).wait();
    await soon(() => fake.runs.length === 1);
    expect(fake.runs[0]?.heardBefore).toContain(GOODBYE);
    expect(fake.runs[0]?.outcome).toMatchObject({ status: "succeeded" });
  });

  it("offers no tool without an LLM", async () => {
    const fake = fakeHost(async () => ({ status: "succeeded", result: null, error: null }));
    const c = await converse({ tools: [ORDER_STATUS], host: fake.host });
    expect(c.agent.toolCtx.functionTools).toEqual({});
  });
});
