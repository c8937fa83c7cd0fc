/**
 * The loopback server the TTS stand-ins share: one HTTP port that answers a provider's REST calls and
 * upgrades its websockets, with the bounds a server facing a client under test needs (body and message
 * sizes, idle sockets) and a close() that ends every connection, hung ones included, so a test's teardown
 * never waits on a fault it set. What is said on it is each stand-in's own (elevenlabs-stream-server.ts,
 * deepgram-speak-server.ts).
 */
import { createServer, type IncomingMessage, type ServerResponse, STATUS_CODES } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { WebSocket, WebSocketServer } from "ws";

/** Any REST body the stand-ins take: a text to speak and its options. */
export const MAX_BODY_BYTES = 64 * 1024;
/** Any websocket message: the providers' own limits are in the low thousands of characters. */
export const MAX_MESSAGE_BYTES = 64 * 1024;
/** What one request (a REST body, a websocket context, the text waiting for a flush) may ask to be spoken. */
export const MAX_TEXT_CHARS = 10_000;
/** How many of a websocket's messages a request's record keeps. */
export const MAX_RECORDED = 1000;
/** A websocket whose client says nothing for this long is closed (ElevenLabs' inactivity_timeout tops out at 180 s). */
export const IDLE_MS = 180_000;

/** Why an upgrade or request is turned away: its status and the provider's JSON error body. */
export interface Refusal {
  status: number;
  body: unknown;
}

export interface StandInHandlers {
  /** A REST call, its body read whole (a larger one than MAX_BODY_BYTES got 413 before this). */
  http(request: IncomingMessage, body: Buffer, response: ServerResponse): void | Promise<void>;
  /** Whether an upgrade is refused (wrong path, key, fault) or, undefined, accepted. */
  vet(request: IncomingMessage): Refusal | undefined;
  /** An accepted websocket. */
  socket(socket: WebSocket, request: IncomingMessage): void;
}

export interface StandInServer {
  /** `http://host:port`. */
  origin: string;
  close(): Promise<void>;
}

export async function listenStandIn(host: string, handlers: StandInHandlers): Promise<StandInServer> {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const server = createServer((request, response) => {
    readBody(request)
      .then((body) =>
        body === undefined ? sendJson(response, 413, { error: "request body too large" }) : handlers.http(request, body, response),
      )
      .catch(() => response.destroy());
  });
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => undefined);
    const refusal = handlers.vet(request);
    if (refusal) return refuseUpgrade(socket, refusal);
    sockets.handleUpgrade(request, socket, head, (ws) => {
      ws.on("error", () => undefined);
      watchIdle(ws);
      handlers.socket(ws, request);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    close: async () => {
      for (const ws of sockets.clients) ws.terminate();
      sockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) }).end(text);
}

/** The query of a request's URL. */
export function queryOf(request: IncomingMessage): URLSearchParams {
  return new URL(request.url ?? "/", "http://stand-in").searchParams;
}

/** The path of a request's URL, decoded. */
export function pathOf(request: IncomingMessage): string {
  return decodeURIComponent(new URL(request.url ?? "/", "http://stand-in").pathname);
}

/**
 * A REST answer's body: every chunk and the end, or (`midway`) the first half and then a broken
 * connection, once that half is out: destroyed at once, the half would never leave.
 */
export function writeBody(response: ServerResponse, chunks: Buffer[], midway: boolean): void {
  if (!midway) {
    for (const chunk of chunks) response.write(chunk);
    response.end();
    return;
  }
  const half = chunks.slice(0, Math.max(1, chunks.length >> 1));
  for (const [i, chunk] of half.entries()) response.write(chunk, i === half.length - 1 ? () => response.destroy() : undefined);
}

/**
 * The same on a websocket: every message, or the first half and then no close frame, the connection
 * dropped. Resolves once it is, so that nothing queued after (a final message) slips out before the break.
 */
export async function sendAll(ws: WebSocket, messages: (string | Buffer)[], midway: boolean): Promise<void> {
  if (ws.readyState !== WebSocket.OPEN) return;
  if (!midway) {
    for (const message of messages) ws.send(message);
    return;
  }
  const half = messages.slice(0, Math.max(1, messages.length >> 1));
  const last = half.pop() ?? "";
  for (const message of half) ws.send(message);
  await new Promise<void>((resolve) => ws.send(last, () => resolve()));
  ws.terminate();
}

/**
 * A websocket's answers in order: `later` runs each step after the last one's end (one failing drops the
 * connection), `send` sends JSON while the socket is open (after a break, nothing).
 */
export function inOrder(ws: WebSocket): { later(step: () => Promise<void> | void): void; send(message: Record<string, unknown>): void } {
  let queue = Promise.resolve();
  return {
    later: (step) => {
      queue = queue.then(step).catch(() => ws.terminate());
    },
    send: (message) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
    },
  };
}

/** `text` as a JSON object, or undefined when it is not one (an array, a string, not JSON at all). */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The body, or undefined once it passes MAX_BODY_BYTES (declared or received), without holding more. */
async function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  if (Number(request.headers["content-length"] ?? 0) > MAX_BODY_BYTES) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function refuseUpgrade(socket: Duplex, { status, body }: Refusal): void {
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}

function watchIdle(ws: WebSocket): void {
  let timer = setTimeout(() => ws.close(1000, "idle"), IDLE_MS).unref();
  ws.on("message", () => {
    clearTimeout(timer);
    timer = setTimeout(() => ws.close(1000, "idle"), IDLE_MS).unref();
  });
  ws.on("close", () => clearTimeout(timer));
}
