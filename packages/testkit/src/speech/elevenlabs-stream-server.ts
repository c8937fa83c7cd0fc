/**
 * ElevenLabs' text-to-speech on loopback, as `@livekit/agents-plugin-elevenlabs` (1.9) speaks to it, so
 * the digital human's real plugin is tested against its real wire protocol with real words: the engines
 * speak each text, and the test hears the plugin's frames back through a recognizer.
 *
 * - `POST /v1/text-to-speech/{voice_id}/stream?output_format=pcm_R` (the plugin's synthesize()), and the
 *   whole-file `POST /v1/text-to-speech/{voice_id}`: JSON `{text, model_id, ...}` in, raw PCM out.
 * - `GET /v1/text-to-speech/{voice_id}/multi-stream-input?model_id=&output_format=pcm_R&...` upgraded
 *   (stream()): contexts of text in, their audio out, as elevenlabs-multi-stream.ts tells.
 * Auth is the `xi-api-key` header; errors are ElevenLabs' `{detail: {status, message}}`.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { WebSocket } from "ws";
import { serveMultiStream } from "./elevenlabs-multi-stream.js";
import type { SpeechEngines, StandInFault } from "./speech-engines.js";
import { pcmAt, pcmChunks } from "./stand-in-audio.js";
import { listenStandIn, MAX_TEXT_CHARS, parseJsonObject, pathOf, queryOf, type Refusal, sendJson, writeBody } from "./stand-in-server.js";

export interface ElevenLabsRequest {
  /** "http": one of the POSTs; "websocket": multi-stream-input, recorded as its messages arrive. */
  transport: "http" | "websocket";
  voiceId: string;
  /** The request's model_id (the body's on HTTP, the query's on the websocket). */
  modelId: string | undefined;
  outputFormat: string | undefined;
  /** Every text received, in order, as sent (a websocket's context openers' " " included). */
  text: string;
  /** The `xi-api-key` header ("" without one). */
  apiKey: string;
  query: Record<string, string>;
  /** The JSON body (HTTP) or messages (websocket, the first MAX_RECORDED), as parsed. */
  messages: Record<string, unknown>[];
}

export interface ElevenLabsServer {
  /** What the plugin's `baseURL` takes: `http://host:port/v1`. */
  url: string;
  requests: ElevenLabsRequest[];
  setFault(fault: StandInFault): void;
  close(): Promise<void>;
}

export interface ElevenLabsServerOptions {
  engines: SpeechEngines;
  /** The only key accepted (401 otherwise); any key when undefined. */
  apiKey?: string;
  host?: string;
}

const ROUTE = /^\/v1\/text-to-speech\/([^/]{1,100})(\/stream|\/multi-stream-input)?$/;
const RATES = new Set([8000, 16000, 22050, 24000, 44100, 48000]);

export async function startElevenLabsServer({ engines, apiKey, host = "127.0.0.1" }: ElevenLabsServerOptions): Promise<ElevenLabsServer> {
  const requests: ElevenLabsRequest[] = [];
  const opened = new WeakMap<IncomingMessage, ElevenLabsRequest>();
  let fault: StandInFault = "none";

  function record(request: IncomingMessage, transport: ElevenLabsRequest["transport"], voiceId: string): ElevenLabsRequest {
    const query = Object.fromEntries(queryOf(request));
    const key = request.headers["xi-api-key"];
    const entry = {
      transport,
      voiceId,
      modelId: query.model_id,
      outputFormat: query.output_format,
      text: "",
      apiKey: typeof key === "string" ? key : "",
      query,
      messages: [],
    };
    requests.push(entry);
    return entry;
  }

  /** Why `entry` gets no audio: its key, the fault, a format the stand-in cannot speak. */
  function refusal(entry: ElevenLabsRequest): Refusal | undefined {
    if (apiKey !== undefined && entry.apiKey !== apiKey) return error(401, "invalid_api_key", "Invalid API key");
    if (fault === "refuse") return error(503, "service_unavailable", "The stand-in refuses, as the test asked");
    if (rateOf(entry.outputFormat) === undefined)
      return error(400, "invalid_output_format", `the stand-in speaks pcm_* only, not ${entry.outputFormat}`);
    return undefined;
  }

  async function http(request: IncomingMessage, body: Buffer, response: ServerResponse): Promise<void> {
    const route = routeOf(request);
    if (request.method === "GET" && pathOf(request) === "/v1/voices") {
      return sendJson(response, 200, { voices: [{ voice_id: "21m00Tcm4TlvDq8ikWAM", name: "Rachel", category: "premade" }] });
    }
    if (!route || request.method !== "POST" || route.kind === "/multi-stream-input")
      return answer(response, error(404, "not_found", "no such route"));
    const entry = record(request, "http", route.voiceId);
    const json = parseJsonObject(body.toString());
    if (!json || typeof json.text !== "string")
      return answer(response, error(400, "invalid_request", "a JSON body with a text is required"));
    entry.messages.push(json);
    entry.text = json.text;
    entry.modelId = typeof json.model_id === "string" ? json.model_id : undefined;
    const refused =
      refusal(entry) ??
      (json.text.trim() === "" || json.text.length > MAX_TEXT_CHARS
        ? error(400, "invalid_text", `text must be 1 to ${MAX_TEXT_CHARS} characters`)
        : undefined);
    if (refused) return answer(response, refused);
    if (fault === "hang") return;
    const rate = rateOf(entry.outputFormat) as number;
    let pcm: Buffer;
    try {
      pcm = pcmAt(await engines.synthesize(json.text, entry.voiceId), rate);
    } catch (e) {
      return answer(response, error(500, "synthesis_failed", String(e)));
    }
    const streamed = route.kind === "/stream";
    response.writeHead(200, {
      "Content-Type": "audio/pcm",
      "request-id": randomUUID(),
      ...(streamed ? {} : { "Content-Length": pcm.length }),
    });
    writeBody(response, pcmChunks(pcm, rate), fault === "midway");
  }

  function vet(request: IncomingMessage): Refusal | undefined {
    const route = routeOf(request);
    if (route?.kind !== "/multi-stream-input") return error(404, "not_found", "no such websocket");
    const entry = record(request, "websocket", route.voiceId);
    opened.set(request, entry);
    return refusal(entry);
  }

  function socket(ws: WebSocket, request: IncomingMessage): void {
    const record = opened.get(request) as ElevenLabsRequest;
    serveMultiStream(ws, { engines, voiceId: record.voiceId, rate: rateOf(record.outputFormat) as number, fault: () => fault, record });
  }

  const server = await listenStandIn(host, { http, vet, socket });
  return {
    url: `${server.origin}/v1`,
    requests,
    setFault: (next) => {
      fault = next;
    },
    close: () => server.close(),
  };
}

/** The voice and the endpoint (`/stream`, `/multi-stream-input`, or "" for the whole-file POST) of a request. */
function routeOf(request: IncomingMessage): { voiceId: string; kind: string } | undefined {
  const [, voiceId, kind = ""] = ROUTE.exec(pathOf(request)) ?? [];
  return voiceId === undefined ? undefined : { voiceId, kind };
}

function rateOf(format: string | undefined): number | undefined {
  const rate = Number(/^pcm_(\d+)$/.exec(format ?? "")?.[1]);
  return RATES.has(rate) ? rate : undefined;
}

function error(status: number, code: string, message: string): Refusal {
  return { status, body: { detail: { status: code, message } } };
}

function answer(response: ServerResponse, { status, body }: Refusal): void {
  sendJson(response, status, body);
}
