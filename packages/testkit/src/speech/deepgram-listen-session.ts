/**
 * One streaming `/v1/listen` websocket as Deepgram holds it: binary messages are linear16 audio, cut into
 * utterances by loudness (speech-endpointer.ts); each utterance is heard by the engines and answered as a
 * final `Results` (`is_final` and `speech_final`), in the order spoken. Text messages are its controls:
 * `KeepAlive` only keeps the socket, `Finalize` ends the utterance under way at once, `CloseStream` ends
 * it, answers what is left, sends `Metadata` and closes, as Deepgram does.
 */
import { randomUUID } from "node:crypto";
import type { WebSocket } from "ws";
import { metadataMessage, resultsMessage, speechStartedMessage, utteranceEndMessage } from "./deepgram-results.js";
import { SpeechEndpointer, type Utterance } from "./speech-endpointer.js";
import type { SpeechEngines, StandInFault } from "./speech-engines.js";
import { pcmSamples } from "./wav.js";

export interface ListenSession {
  /** The URL's query as sent, each parameter with all its values. */
  query: Record<string, string[]>;
  model: string | undefined;
  language: string | undefined;
  encoding: string;
  sampleRate: number;
  channels: number;
  interimResults: boolean;
  /** Milliseconds, `false` when turned off, undefined when not named. */
  endpointing: number | false | undefined;
  vadEvents: boolean;
  utteranceEndMs: number | undefined;
  /** The key the upgrade carried (`Token`, `Bearer` or the `token` subprotocol; "" without one). */
  apiKey: string;
  fault: StandInFault;
  /** The control messages' types in order: KeepAlive, Finalize, CloseStream. */
  controls: string[];
  audioBytes: number;
  /** What the engines heard in each utterance, in order: the finals sent. */
  transcripts: string[];
  /** How the socket closed, once it has. */
  closed: { code: number; reason: string } | undefined;
  at: number;
}

/** Deepgram closes a stream that has had no message for this long (its NET-0001). */
const IDLE_MS = 10_000;
/** Audio one stream may send: an hour at 16 kHz, far past any test, short of a runaway client. */
const MAX_AUDIO_BYTES = 16_000 * 2 * 3600;
/** An energy endpointer cuts words apart on pauses shorter than this, whatever `endpointing` asked. */
const MIN_QUIET_MS = 300;
const DEFAULT_QUIET_MS = 500;

/** A stream's record from its upgrade's query, or the problem Deepgram would refuse it for. */
export function newListenSession(
  query: Record<string, string[]>,
  apiKey: string,
  fault: StandInFault,
): ListenSession | { problem: string } {
  const first = (name: string) => query[name]?.[0];
  const encoding = first("encoding") ?? "";
  const sampleRate = Number(first("sample_rate"));
  const channels = Number(first("channels") ?? 1);
  // Deepgram reads containers (WAV, Ogg, ...) without these; the stand-in reads what the plugins send.
  if (encoding !== "linear16") return { problem: `encoding ${encoding || "(none)"}: the stand-in reads linear16` };
  if (!Number.isInteger(sampleRate) || sampleRate < 8000 || sampleRate > 48_000) return { problem: "sample_rate must be 8000 to 48000" };
  if (!Number.isInteger(channels) || channels < 1 || channels > 8) return { problem: "channels must be 1 to 8" };
  const endpointing = first("endpointing");
  const utteranceEnd = first("utterance_end_ms");
  return {
    query,
    model: first("model"),
    language: first("language"),
    encoding,
    sampleRate,
    channels,
    interimResults: first("interim_results") === "true",
    endpointing: endpointing === undefined ? undefined : endpointing === "false" ? false : Number(endpointing) || false,
    vadEvents: first("vad_events") === "true",
    utteranceEndMs: utteranceEnd === undefined ? undefined : Number(utteranceEnd),
    apiKey,
    fault,
    controls: [],
    audioBytes: 0,
    transcripts: [],
    closed: undefined,
    at: Date.now(),
  };
}

export function runListenSession(ws: WebSocket, session: ListenSession, engines: SpeechEngines): void {
  ws.on("close", (code, reason) => {
    session.closed = { code, reason: reason.toString() };
  });
  // "hang": the socket is open and what is sent to it is taken in and never answered, until the server closes.
  if (session.fault === "hang") {
    ws.on("message", (data: Buffer, isBinary: boolean) => {
      if (isBinary) session.audioBytes += data.length;
      else session.controls.push(controlType(data));
    });
    return;
  }
  const quietMs = typeof session.endpointing === "number" ? Math.max(MIN_QUIET_MS, session.endpointing) : DEFAULT_QUIET_MS;
  const endpointer = new SpeechEndpointer(session.sampleRate, { quietMs });
  const ids = { requestId: randomUUID(), model: session.model ?? "nova-3" };
  const frameBytes = 2 * session.channels;
  let leftover = Buffer.alloc(0);
  let answered: Promise<void> = Promise.resolve();
  const send = (message: unknown) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
  };
  const answer = (utterance: Utterance, fromFinalize: boolean) => {
    answered = answered.then(async () => {
      const transcript = await engines
        .transcribe({ samples: utterance.samples, sampleRate: session.sampleRate }, session.language)
        .catch(() => "");
      session.transcripts.push(transcript);
      const heard = { transcript, start: utterance.start, end: utterance.end };
      send(resultsMessage(heard, { isFinal: true, speechFinal: !fromFinalize, fromFinalize }, ids));
      if (session.utteranceEndMs !== undefined) send(utteranceEndMessage(utterance.end));
    });
  };
  let idle = setTimeout(() => ws.close(1011, "NET-0001"), IDLE_MS);
  ws.on("close", () => clearTimeout(idle));

  ws.on("message", (data: Buffer, isBinary: boolean) => {
    clearTimeout(idle);
    idle = setTimeout(() => ws.close(1011, "NET-0001"), IDLE_MS);
    if (isBinary) {
      if (session.fault === "midway") return ws.close(1011, "the stand-in broke the stream midway");
      session.audioBytes += data.length;
      if (session.audioBytes > MAX_AUDIO_BYTES) return ws.close(1008, "the stand-in takes an hour of audio per stream");
      // A message may end mid-sample or mid-frame; the rest waits for the next one.
      const bytes = Buffer.concat([leftover, data]);
      const whole = bytes.length - (bytes.length % frameBytes);
      leftover = bytes.subarray(whole);
      const { started, ended } = endpointer.push(pcmSamples(bytes.subarray(0, whole), session.channels));
      if (session.vadEvents) for (const at of started) send(speechStartedMessage(at));
      for (const utterance of ended) answer(utterance, false);
      return;
    }
    const type = controlType(data);
    session.controls.push(type);
    if (type === "Finalize" || type === "CloseStream") {
      const utterance = endpointer.flush();
      if (utterance) answer(utterance, true);
    }
    if (type === "CloseStream") {
      answered = answered.then(() => {
        send(metadataMessage(ids, endpointer.position, session.channels));
        ws.close(1000);
      });
    }
  });
}

/** A control message's `type`, or what it was instead ("invalid" for anything but a JSON object with one). */
function controlType(data: Buffer): string {
  try {
    const message = JSON.parse(data.toString("utf8")) as { type?: unknown };
    return typeof message?.type === "string" ? message.type.slice(0, 64) : "invalid";
  } catch {
    return "invalid";
  }
}
