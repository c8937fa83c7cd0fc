/**
 * Requests Node's HTTP parser refuses never reach Express: a malformed request line or header, headers
 * over the 16 KiB limit, broken body framing, a request that took too long to arrive, an `Expect` other
 * than 100-continue. Node would answer with a bare status line or just drop the connection; here they get
 * an ApiError and an X-Request-ID like every other answer, and the connection is closed, since what
 * follows on it cannot be trusted.
 */
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { ApiError, ErrorCode } from "@dhs/contract";
import { STATUS_OF } from "./error-status.js";
import { newRequestId } from "./request-id.js";

interface Answer {
  code: ErrorCode;
  detail: string;
}

const ANSWERS: Record<"HPE_HEADER_OVERFLOW" | "ERR_HTTP_REQUEST_TIMEOUT" | "EXPECTATION" | "default", Answer> = {
  HPE_HEADER_OVERFLOW: { code: "headers_too_large", detail: "The request headers exceed 16 KiB." },
  ERR_HTTP_REQUEST_TIMEOUT: { code: "request_timeout", detail: "The request did not arrive in time." },
  EXPECTATION: { code: "expectation_failed", detail: "The only expectation this server meets is Expect: 100-continue." },
  default: { code: "malformed_request", detail: "The HTTP request could not be parsed." },
};

export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const answer = ANSWERS[error.code as keyof typeof ANSWERS] ?? ANSWERS.default;
  const pending = (socket as { _httpMessage?: ServerResponse })._httpMessage;
  // A connection the client already reset, or one whose answer is on its way, has nobody to tell.
  if (error.code === "ECONNRESET" || !socket.writable || pending?.headersSent) {
    socket.destroy();
    return;
  }
  if (pending?.req.complete) {
    // The request in flight arrived whole; what failed to parse came after it on the same connection.
    // That request keeps its own answer (a 400 on it would tell a client to retry a create that was
    // carried out), and the connection closes once it is sent.
    pending.shouldKeepAlive = false;
    pending.once("finish", () => socket.destroy());
    return;
  }
  const requestId = String(pending?.getHeader("X-Request-ID") ?? newRequestId());
  const json = answerJson(answer, requestId);
  if (pending) {
    // The parser failed inside the request the app is handling (broken chunked framing, a body that did
    // not arrive in time): that request can never be read to its end, so it is the one answered.
    pending.shouldKeepAlive = false;
    pending.once("finish", () => socket.destroy());
    pending.writeHead(STATUS_OF[answer.code], answerHeaders(requestId, json)).end(json);
    return;
  }
  const head = Object.entries({ ...answerHeaders(requestId, json), Connection: "close" }).map(([name, value]) => `${name}: ${value}\r\n`);
  const status = STATUS_OF[answer.code];
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head.join("")}\r\n${json}`);
}

/** Expect with anything but 100-continue: 417 as an ApiError, without reading the body, and close. */
export function answerUnmetExpectation(_req: IncomingMessage, res: ServerResponse): void {
  const answer = ANSWERS.EXPECTATION;
  const requestId = newRequestId();
  const json = answerJson(answer, requestId);
  res.shouldKeepAlive = false;
  res.writeHead(STATUS_OF[answer.code], answerHeaders(requestId, json)).end(json);
}

function answerJson(answer: Answer, requestId: string): string {
  return JSON.stringify({ code: answer.code, detail: answer.detail, request_id: requestId } satisfies ApiError);
}

function answerHeaders(requestId: string, json: string): Record<string, string | number> {
  return {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(json),
    "Cache-Control": "no-store",
    "X-Request-ID": requestId,
  };
}
