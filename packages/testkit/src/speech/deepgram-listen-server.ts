/**
 * Deepgram's listen API on loopback, backed by real engines: the streaming `/v1/listen` websocket the
 * LiveKit Deepgram plugin's STT streams linear16 audio into (deepgram-listen-session.ts answers each
 * utterance with its words), and the prerecorded `POST /v1/listen` its recognize() uploads a WAV to. The
 * plugin is pointed at `url` by its `baseUrl` option and cannot tell it from Deepgram; a test checks the
 * words that came through it and reads back what each stream asked (its query, key, controls). A fault
 * refuses the upgrade, hangs the stream, or breaks it at its first audio, as a failing provider does.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse, STATUS_CODES } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import { type ListenSession, newListenSession, runListenSession } from "./deepgram-listen-session.js";
import { prerecordedAnswer } from "./deepgram-results.js";
import { BodyTooLarge, readBody } from "./http-body.js";
import type { SpeechEngines, StandInFault } from "./speech-engines.js";
import { parseWav } from "./wav.js";

export type { ListenSession } from "./deepgram-listen-session.js";

/** A prerecorded request: its query, key, and what the engines heard. */
export interface ListenRequest {
  query: Record<string, string[]>;
  apiKey: string;
  transcript: string;
  at: number;
}

export interface DeepgramListenServerOptions {
  engines: SpeechEngines;
  /** The key requests must carry (any, by default); another gets Deepgram's 401. */
  apiKey?: string;
  /** Where it listens (127.0.0.1 by default). */
  host?: string;
}

export interface DeepgramListenServer {
  /** `ws://host:port`: what the plugin's `baseUrl` takes (it adds `/v1/listen`, and swaps ws for http to POST). */
  readonly url: string;
  readonly sessions: ListenSession[];
  readonly requests: ListenRequest[];
  /** What the next streams and requests get. */
  readonly fault: StandInFault;
  setFault(fault: StandInFault): void;
  close(): Promise<void>;
}

/** A websocket message: Deepgram advises 20 to 250 ms of audio each, a few kilobytes. */
const MAX_MESSAGE_BYTES = 1024 * 1024;
/** Deepgram's prerecorded upload limit is 2 GB; a test's recording is far under this. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;
const REQUEST_TIMEOUT_MS = 30_000;

export async function startDeepgramListenServer(options: DeepgramListenServerOptions): Promise<DeepgramListenServer> {
  const sessions: ListenSession[] = [];
  const requests: ListenRequest[] = [];
  let fault: StandInFault = "none";
  const refusal = (req: IncomingMessage): Refusal | undefined => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname.replace(/\/$/, "") !== "/v1/listen") return [404, "NOT_FOUND", `no such path: ${url.pathname}`];
    if (options.apiKey !== undefined && credential(req) !== options.apiKey) return [401, "INVALID_AUTH", "Invalid credentials."];
    if (fault === "refuse") return [503, "SERVICE_UNAVAILABLE", "The stand-in refuses, as its fault says."];
    return undefined;
  };

  const sockets = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_MESSAGE_BYTES,
    handleProtocols: (p) => (p.has("token") ? "token" : false),
  });
  const server = createServer((req, res) => {
    handlePrerecorded(req, res).catch((e: unknown) => {
      if (res.headersSent) return void res.destroy();
      if (e instanceof BodyTooLarge) res.setHeader("connection", "close");
      const status = e instanceof BodyTooLarge ? 413 : e instanceof BadRequest ? 400 : 500;
      sendError(res, status, status === 413 ? "PAYLOAD_TOO_LARGE" : status === 400 ? "Bad Request" : "INTERNAL", (e as Error).message);
    });
  });
  server.requestTimeout = REQUEST_TIMEOUT_MS;

  async function handlePrerecorded(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req, MAX_BODY_BYTES);
    const refused: Refusal | undefined = req.method === "POST" ? refusal(req) : [405, "METHOD_NOT_ALLOWED", `${req.method} is not served`];
    if (refused) return sendError(res, ...refused);
    if (fault === "hang") return;
    const query = queryOf(req);
    let speech: ReturnType<typeof parseWav>;
    try {
      speech = parseWav(body);
    } catch (e) {
      throw new BadRequest(`Bad Request: failed to process audio: ${(e as Error).message} (the stand-in reads 16-bit PCM WAV)`);
    }
    const request: ListenRequest = { query, apiKey: credential(req), transcript: "", at: Date.now() };
    requests.push(request);
    request.transcript = await options.engines.transcribe(speech, query.language?.[0]);
    const answer = prerecordedAnswer(
      { transcript: request.transcript, start: 0, end: speech.samples.length / speech.sampleRate },
      query.model?.[0] ?? "nova-3",
    );
    // "midway": the status and a piece of the answer, then the connection gone.
    const text = JSON.stringify(answer);
    res.writeHead(200, { "content-type": "application/json" });
    if (fault === "midway") return void res.write(text.slice(0, text.length >> 1), () => res.destroy());
    res.end(text);
  }

  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => undefined);
    const refused = refusal(req);
    if (refused) return refuseUpgrade(socket, ...refused);
    const session = newListenSession(queryOf(req), credential(req), fault);
    // Deepgram refuses parameters it cannot take at the upgrade, with a 400.
    if ("problem" in session) return refuseUpgrade(socket, 400, "Bad Request", session.problem);
    sessions.push(session);
    sockets.handleUpgrade(req, socket, head, (ws) => {
      ws.on("error", () => undefined);
      runListenSession(ws, session, options.engines);
    });
  });

  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://${host.includes(":") ? `[${host}]` : host}:${port}`,
    sessions,
    requests,
    get fault() {
      return fault;
    },
    setFault(next) {
      fault = next;
    },
    async close() {
      // Hung streams and requests are open connections: close() ends them rather than waiting on them.
      for (const ws of sockets.clients) ws.terminate();
      sockets.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

class BadRequest extends Error {}

/** An answer's status, Deepgram's `err_code` and its message. */
type Refusal = [status: number, code: string, message: string];

/** The key of `Authorization: Token <key>` (or `Bearer`, Deepgram's temporary tokens), or of the `token, <key>` subprotocol browsers use. */
function credential(req: IncomingMessage): string {
  const header = /^(?:Token|Bearer) (.+)$/i.exec(req.headers.authorization ?? "")?.[1];
  if (header !== undefined) return header;
  const protocols = (req.headers["sec-websocket-protocol"] ?? "").split(",").map((p) => p.trim());
  return protocols[0] === "token" ? (protocols[1] ?? "") : "";
}

function queryOf(req: IncomingMessage): Record<string, string[]> {
  const query: Record<string, string[]> = {};
  for (const [key, value] of new URL(req.url ?? "/", "http://localhost").searchParams) query[key] = [...(query[key] ?? []), value];
  return query;
}

/** Deepgram's error body. */
function errorBody(code: string, message: string): string {
  return JSON.stringify({ err_code: code, err_msg: message, request_id: randomUUID() });
}

function sendError(res: ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(errorBody(code, message));
}

function refuseUpgrade(socket: Duplex, status: number, code: string, message: string): void {
  const body = errorBody(code, message);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
