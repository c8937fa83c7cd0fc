/**
 * One ElevenLabs `multi-stream-input` websocket, as the ElevenLabs stand-in (elevenlabs-stream-server.ts)
 * answers it. The client opens contexts by naming them (`{text: " ", context_id, voice_settings}`), adds
 * text to them (`{text, context_id, flush?}`), and closes them (`{context_id, close_context: true}`) or the
 * socket (`{close_socket: true}`). Each flushed part is spoken by the engines and sent as
 * `{audio: base64 PCM, alignment, normalizedAlignment, contextId}` messages; a closed context's last
 * message is `{isFinal: true, contextId}`. Errors are `{error, message, contextId}`, as ElevenLabs sends them.
 */
import type { WebSocket } from "ws";
import type { SpeechEngines, StandInFault } from "./speech-engines.js";
import { durationMs, pcmAt, pcmChunks } from "./stand-in-audio.js";
import { inOrder, MAX_RECORDED, MAX_TEXT_CHARS, parseJsonObject, sendAll } from "./stand-in-server.js";

export interface MultiStreamSession {
  engines: SpeechEngines;
  voiceId: string;
  /** The output_format's sample rate. */
  rate: number;
  /** The fault as the test has it now (it may change while the socket is open). */
  fault(): StandInFault;
  /** Where the client's text and messages are recorded as they come. */
  record: { text: string; messages: Record<string, unknown>[] };
}

/** Unflushed text spoken anyway once this long, as ElevenLabs' chunk_length_schedule does (roughly). */
const GENERATE_AT_CHARS = 250;
const MAX_CONTEXTS = 16;

interface Context {
  /** Text not spoken yet. */
  buffer: string;
  received: number;
  /** Where the next part's audio starts in the context's, for its alignment. */
  atMs: number;
}

export function serveMultiStream(ws: WebSocket, { engines, voiceId, rate, fault, record }: MultiStreamSession): void {
  const contexts = new Map<string, Context>();
  // One part at a time per connection: a context's audio stays in order and before its isFinal.
  const { later, send } = inOrder(ws);

  async function speak(contextId: string, context: Context, text: string): Promise<void> {
    if (text.trim() === "" || ws.readyState !== ws.OPEN) return;
    let pcm: Buffer;
    try {
      pcm = pcmAt(await engines.synthesize(text.trim(), voiceId), rate);
    } catch (e) {
      return send({ error: "synthesis_failed", message: String(e), contextId });
    }
    const chunks = pcmChunks(pcm, rate);
    const perChar = durationMs(pcm.length, rate) / text.length;
    const messages = chunks.map((chunk, i) => {
      // The part's characters spread evenly over its audio: timings a caption can follow, not Flite's own.
      const from = Math.floor((i * text.length) / chunks.length);
      const chars = [...text.slice(from, Math.floor(((i + 1) * text.length) / chunks.length))];
      const alignment = {
        chars,
        charStartTimesMs: chars.map((_, j) => Math.round(context.atMs + (from + j) * perChar)),
        charsDurationsMs: chars.map(() => Math.max(1, Math.round(perChar))),
      };
      return JSON.stringify({ audio: chunk.toString("base64"), alignment, normalizedAlignment: alignment, contextId });
    });
    await sendAll(ws, messages, fault() === "midway");
    context.atMs += durationMs(pcm.length, rate);
  }

  ws.on("message", (data, isBinary) => {
    const message = isBinary ? undefined : parseJsonObject(data.toString());
    if (!message) return ws.close(1008, "messages are JSON objects");
    if (record.messages.length < MAX_RECORDED) record.messages.push(message);
    if (fault() === "hang") return;
    if (message.close_socket === true) return later(() => ws.close(1000));
    const contextId = typeof message.context_id === "string" ? message.context_id.slice(0, 100) : "default";
    let context = contexts.get(contextId);
    if (!context) {
      if (contexts.size >= MAX_CONTEXTS) return send({ error: "max_active_conversations", message: "too many open contexts", contextId });
      context = { buffer: "", received: 0, atMs: 0 };
      contexts.set(contextId, context);
    }
    if (typeof message.text === "string") {
      context.received += message.text.length;
      if (context.received > MAX_TEXT_CHARS) {
        contexts.delete(contextId);
        return send({ error: "max_text_length_exceeded", message: `a context takes ${MAX_TEXT_CHARS} characters`, contextId });
      }
      context.buffer += message.text;
      record.text += message.text;
    }
    const closing = message.close_context === true;
    if (message.flush === true || closing || context.buffer.length >= GENERATE_AT_CHARS) {
      const [text, spoken] = [context.buffer, context];
      context.buffer = "";
      later(() => speak(contextId, spoken, text));
    }
    if (closing) {
      contexts.delete(contextId);
      later(() => send({ isFinal: true, contextId }));
    }
  });
}
