/**
 * OpenAI's audio API on loopback, backed by real engines: `POST /v1/audio/transcriptions` hears the
 * uploaded WAV with the engines and answers its words, `POST /v1/audio/speech` speaks the input and
 * streams it back (raw 16-bit PCM at 24 kHz, OpenAI's `pcm`, or WAV). The LiveKit OpenAI plugin's STT and
 * TTS (through OpenAI's own SDK) are pointed at `url` and cannot tell it from the API, so a test checks
 * the words that went through them, and reads back what each request asked (model, language, voice, key).
 * A fault set per route makes it refuse, hang or break its answer midway, as a failing provider does.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { BodyTooLarge, readBody } from "./http-body.js";
import { formBoundary, parseMultipart } from "./multipart-form.js";
import {
  OpenAiRefusal,
  type SpeechFields,
  speechFields,
  type TranscriptionFields,
  transcriptionAnswer,
  transcriptionFields,
} from "./openai-audio.js";
import type { SpeechEngines, StandInFault } from "./speech-engines.js";
import { pcmBytes, resample, wavHeader } from "./wav.js";

export type OpenAiSpeechRoute = "transcriptions" | "speech";
const ROUTES: Record<string, OpenAiSpeechRoute> = { "/v1/audio/transcriptions": "transcriptions", "/v1/audio/speech": "speech" };

export interface TranscriptionRequest extends TranscriptionFields {
  /** The words the engines heard in the file ("" when a fault answered instead). */
  text: string;
  /** The bearer key the request carried ("" without one). */
  apiKey: string;
  fault: StandInFault;
  at: number;
}

export interface SpeechRequest extends SpeechFields {
  apiKey: string;
  fault: StandInFault;
  at: number;
}

export interface OpenAiSpeechServerOptions {
  engines: SpeechEngines;
  /** The key requests must carry (any, by default); another gets OpenAI's 401. */
  apiKey?: string;
  /** Where it listens (127.0.0.1 by default). */
  host?: string;
  /** Its port (any free one by default). */
  port?: number;
}

export interface OpenAiSpeechServer {
  /** The API's root, `/v1` included: what the plugins' and OpenAI SDK's `baseURL` takes. */
  readonly url: string;
  readonly transcriptions: TranscriptionRequest[];
  readonly speeches: SpeechRequest[];
  /** Each route's fault, settable: what the next requests to it get. */
  readonly faults: Record<OpenAiSpeechRoute, StandInFault>;
  setFault(route: OpenAiSpeechRoute | "all", fault: StandInFault): void;
  close(): Promise<void>;
}

/** OpenAI's upload limit. */
const MAX_BODY = 25 * 1024 * 1024;
/** OpenAI's `pcm`: 24 kHz mono. */
const PCM_RATE = 24_000;
/** 100 ms of PCM per write: the answer streams as OpenAI's does, and a midway break has delivered some. */
const CHUNK_SAMPLES = PCM_RATE / 10;
/** A client that sends its request slower than this is cut off rather than held open. */
const REQUEST_TIMEOUT_MS = 30_000;

