/**
 * The job's AgentSession, LiveKit's voice pipeline: the session's VAD (Silero) hears the participant,
 * the speech-to-text (PocketSphinx decoding as they speak, or a provider's: providers/job-speech.ts)
 * writes down what they said in the persona's language, the LLM (when there is one) answers as the
 * persona in that language, its voice (offline or a provider's) says it sentence by sentence, and the Speaker
 * plays it into the job's own voice track while the face follows. The framework handles turns and
 * barge-in: the participant talking over the digital human for a moment stops it, and only what was
 * heard stays in the conversation.
 *
 * What each side says is reported through `ConversationEvents` (captions, the transcript, the
 * response-time timeline); the room's own captions and audio of RoomIO are off, since the job publishes
 * both itself, and the participant is heard through the loudness gate (participant-audio.ts).
 */
import { type JobContext, tokenize, tts, type VAD, voice } from "@livekit/agents";
import type { RemoteParticipant } from "@livekit/rtc-node";
import { GatedParticipantInput } from "../hearing/participant-audio.js";
import { RECOGNITION_RATE } from "../hearing/pocketsphinx-transcriber.js";
import type { Transcriber } from "../hearing/transcriber.js";
import { TranscriberSTT } from "../hearing/transcriber-stt.js";
import type { JobInfo } from "../job/job-metadata.js";
import { STEP, type Step } from "../job/log-lines.js";
import type { Speaker } from "../speaking/speaker.js";
import { ConversationAgent } from "./conversation-agent.js";
import { useRoomIO } from "./framework-internals.js";
import type { ReplyFailure } from "./guarded-reply.js";
import { inLanguage } from "./in-language.js";
import { createLlm, type LlmSettings } from "./llm-settings.js";
import { withMemory } from "./remembered.js";
import { addLateResult, sessionTools, type ToolHost } from "./session-tools.js";
import { spokenLines } from "./spoken-lines.js";
import { KNOWLEDGE_TIMEOUT_MS, type Passage, type SearchKnowledge, TurnKnowledge } from "./turn-knowledge.js";

/** Characters: a shorter sentence is said with the next (the framework's default is 20). */
const SHORTEST_SENTENCE = 8;

/** Milliseconds of the participant's speech over the digital human's before it stops talking. */
export const INTERRUPTION_MIN_MS = 300;

export interface ConversationEvents {
  /**
   * The participant's turn, as recognized, with when they spoke, and the passages of the session's
   * documents it is given (undefined for a session without documents).
   */
  participantSaid(text: string, startedAt: Date, endedAt: Date, knowledge?: Promise<Passage[]>): void;
  /** A step of the response-time timeline, with what the step measured. */
  step(step: Step, fields?: Record<string, number>): void;
  replyFailed(failure: ReplyFailure): void;
  /** The recognizer failed on a turn: it is answered as one with no words heard. */
  sttFailed(error: unknown): void;
}

export interface ConversationParts {
  vad: VAD;
  /**
   * The persona's voice as the framework's TTS, a sentence at a time (the job's: providers/job-speech.ts,
   * an offline voice or a provider's with one behind it).
   */
  tts: tts.TTS;
  /** What hears each turn (PocketSphinx, or a provider's plugin); undefined where none is installed. */
  transcriber: Transcriber | undefined;
  llm: LlmSettings | undefined;
  speaker: Speaker;
  /** Runs the persona's tools (the service and the participant's page); none offered without it. */
  tools?: Omit<ToolHost, "onLateResult"> | undefined;
  /** Searches the session's documents (the service); none searched without it or without documents. */
  searchKnowledge?: SearchKnowledge | undefined;
}

