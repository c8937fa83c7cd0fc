/**
 * The hostile inputs the contract fuzzer found answered badly, each pinned by name: requests Node's HTTP
 * parser refuses, a Content-Type that is not a media type, lone surrogates, a compressed body that does
 * not decompress, and bodies nested deeper than any recursion could follow.
 */
import { connect } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, KEYS, expectApiError, startHarness } from "../support/harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

/** Sends bytes as they are and reads the answer until the server closes the connection. */
function raw(bytes: string): Promise<{ status: number; headers: Record<string, string>; body: any }> {
  const { hostname, port } = new URL(h.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let data = "";
    socket.on("data", (chunk) => (data += chunk.toString("latin1")));
    socket.on("error", reject);
    socket.on("close", () => {
      const [head = "", body = ""] = data.split("\r\n\r\n");
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body: body ? JSON.parse(body) : undefined });
    });
    socket.end(Buffer.from(bytes, "latin1"));
  });
}

function expectRawApiError(answer: Awaited<ReturnType<typeof raw>>, status: number, code: string): void {
  expect({ status: answer.status, code: answer.body?.code }).toEqual({ status, code });
  expect(answer.headers["x-request-id"]).toMatch(/^req_[0-9a-f]{32}$/);
  expect(answer.body.request_id).toBe(answer.headers["x-request-id"]);
  expect(answer.headers.connection).toBe("close");
}

describe("a request Node's HTTP parser refuses", () => {
  it.each([
    ["a header name with spaces", "GET /v1/me HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n"],
    ["a NUL in a header value", "GET /v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \u0000x\r\n\r\n"],
    ["two different Content-Lengths", "POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}"],
    ["an unknown HTTP version", "GET /v1/me HTTP/9.9\r\nHost: x\r\n\r\n"],
    ["a TLS handshake on the plain port", "\u0016\u0003\u0001\u0000\r\n\r\n"],
  ])("with %s, answers 400 malformed_request as an ApiError and closes the connection", async (_name, bytes) => {
    expectRawApiError(await raw(bytes), 400, "malformed_request");
  });

  it("with headers over 16 KiB, answers 431 headers_too_large", async () => {
    expectRawApiError(await raw(`GET /v1/me HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`), 431, "headers_too_large");
  });

  it("in the chunked body of a request already routed, answers that request 400 malformed_request", async () => {
    const answer = await raw(
      `POST /v1/sessions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEYS.a}\r\nIdempotency-Key: k-chunked\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    );
    expectRawApiError(answer, 400, "malformed_request");
    // Nothing was created under that key: it can still be used.
    expect((await h.create({}, { idempotencyKey: "k-chunked" })).status).toBe(201);
  });
});

describe("POST /v1/sessions, with input no operation should be handed", () => {
  it("when Content-Type is not a media type, answers 422 naming the header", async () => {
    const res = await h.request("POST", "/v1/sessions", { raw: "{}", headers: { "Content-Type": "x2%", "Idempotency-Key": crypto.randomUUID() } });
    const error = await expectApiError(res, 422, "validation_failed");
    expect(error.detail).toEqual([{ location: "header", path: "Content-Type", message: "must be a media type, such as application/json" }]);
  });

  it("when a string holds a lone surrogate, answers 422 naming the field", async () => {
    const res = await h.request("POST", "/v1/sessions", { raw: '{"participant_identity":"a\\udfffb"}', headers: { "Idempotency-Key": crypto.randomUUID() } });
    const error = await expectApiError(res, 422, "validation_failed");
    expect(error.detail).toEqual([{ location: "body", path: "participant_identity", message: "must be well-formed Unicode (no lone surrogates)" }]);
  });

  it("when a metadata key holds a lone surrogate, answers 422 naming it", async () => {
    const res = await h.request("POST", "/v1/sessions", { raw: '{"metadata":{"k\\ud800":"v"}}', headers: { "Idempotency-Key": crypto.randomUUID() } });
    const error = await expectApiError(res, 422, "validation_failed");
    expect(error.detail[0]).toMatchObject({ location: "body", path: "metadata.k\ufffd" });
  });

  it("when a gzip Content-Encoding body is not gzip, answers 422", async () => {
    const res = await h.request("POST", "/v1/sessions", { raw: "{}", headers: { "Content-Encoding": "gzip", "Idempotency-Key": crypto.randomUUID() } });
    const error = await expectApiError(res, 422, "validation_failed");
    expect(error.detail[0]).toMatchObject({ location: "body", message: expect.stringMatching(/^could not be read/) });
  });

  it("when the body is gzip, reads it like any other", async () => {
    const res = await fetch(`${h.url}/v1/sessions`, {
      method: "POST",
      headers: { Authorization: `Bearer ${KEYS.a}`, "Content-Type": "application/json", "Content-Encoding": "gzip", "Idempotency-Key": crypto.randomUUID() },
      body: gzipSync(JSON.stringify({ participant_identity: "zipped" })),
    });
    expect(res.status).toBe(201);
  });

  it("when the body nests 30 000 levels deep, answers 422 without a stack overflow", async () => {
    const deep = `{"tags":${"[".repeat(30_000)}"\ud800"${"]".repeat(30_000)}}`;
    const res = await h.request("POST", "/v1/sessions", { raw: deep, headers: { "Idempotency-Key": crypto.randomUUID() } });
    await expectApiError(res, 422, "validation_failed");
  });
});
