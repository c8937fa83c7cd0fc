/**
 * Requests Node's HTTP parser refuses never reach Express: a malformed request line or header, headers
 * over the 16 KiB limit, broken body framing, a request that took too long to arrive. Node would answer
 * with a bare status line or just drop the connection; here they get an ApiError and an X-Request-ID
 * like every other answer, and the connection is closed, since what follows on it cannot be trusted.
 */
import type { ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { ApiError } from "@dhs/contract";
import { newRequestId } from "./request-id.js";

const ANSWERS = {
  HPE_HEADER_OVERFLOW: { status: 431, reason: "Request Header Fields Too Large", code: "headers_too_large", detail: "The request headers exceed 16 KiB." },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, reason: "Request Timeout", code: "request_timeout", detail: "The request did not arrive in time." },
  default: { status: 400, reason: "Bad Request", code: "malformed_request", detail: "The HTTP request could not be parsed." },
} as const;

export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const answer = ANSWERS[error.code as keyof typeof ANSWERS] ?? ANSWERS.default;
  // The parser failed inside a request the app already handles (broken chunked framing, say): that
  // request can never be read to its end, so it is the one answered, through its own response.
  const pending = (socket as { _httpMessage?: ServerResponse })._httpMessage;
  // A connection the client already reset, or one whose answer is on its way, has nobody to tell.
  if (error.code === "ECONNRESET" || !socket.writable || pending?.headersSent) {
    socket.destroy();
    return;
  }
  const requestId = String(pending?.getHeader("X-Request-ID") ?? newRequestId());
  const body: ApiError = { code: answer.code, detail: answer.detail, request_id: requestId };
  const json = JSON.stringify(body);
  if (pending) {
    pending.shouldKeepAlive = false;
    pending.once("finish", () => socket.destroy());
    pending
      .writeHead(answer.status, { "Content-Type": "application/json; charset=utf-8", "Content-Length": Buffer.byteLength(json), "Cache-Control": "no-store", "X-Request-ID": requestId })
      .end(json);
    return;
  }
  socket.end(
    `HTTP/1.1 ${answer.status} ${answer.reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\n` +
      `X-Request-ID: ${requestId}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${json}`,
  );
}
