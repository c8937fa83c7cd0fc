/**
 * A turn of a digital human with documents (contract guide, "Knowledge"), on LiveKit's real AgentSession
 * without a room: the agent's onUserTurnCompleted, as the framework calls it when a participant's turn
 * ends, given the passages a fake service search answers. Without an LLM the digital human says the
 * passage's answering sentence word for word, or acknowledges; with one, the turn's context carries the
 * passages as a system message. The whole path (the real service, a spoken question) is the e2e tier's.
 */
import { until } from "@dhs/testkit";
import { initializeLogger, llm, type VAD, voice } from "@livekit/agents";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadVad } from "../hearing/vad.js";
import { testPersona } from "../job/persona.fixture.js";
import { type HeardLine, SAMPLE_RATE, Speaker } from "../speaking/speaker.js";
import type { Speech, Voice } from "../speaking/voice.js";
import { VoiceTTS } from "../speaking/voice-tts.js";
import { createConversation } from "./conversation-session.js";
import { ACKNOWLEDGEMENTS } from "./lines.js";
import type { Passage } from "./turn-knowledge.js";

const toneVoice: Voice = {
  async synthesize(text: string): Promise<Speech> {
    return { samples: new Int16Array(160 * text.length), sampleRate: 16_000 };
  },
};

const BREAKFAST: Passage = {
  document_id: "doc_4b1e9c2d7a3f5e60b8c1d2e3",
  document_name: "Harbour Hotel facts",
  text: "Breakfast\nBreakfast is served from 7:00 to 10:30 in the Garden Room. On weekends it is served until 11:00. Towels are in the rooms.",
  score: 0.4,
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

async function converse(found: (query: string) => Promise<Passage[] | undefined>, hasDocuments = true) {
  const heard: HeardLine[] = [];
  const steps: Record<string, number>[] = [];
  const queries: string[] = [];
  const speaker = new Speaker({ captureFrame: () => new Promise((resolve) => setTimeout(resolve, 1)) }, 5, {
    lineHeard: (line) => heard.push(line),
  });
  const running = speaker.run();
  const persona = testPersona({ knowledge: hasDocuments });
  const conversation = createConversation(
    { persona, digitalHuman: { id: "dh_ada", name: "Ada" } },
    {
      vad,
      tts: new VoiceTTS(toneVoice, undefined, SAMPLE_RATE),
      transcriber: undefined,
      llm: undefined,
      speaker,
      searchKnowledge: (query) => {
        queries.push(query);
        return found(query);
      },
    },
    {
      participantSaid: () => undefined,
      step: (step, fields) => {
        if (step === "knowledge") steps.push(fields ?? {});
      },
      replyFailed: () => undefined,
      sttFailed: () => undefined,
    },
  );
  await conversation.session.start({ agent: conversation.agent, record: false });
  cleanups.push(async () => {
    await conversation.session.close();
    speaker.stop();
    await running;
  });
  /** Ends a participant's turn with these words, as the framework does. */
  const turn = async (text: string) => {
    const chatCtx = llm.ChatContext.empty();
    const message = llm.ChatMessage.create({ role: "user", content: text });
    await conversation.agent.onUserTurnCompleted(chatCtx, message).catch((error: unknown) => {
      if (!(error instanceof voice.StopResponse)) throw error;
    });
    return chatCtx;
  };
  return { ...conversation, heard, steps, queries, turn, said: () => heard.map((line) => line.text) };
}

const soon = (check: () => boolean) => until(check, { everyMs: 20, timeoutMs: 10_000 });

describe("a digital human with documents, without an LLM", () => {
  it("answers with the passage's sentences that answer the question, word for word", async () => {
    const c = await converse(async () => [BREAKFAST]);
    await c.turn("What time is breakfast?");
    await soon(() => c.heard.length === 1);
    // The weekend's sentence adds none of the question's words ("time", "breakfast"): it is not said.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(c.said()).toEqual(["Breakfast is served from 7:00 to 10:30 in the Garden Room."]);
    expect(c.queries).toEqual(["What time is breakfast?"]);
    expect(c.steps).toEqual([{ ms: expect.any(Number), passages: 1 }]);
  });

  it("acknowledges, as without documents, a turn no passage answers, a search that failed, or one past its deadline", async () => {
    const c = await converse(async (query) => (query.includes("movie") ? [BREAKFAST] : query.includes("down") ? undefined : []));
    await c.turn("Do you like movies?");
    await c.turn("Is the pool heated?");
    await c.turn("Are you down?");
    await soon(() => c.heard.length === 3);
    expect(c.said().every((line) => ACKNOWLEDGEMENTS.includes(line))).toBe(true);
  });

  it("searches nothing when the session has no documents", async () => {
    const c = await converse(async () => [BREAKFAST], false);
    await c.turn("What time is breakfast?");
    await soon(() => c.heard.length === 1);
    expect(c.queries).toEqual([]);
    expect(ACKNOWLEDGEMENTS).toContain(c.said()[0]);
  });
});
