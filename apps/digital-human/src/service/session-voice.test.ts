/**
 * What the backend asks for, on LiveKit's real AgentSession without a room (as conversation-session.test.ts):
 * said through the session's voice and the Speaker, so heard and captioned as the greeting is; cut by an
 * interruption; a note the LLM is told, and answers when asked.
 */
import { ChatCompletionsServer, messageText } from "@dhs/testkit";
import { initializeLogger, type VAD } from "@livekit/agents";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createConversation } from "../conversation/conversation-session.js";
import { loadVad } from "../hearing/vad.js";
import { testPersona } from "../job/persona.fixture.js";
import { SAMPLE_RATE, Speaker } from "../speaking/speaker.js";
import type { Speech, Voice } from "../speaking/voice.js";
import { VoiceTTS } from "../speaking/voice-tts.js";
import { ANSWER_NOTE, NOTE_PREFIX, sessionVoice } from "./session-voice.js";

/** 10 ms of tone per character, at once. */
const toneVoice: Voice = {
  async synthesize(text: string): Promise<Speech> {
    const samples = new Int16Array(160 * text.length).map((_, i) => Math.round(4000 * Math.sin(i / 4)));
    return { samples, sampleRate: 16_000 };
  },
};

let vad: VAD;
beforeAll(async () => {
  initializeLogger({ pretty: false, level: "warn" });
  vad = await loadVad();
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function started(withLlm: boolean) {
  let server: ChatCompletionsServer | undefined;
  if (withLlm) {
    server = await new ChatCompletionsServer({ script: () => ({ tokens: ["Good news, ", "it shipped."] }) }).start();
    const s = server;
    cleanups.push(() => s.stop());
  }
  const llm = server && { baseUrl: server.baseUrl, apiKey: "sk-test", defaultModel: "m", timeoutMs: 2000 };
  const started: string[] = [];
  const heard: { text: string; interrupted: boolean }[] = [];
  // Frames taken 20 times faster than real time.
  const speaker = new Speaker({ captureFrame: () => new Promise((resolve) => setTimeout(resolve, 1)) }, 5, {
    lineStarted: (text) => started.push(text),
    lineHeard: ({ text, interrupted }) => heard.push({ text, interrupted }),
  });
  const running = speaker.run();
  const persona = testPersona({ instructions: "You are Ada." });
  const events = { participantSaid: () => undefined, step: () => undefined, replyFailed: () => undefined, sttFailed: () => undefined };
  const conversation = createConversation(
    { persona, digitalHuman: { id: "dh_ada", name: "Ada" } },
    { vad, tts: new VoiceTTS(toneVoice, undefined, SAMPLE_RATE), transcriber: undefined, llm, speaker },
    events,
  );
  await conversation.session.start({ agent: conversation.agent, record: false });
  cleanups.push(async () => {
    await conversation.session.close();
    speaker.stop();
    await running;
  });
  const voice = sessionVoice(conversation.session, conversation.agent, { hasLlm: withLlm });
  return { ...conversation, voice, server, started, heard };
}

describe("the session's voice for the backend", () => {
  it("says a line as the greeting is said: its sentences captioned as they start, heard whole, kept in the conversation", async () => {
    const c = await started(false);
    const ended = await c.voice.say("Your order shipped this morning. It arrives on Thursday.");
    expect(ended).toEqual({ interrupted: false });
    expect(c.started).toEqual(["Your order shipped this morning.", "It arrives on Thursday."]);
    expect(c.heard.every((line) => !line.interrupted)).toBe(true);
    const said = c.session.history.items.flatMap((item) =>
      item.type === "message" && item.role === "assistant" ? [item.textContent] : [],
    );
    expect(said).toEqual(["Your order shipped this morning. It arrives on Thursday."]);
  });

  it("waits for what is being said, and cuts a line when interrupted", async () => {
    const c = await started(false);
    const greeting = "Hello Ada! I'm Maya. It's good to meet you. Say something, and I will listen.";
    c.session.say(greeting);
    let idle = false;
    const waiting = c.voice.idle().then(() => {
      idle = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(idle).toBe(false);
    await waiting;
    expect(c.heard.map((line) => line.text).join(" ")).toBe(greeting);

    const before = c.started.length;
    const saying = c.voice.say("A long line that goes on and on. ".repeat(8));
    while (c.started.length < before + 2) await new Promise((resolve) => setTimeout(resolve, 5));
    c.voice.interrupt();
    expect(await saying).toEqual({ interrupted: true });
    expect(c.heard.at(-1)?.interrupted).toBe(true);
  });

  it("tells the LLM a note as the business's, and has it answered when asked", async () => {
    const c = await started(true);
    await c.voice.addNote("Order 4417 shipped today.");
    await c.voice.reply?.();
    expect(c.heard.map((line) => line.text).join(" ")).toBe("Good news, it shipped.");
    const messages = c.server?.requests[0]?.messages.map((m) => [m.role, messageText(m)]) ?? [];
    expect(messages).toContainEqual(["system", `${NOTE_PREFIX}Order 4417 shipped today.`]);
    expect(messages.some(([, text]) => text?.includes(ANSWER_NOTE))).toBe(true);
  });

  it("has no answer to give without an LLM", async () => {
    const c = await started(false);
    expect(c.voice.reply).toBeUndefined();
  });
});