export async function startOpenAiSpeechServer(options: OpenAiSpeechServerOptions): Promise<OpenAiSpeechServer> {
  const transcriptions: TranscriptionRequest[] = [];
  const speeches: SpeechRequest[] = [];
  const faults: Record<OpenAiSpeechRoute, StandInFault> = { transcriptions: "none", speech: "none" };
  const { engines } = options;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // The body first (bounded), whatever the answer: a client answered mid-upload sees a reset, not the answer.
    const body = await readBody(req, MAX_BODY);
    const path = new URL(req.url ?? "/", "http://localhost").pathname.replace(/\/$/, "");
    const route = req.method === "POST" ? ROUTES[path] : undefined;
    if (route === undefined) throw new OpenAiRefusal(404, `Invalid URL (${req.method} ${path})`);
    const apiKey = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
    if (options.apiKey !== undefined && apiKey !== options.apiKey)
      throw new OpenAiRefusal(401, "Incorrect API key provided.", null, "invalid_api_key");
    const fault = faults[route];
    const at = Date.now();
    if (route === "transcriptions") {
      const boundary = formBoundary(req.headers["content-type"]);
      if (!boundary)
        throw new OpenAiRefusal(400, "Could not parse multipart form: the content type is not multipart/form-data with a boundary");
      let fields: TranscriptionFields;
      try {
        fields = transcriptionFields(parseMultipart(body, boundary));
      } catch (e) {
        throw e instanceof OpenAiRefusal ? e : new OpenAiRefusal(400, `Could not parse multipart form: ${(e as Error).message}`);
      }
      const request: TranscriptionRequest = { ...fields, text: "", apiKey, fault, at };
      transcriptions.push(request);
      if (await misbehave(fault, res)) return;
      request.text = await engines.transcribe(fields.audio, fields.language);
      const answer = transcriptionAnswer(fields.responseFormat, request.text, fields.audio, fields.language);
      res.writeHead(200, { "content-type": answer.type });
      res.end(answer.body);
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(body.toString("utf8"));
    } catch {
      throw new OpenAiRefusal(400, "We could not parse the JSON body of your request.");
    }
    const fields = speechFields(json);
    speeches.push({ ...fields, apiKey, fault, at });
    // A speech request broken midway breaks in its audio, below, rather than before it.
    if (fault === "refuse" || fault === "hang") {
      await misbehave(fault, res);
      return;
    }
    const speech = await engines.synthesize(fields.input, fields.voice);
    const pcm = pcmBytes(resample(speech.samples, speech.sampleRate, PCM_RATE));
    const wav = fields.responseFormat === "wav";
    const stream = wav ? Buffer.concat([wavHeader(pcm.length, PCM_RATE), pcm]) : pcm;
    // No content-length: OpenAI streams its audio chunked.
    res.writeHead(200, { "content-type": wav ? "audio/wav" : "audio/pcm", "transfer-encoding": "chunked" });
    const step = CHUNK_SAMPLES * 2;
    const stopAt = fault === "midway" ? Math.max(step, Math.floor(stream.length / 2)) : stream.length;
    for (let offset = 0; offset < Math.min(stopAt, stream.length); offset += step) {
      await new Promise<void>((resolve) => res.write(stream.subarray(offset, Math.min(offset + step, stopAt)), () => resolve()));
      if (res.destroyed) return;
    }
    if (fault === "midway") res.destroy();
    else res.end();
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (res.headersSent) return void res.destroy();
      if (e instanceof BodyTooLarge) {
        res.setHeader("connection", "close");
        return error(res, new OpenAiRefusal(413, `Maximum content size limit (${e.limit}) exceeded.`));
      }
      error(res, e instanceof OpenAiRefusal ? e : new OpenAiRefusal(500, `The stand-in failed: ${(e as Error).message}`));
    });
  });
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(options.port ?? 0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}/v1`,
    transcriptions,
    speeches,
    faults,
    setFault(route, fault) {
      if (route === "all" || route === "transcriptions") faults.transcriptions = fault;
      if (route === "all" || route === "speech") faults.speech = fault;
    },
    async close() {
      // Hung answers are open connections: close() ends them rather than waiting on them.
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Answers by `fault` and says so (true), or leaves the answer to the caller (false). */
async function misbehave(fault: StandInFault, res: ServerResponse): Promise<boolean> {
  if (fault === "none") return false;
  if (fault === "refuse") error(res, new OpenAiRefusal(503, "The server is overloaded or not ready yet."));
  // A transcription broken midway: the status and headers, a byte of the body, then the connection gone.
  if (fault === "midway") {
    res.writeHead(200, { "content-type": "application/json" });
    await new Promise<void>((resolve) => res.write("{", () => resolve()));
    res.destroy();
  }
  // "hang": nothing, ever; close() ends the connection.
  return true;
}

/** OpenAI's error body. */
function error(res: ServerResponse, refusal: OpenAiRefusal): void {
  const type = refusal.status >= 500 ? "server_error" : "invalid_request_error";
  res.writeHead(refusal.status, { "content-type": "application/json" });
  res.end(JSON.stringify({ error: { message: refusal.message, type, param: refusal.param, code: refusal.code } }));
}
