/**
 * One Deepgram `/v1/speak` websocket, as the Deepgram stand-in (deepgram-speak-server.ts) answers it: a
 * `Metadata` message on connecting; `{type: "Speak", text}` adds text; `{type: "Flush"}` has what was
 * added since spoken by the engines and sent as binary linear16 frames, then `{type: "Flushed",
 * sequence_id}`; `{type: "Clear"}` drops what is not sent yet and answers `Cleared`; `{type: "Close"}`
 * closes once all before it is sent. Anything else gets a `Warning`, as Deepgram sends them.
 */
import { randomUUID } from "node:crypto";
import type { WebSocket } from "ws";
import type { SpeechEngines, StandInFault } from "./speech-engines.js";
import { pcmAt, pcmChunks } from "./stand-in-audio.js";
import { inOrder, MAX_RECORDED, MAX_TEXT_CHARS, parseJsonObject, sendAll } from "./stand-in-server.js";

export interface SpeakSession {
  engines: SpeechEngines;
  model: string | undefined;
  sampleRate: number;
  /** The fault as the test has it now (it may change while the socket is open). */
  fault(): StandInFault;
  /** Where the client's text and messages are recorded as they come. */
  record: { text: string; messages: Record<string, unknown>[] };
}

/** Deepgram's own cap on one Speak message (and on a REST body). */
export const MAX_SPEAK_CHARS = 2000;

export function serveSpeakSocket(ws: WebSocket, { engines, model, sampleRate, fault, record }: SpeakSession): void {
  let pending = "";
  let sequence = 0;
  // A Clear drops what earlier Flushes still have to say: their generation is no longer current.
  let generation = 0;
  // One Flush at a time: its audio stays in order and before its Flushed.
  const { later, send } = inOrder(ws);

  async function speak(text: string, asOf: number): Promise<void> {
    if (text.trim() === "" || ws.readyState !== ws.OPEN) return;
    let pcm: Buffer;
    try {
      pcm = pcmAt(await engines.synthesize(text.trim(), model), sampleRate);
    } catch (e) {
      return send({ type: "Error", err_code: "SYNTHESIS_FAILED", err_msg: String(e) });
    }
    if (asOf === generation) await sendAll(ws, pcmChunks(pcm, sampleRate), fault() === "midway");
  }

  if (fault() !== "hang")
    send({ type: "Metadata", request_id: randomUUID(), model_name: model, model_version: "stand-in", model_uuid: randomUUID() });
  ws.on("message", (data, isBinary) => {
    const message = isBinary ? undefined : parseJsonObject(data.toString());
    if (!message) return ws.close(1003, "messages are JSON objects");
    if (record.messages.length < MAX_RECORDED) record.messages.push(message);
    if (fault() === "hang") return;
    switch (message.type) {
      case "Speak": {
        const text = typeof message.text === "string" ? message.text : "";
        if (text.length > MAX_SPEAK_CHARS || pending.length + text.length > MAX_TEXT_CHARS) {
          return send({
            type: "Warning",
            warn_code: "TEXT_LENGTH_LIMIT_EXCEEDED",
            warn_msg: `dropped a Speak of ${text.length} characters`,
          });
        }
        pending += text;
        record.text += text;
        return;
      }
      case "Flush": {
        const [text, asOf, flushed] = [pending, generation, sequence++];
        pending = "";
        later(() => speak(text, asOf));
        return later(() => send({ type: "Flushed", sequence_id: flushed }));
      }
      case "Clear": {
        pending = "";
        generation++;
        const cleared = sequence++;
        return later(() => send({ type: "Cleared", sequence_id: cleared }));
      }
      case "Close":
        return later(() => ws.close(1000));
      default:
        return send({
          type: "Warning",
          warn_code: "UNKNOWN_MESSAGE_TYPE",
          warn_msg: `unknown message type ${String(message.type).slice(0, 50)}`,
        });
    }
  });
}
