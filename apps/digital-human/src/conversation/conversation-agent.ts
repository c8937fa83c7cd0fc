/**
 * The digital human as an Agent of LiveKit's voice pipeline: the persona's instructions are its
 * instructions, and its turn ends in one of two ways.
 *
 * - With an LLM: the framework's reply, read through guardReply, so a stalled one ends in a short apology
 *   and the digital human listens again instead of falling silent (a refused or broken one is apologized
 *   for by the session, which hears of it as an error).
 * - Without one (no OPENAI_BASE_URL): the sentence or two of its documents that clearly answer the turn,
 *   word for word (knowledge-answer.ts), or else a short acknowledgement, never the same twice in a row.
 *   It says nothing it did not hear or was not given.
 *
 * With documents (the session's knowledge), each turn first waits for its passages (turn-knowledge.ts,
 * bounded): with an LLM they are that turn's context, a system message the next turns do not keep.
 *
 * A turn the recognizer heard nothing in still gets its acknowledgement (or, with an LLM, a request to
 * say it again): `nothingHeard`, called by the job when the speech-to-text returns no words for a turn
 * the VAD heard, since the framework ends no turn on an empty transcript; and where the session has no
 * recognizer at all, for every turn (the framework then ends each with an empty one, which no LLM sees).
 */
import type { ReadableStream } from "node:stream/web";
import { type llm, voice } from "@livekit/agents";
import { guardReply, type ReplyFailure } from "./guarded-reply.js";
import { answerFrom } from "./knowledge-answer.js";
import { acknowledgement } from "./lines.js";
import { ENGLISH, type SpokenLines } from "./spoken-lines.js";
import { knowledgeMessage, type TurnKnowledge } from "./turn-knowledge.js";

export const NOT_HEARD = ENGLISH.notHeard;

export interface ConversationOptions {
  /** The persona's instructions; a generic one when it has none. */
  instructions: string;
  /** Whether the session has an LLM to reply with. */
  hasLlm: boolean;
  /** How long a reply may go without a token before it is given up (the first one included). */
  llmTimeoutMs: number;
  onReplyFailure(failure: ReplyFailure): void;
  /** The LLM is asked for a reply (the timeline's "llm request"). */
  onRequest?(): void;
  /** The reply's first text arrived (the timeline's "first token"). */
  onFirstToken?(): void;
  /** The persona's tools as the LLM's (session-tools.ts); none without an LLM. */
  tools?: llm.ToolContextLike;
  /** The session's documents, searched on each turn; none when it has none. */
  knowledge?: TurnKnowledge;
  /** Its own lines in the persona's language (English by default). */
  lines?: SpokenLines;
}

export class ConversationAgent extends voice.Agent {
  private lastAcknowledgement: string | undefined;

  constructor(private readonly options: ConversationOptions) {
    super({ instructions: options.instructions, ...(options.tools === undefined ? {} : { tools: options.tools }) });
  }

  override async onUserTurnCompleted(chatCtx: llm.ChatContext, message: llm.ChatMessage): Promise<void> {
    const heard = (message.textContent ?? "").trim();
    // A turn with no words (no recognizer in the session, so the framework ends every turn the VAD heard
    // with an empty transcript): answered as one nothing was heard in, and never sent to the LLM, which
    // would answer something nobody said.
    if (heard === "") {
      this.nothingHeard();
      throw new voice.StopResponse();
    }
    const passages = this.options.knowledge ? await this.options.knowledge.forTurn(heard) : [];
    // With an LLM the framework replies next, with the passages in this turn's context; without one this is the reply.
    if (this.options.hasLlm) {
      if (passages.length > 0) chatCtx.addMessage({ role: "system", content: knowledgeMessage(passages) });
      return;
    }
    const answer = answerFrom(passages, heard);
    if (answer === undefined) this.acknowledge();
    else this.session.say(answer);
  }

  override async llmNode(
    chatCtx: llm.ChatContext,
    toolCtx: llm.ToolContext,
    modelSettings: voice.ModelSettings,
  ): Promise<ReadableStream<llm.ChatChunk | string> | null> {
    this.options.onRequest?.();
    const reply = await voice.Agent.default.llmNode(this, chatCtx, toolCtx, modelSettings);
    if (reply === null) return null;
    const { llmTimeoutMs, onReplyFailure, onFirstToken } = this.options;
    return guardReply(reply, {
      timeoutMs: llmTimeoutMs,
      onFailure: onReplyFailure,
      onFirstText: () => onFirstToken?.(),
      apology: this.lines.apology,
    });
  }

  /** A turn the VAD heard but the recognizer found no words in; none while the digital human is talking. */
  nothingHeard(): void {
    if (this.session.agentState === "speaking") return;
    if (this.options.hasLlm) this.session.say(this.lines.notHeard);
    else this.acknowledge();
  }

  private get lines(): SpokenLines {
    return this.options.lines ?? ENGLISH;
  }

  private acknowledge(): void {
    this.lastAcknowledgement = acknowledgement(this.lastAcknowledgement, Math.random, this.lines);
    this.session.say(this.lastAcknowledgement);
  }
}
