/**
 * Deepgram's text-to-speech (Aura) on loopback, as `@livekit/agents-plugin-deepgram` (1.9) speaks to it,
 * so the digital human's real plugin is tested against its real wire protocol with real words: the engines
 * speak each text, and the test hears the plugin's frames back through a recognizer.
 *
 * - `GET /v1/speak?model=&encoding=linear16&sample_rate=R` upgraded (the plugin's stream()): Speak,
 *   Flush, Clear and Close messages in, binary linear16 and Flushed out, as deepgram-speak-socket.ts tells.
 * - `POST /v1/speak?model=&encoding=linear16&sample_rate=R&container=none|wav` (synthesize()): JSON
 *   `{text}` in, the PCM (in a WAV unless container=none) out.
 * Auth is `Authorization: Token <key>`; errors are Deepgram's `{err_code, err_msg, request_id}`.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { WebSocket } from "ws";
import { MAX_SPEAK_CHARS, serveSpeakSocket } from "./deepgram-speak-socket.js";
import type { SpeechEngines, StandInFault } from "./speech-engines.js";
import { pcmAt, pcmChunks } from "./stand-in-audio.js";
import { listenStandIn, parseJsonObject, pathOf, queryOf, type Refusal, sendJson, writeBody } from "./stand-in-server.js";
import { wavHeader } from "./wav.js";

export interface DeepgramSpeakRequest {
  /** "http": `POST /v1/speak`; "websocket": its upgrade, recorded as its messages arrive. */
  transport: "http" | "websocket";
  model: string | undefined;
  encoding: string | undefined;
  /** The sample_rate asked for (Deepgram's 24000 without one). */
  sampleRate: number;
  /** Every text received, in order (the Speak messages' or the body's). */
  text: string;
  /** The key of `Authorization: Token <key>` ("" without one). */
  apiKey: string;
  query: Record<string, string>;
  /** The JSON body (HTTP) or messages (websocket, the first MAX_RECORDED), as parsed. */
  messages: Record<string, unknown>[];
}

export interface DeepgramSpeakServer {
  /** What the plugin's `baseUrl` takes: `http://host:port`. */
  url: string;
  requests: DeepgramSpeakRequest[];
  setFault(fault: StandInFault): void;
  close(): Promise<void>;
}

export interface DeepgramSpeakServerOptions {
  engines: SpeechEngines;
  /** The only key accepted (401 otherwise); any key when undefined. */
  apiKey?: string;
  host?: string;
}

const RATES = new Set([8000, 16000, 24000, 32000, 48000]);

export async function startDeepgramSpeakServer({
  engines,
  apiKey,
  host = "127.0.0.1",
}: DeepgramSpeakServerOptions): Promise<DeepgramSpeakServer> {
  const requests: DeepgramSpeakRequest[] = [];
  const opened = new WeakMap<IncomingMessage, DeepgramSpeakRequest>();
  let fault: StandInFault = "none";

  function record(request: IncomingMessage, transport: DeepgramSpeakRequest["transport"]): DeepgramSpeakRequest {
    const query = Object.fromEntries(queryOf(request));
    const key = /^(?:Token|Bearer) (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? "";
    const sampleRate = query.sample_rate === undefined ? 24000 : Number(query.sample_rate);
    const entry = { transport, model: query.model, encoding: query.encoding, sampleRate, text: "", apiKey: key, query, messages: [] };
    requests.push(entry);
    return entry;
  }

  /** Why `entry` gets no audio: its key, the fault, an encoding the stand-in cannot speak. */
  function refusal(entry: DeepgramSpeakRequest, defaultEncoding: string): Refusal | undefined {
    if (apiKey !== undefined && entry.apiKey !== apiKey) return error(401, "INVALID_AUTH", "Invalid credentials.");
    if (fault === "refuse") return error(503, "SERVICE_UNAVAILABLE", "The stand-in refuses, as the test asked.");
    if ((entry.encoding ?? defaultEncoding) !== "linear16") return error(400, "UNSUPPORTED_ENCODING", "the stand-in speaks linear16 only");
    if (!RATES.has(entry.sampleRate))
      return error(400, "INVALID_SAMPLE_RATE", `sample_rate ${entry.query.sample_rate} is not one of ${[...RATES]}`);
    return undefined;
  }

  async function http(request: IncomingMessage, body: Buffer, response: ServerResponse): Promise<void> {
    if (request.method !== "POST" || pathOf(request) !== "/v1/speak") return answer(response, error(404, "NOT_FOUND", "no such route"));
    const entry = record(request, "http");
    const json = parseJsonObject(body.toString());
    if (!json || typeof json.text !== "string")
      return answer(response, error(400, "INVALID_REQUEST", "a JSON body with a text is required"));
    entry.messages.push(json);
    entry.text = json.text;
    // Deepgram's REST default is mp3, which the stand-in cannot encode.
    const refused =
      refusal(entry, "mp3") ??
      (json.text.trim() === "" || json.text.length > MAX_SPEAK_CHARS
        ? error(400, "INVALID_TEXT", "text must be 1 to 2000 characters")
        : undefined);
    if (refused) return answer(response, refused);
    if (fault === "hang") return;
    let pcm: Buffer;
    try {
      pcm = pcmAt(await engines.synthesize(json.text, entry.model), entry.sampleRate);
    } catch (e) {
      return answer(response, error(500, "SYNTHESIS_FAILED", String(e)));
    }
    const wav = (entry.query.container ?? "wav") === "wav";
    response.writeHead(200, {
      "Content-Type": wav ? "audio/wav" : "application/octet-stream",
      "dg-request-id": randomUUID(),
      "dg-model-name": entry.model ?? "aura-asteria-en",
      "dg-char-count": String(json.text.length),
    });
    if (wav) response.write(wavHeader(pcm.length, entry.sampleRate));
    writeBody(response, pcmChunks(pcm, entry.sampleRate), fault === "midway");
  }

  function vet(request: IncomingMessage): Refusal | undefined {
    if (pathOf(request) !== "/v1/speak") return error(404, "NOT_FOUND", "no such websocket");
    const entry = record(request, "websocket");
    opened.set(request, entry);
    return refusal(entry, "linear16");
  }

  function socket(ws: WebSocket, request: IncomingMessage): void {
    const record = opened.get(request) as DeepgramSpeakRequest;
    serveSpeakSocket(ws, { engines, model: record.model, sampleRate: record.sampleRate, fault: () => fault, record });
  }

  const server = await listenStandIn(host, { http, vet, socket });
  return {
    url: server.origin,
    requests,
    setFault: (next) => {
      fault = next;
    },
    close: () => server.close(),
  };
}

function error(status: number, code: string, message: string): Refusal {
  return { status, body: { err_code: code, err_msg: message, request_id: randomUUID() } };
}

function answer(response: ServerResponse, { status, body }: Refusal): void {
  sendJson(response, status, body);
}
