/**
 * The job's AgentSession as the conversation driver needs it (conversation-driver.ts), on the framework's
 * own calls, so what the backend asks for goes the way of everything else the digital human says:
 *
 * - `say`: `session.say`, the greeting's path: the session's TTS in the persona's voice, the Speaker, its
 *   captions, the transcript, and the conversation (the LLM knows what was said, as far as it was heard).
 * - `interrupt`: `session.interrupt()`, which cuts the speech playing and the ones queued behind it.
 * - `addNote`: a system message in the agent's chat context (`agent.updateChatCtx` with a copy of it, as
 *   the framework asks), which every later request of the LLM carries.
 * - `reply`: `session.generateReply`, asked to answer the latest note.
 * - `idle`: no speech of the session's pending (its `speech_created` events, each handle until done) and
 *   the participant not speaking, then `session.waitForIdle()`, which also waits out a turn of theirs
 *   still being ended and the answer it leads to. Only then: waitForIdle polls while the participant
 *   speaks, and each of its waits leaves a listener on the session's close signal until it closes.
 */
import { voice } from "@livekit/agents";
import type { DrivenVoice } from "./conversation-driver.js";

/** How a note is put to the LLM: said to come from the business, not from the participant. */
export const NOTE_PREFIX = "Note from the business (not said by the participant): ";
export const ANSWER_NOTE = "Tell the participant, briefly and in your own words, what the latest note from the business means for them.";

export interface SessionVoiceOptions {
  hasLlm: boolean;
}

export function sessionVoice(session: voice.AgentSession, agent: voice.Agent, { hasLlm }: SessionVoiceOptions): DrivenVoice {
  const pending = new Set<voice.SpeechHandle>();
  const waiting: (() => void)[] = [];
  const changed = () => {
    for (const resolve of waiting.splice(0)) resolve();
  };
  session.on(voice.AgentSessionEventTypes.SpeechCreated, ({ speechHandle }) => {
    pending.add(speechHandle);
    speechHandle.addDoneCallback((done) => {
      pending.delete(done);
      changed();
    });
  });
  session.on(voice.AgentSessionEventTypes.UserStateChanged, changed);
  const quiet = () => pending.size === 0 && session.userState !== "speaking";
  return {
    say: (text: string) => ended(session.say(text, { allowInterruptions: true, addToChatCtx: true })),
    interrupt: () => {
      // Refused only while a speech that disallows it plays; the job makes none.
      try {
        void session.interrupt();
      } catch {}
    },
    addNote: async (text: string) => {
      const chatCtx = agent.chatCtx.copy();
      chatCtx.addMessage({ role: "system", content: `${NOTE_PREFIX}${text}` });
      await agent.updateChatCtx(chatCtx);
    },
    reply: hasLlm ? async () => void (await ended(session.generateReply({ instructions: ANSWER_NOTE }))) : undefined,
    idle: async () => {
      for (;;) {
        while (!quiet()) await new Promise<void>((resolve) => waiting.push(resolve));
        await session.waitForIdle();
        if (quiet()) return;
      }
    },
  };
}

function ended(handle: voice.SpeechHandle): Promise<{ interrupted: boolean }> {
  return new Promise((resolve) => handle.addDoneCallback((done) => resolve({ interrupted: done.interrupted })));
}