/** The session and its agent, wired to `events` and to the Speaker; started by `joinRoom` (or a test). */
export function createConversation(job: Pick<JobInfo, "persona" | "digitalHuman">, parts: ConversationParts, events: ConversationEvents) {
  const { persona } = job;
  const lines = spokenLines(persona.language);
  const model = parts.llm === undefined ? undefined : createLlm(parts.llm, persona);
  // Without an LLM no tool is ever called; without the service none could run.
  const host = model === undefined || persona.tools.length === 0 ? undefined : parts.tools;
  const lateResults: ToolHost["onLateResult"] = (call, output, isError) =>
    void addLateResult(agent, session, call, output, isError).catch(() => undefined);
  const knowledge =
    parts.searchKnowledge === undefined || !persona.knowledge
      ? undefined
      : new TurnKnowledge(parts.searchKnowledge, {
          timeoutMs: KNOWLEDGE_TIMEOUT_MS,
          onSearched: (ms, passages) => events.step(STEP.knowledge, { ms, passages }),
        });
  const agent: ConversationAgent = new ConversationAgent({
    instructions: inLanguage(
      withMemory(
        persona.instructions ?? `You are ${job.digitalHuman.name}, a friendly assistant. Answer briefly, in plain spoken sentences.`,
        persona.memory,
      ),
      persona.language,
    ),
    hasLlm: model !== undefined,
    lines,
    llmTimeoutMs: parts.llm?.timeoutMs ?? 0,
    onReplyFailure: events.replyFailed,
    onFirstToken: () => events.step(STEP.firstToken),
    onRequest: () => events.step(STEP.llmRequest),
    ...(host === undefined ? {} : { tools: sessionTools(persona.tools, { ...host, onLateResult: lateResults }) }),
    ...(knowledge === undefined ? {} : { knowledge }),
  });
  const stt =
    parts.transcriber === undefined
      ? undefined
      : new TranscriberSTT(observed(parts.transcriber, events, agent), parts.vad, persona.language);
  const session: voice.AgentSession = new voice.AgentSession({
    vad: parts.vad,
    ...(stt === undefined ? {} : { stt }),
    ...(model === undefined ? {} : { llm: model }),
    // Sentence by sentence, as the framework would, but down to short ones ("Hello Ada!"): the first is
    // heard while the rest are synthesized, and each is captioned as it starts.
    tts: new tts.StreamAdapter(parts.tts, new tokenize.basic.SentenceTokenizer({ minSentenceLength: SHORTEST_SENTENCE })),
    // One retry of a refused request, after 100 ms; then the apology (guarded-reply.ts) rather than silence.
    connOptions: {
      llmConnOptions: { maxRetry: 1, retryIntervalMs: 100, timeoutMs: parts.llm?.timeoutMs ?? 10_000 },
      maxUnrecoverableErrors: Number.MAX_SAFE_INTEGER,
    },
    turnHandling: {
      turnDetection: "vad",
      interruption: { minDuration: INTERRUPTION_MIN_MS },
    },
    // No "away" state: a quiet participant is still in the session.
    userAwayTimeout: null,
    // The framework would ignore the participant talking over the digital human for its first 3 s of
    // speech (an echo canceller's warm-up); the browser cancels its own echo, so barge-in works at once.
    aecWarmupDuration: null,
  });
  // A refused request (after one retry) or a stream broken midway: what was said stays, then the apology.
  session.on(voice.AgentSessionEventTypes.Error, (ev) => {
    if (ev.error.type !== "llm_error" || ev.error.recoverable) return;
    events.replyFailed({ kind: "error", error: ev.error.error });
    session.say(lines.apology);
  });
  let speechStartedAt = new Date();
  let speechEndedAt = new Date();
  session.on(voice.AgentSessionEventTypes.UserStateChanged, (ev) => {
    if (ev.newState === "speaking") {
      speechStartedAt = new Date();
      events.step(STEP.startOfSpeech);
    } else if (ev.oldState === "speaking") {
      speechEndedAt = new Date();
      events.step(STEP.endOfSpeech);
    }
  });
  session.on(voice.AgentSessionEventTypes.UserInputTranscribed, (ev) => {
    if (!ev.isFinal || ev.transcript.trim() === "") return;
    const text = ev.transcript.trim();
    events.participantSaid(text, speechStartedAt, speechEndedAt, knowledge?.forTurn(text));
  });
  // Before start: RoomIO keeps an output it finds there and publishes no audio of its own.
  session.output.audio = parts.speaker;
  return { session, agent };
}

export type Conversation = ReturnType<typeof createConversation>;

/**
 * The transcriber, its turns timed for the timeline; a turn it failed on, or heard no words in, is
 * answered by the agent, since the framework ends no turn on an empty transcript.
 */
function observed(transcriber: Transcriber, events: ConversationEvents, agent: ConversationAgent): Transcriber {
  return {
    startTurn() {
      const turn = transcriber.startTurn();
      let seconds = 0;
      return {
        hear(speech) {
          seconds += speech.samples.length / speech.sampleRate;
          turn.hear(speech);
        },
        async end() {
          const text = await turn.end().catch((error: unknown) => {
            events.sttFailed(error);
            return "";
          });
          events.step(STEP.sttDone, { audio_s: Math.round(seconds * 100) / 100 });
          if (!text) agent.nothingHeard();
          return text;
        },
      };
    },
  };
}

/**
 * Starts the conversation in the job's room, listening to the session's participant.
 *
 * The room's audio and captions go through the framework's RoomIO, made here rather than by
 * `session.start({ room })`: given the room, the session would also answer the participant's requests on
 * the `lk.agent.session` topic (LiveKit's remote-session protocol, meant for its console and playground),
 * which hand anyone in the room the persona's instructions (`getAgentInfo`), the conversation, and a
 * way to make the agent say what they type (`runInput`). A customer's system prompt is theirs, and the
 * service keeps it from participants (the dispatch's metadata is not the room's).
 *
 * With `record`, the framework's recorder (RecorderIO) wraps the session's audio input (the gated
 * participant) and output (the Speaker) as it starts, and writes both to one file (framework-internals.ts's
 * recordedFile names it; recording/session-recording.ts uploads it). The audio only: traces, logs and the transcript are for
 * LiveKit Cloud's observability, where the framework would send them (and the audio) for a LiveKit Cloud
 * URL, never for a self-hosted LiveKit; session-recording.ts records nothing where it would.
 */
export async function joinRoom(
  { session, agent }: Conversation,
  ctx: JobContext,
  job: JobInfo,
  isTheParticipant: (participant: RemoteParticipant) => boolean,
  record: boolean,
): Promise<void> {
  // RoomIO keeps an input it finds there: the gated one, which follows the participant's microphone.
  const input = new GatedParticipantInput(ctx.room, isTheParticipant, RECOGNITION_RATE);
  session.input.audio = input;
  session.on(voice.AgentSessionEventTypes.UserStateChanged, (ev) => {
    input.userSpeaking = ev.newState === "speaking";
  });
  const roomIO = new voice.RoomIO({
    agentSession: session,
    room: ctx.room,
    inputOptions: {
      ...(job.participantIdentity === undefined ? {} : { participantIdentity: job.participantIdentity }),
      // The participant may drop and rejoin within the departure timeout: the conversation waits for them.
      closeOnDisconnect: false,
    },
    outputOptions: { audioEnabled: false, transcriptionEnabled: false },
  });
  useRoomIO(session, roomIO);
  roomIO.start();
  await session.start({ agent, record: record ? { audio: true, traces: false, logs: false, transcript: false } : false });
}
