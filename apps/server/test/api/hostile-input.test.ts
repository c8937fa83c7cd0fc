/**
 * The hostile inputs the contract fuzzer found answered badly, each pinned by name: requests Node's HTTP
 * parser refuses, a Content-Type that is not a media type, lone surrogates, a compressed body that does
 * not decompress, bodies nested deeper than any recursion could follow; and what probing as an attacker
 * found: metadata nested thousands deep or holding `1e400` (500 and a stack trace each), garbage after a
 * request that was carried out (it was answered 400), integers written as `1e2` or `0x10`, and
 * `Expect: 200-ok` (Node's bare 417). Raw requests and bytes throughout; what is checked afterwards
 * (a key still usable, a create replayed) goes through the client.
 */
import { connect } from "node:net";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { expectApiError, expectData, KEYS, useHarness } from "../support/harness.js";

const h = useHarness();

/**
 * Sends bytes as they are and reads everything until the server closes the connection. The client
 * ends its side after writing unless keepOpen, as a client that waits for its answer would not.
 */
function rawExchange(bytes: string, keepOpen = false): Promise<string> {
  const { hostname, port } = new URL(h.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let data = "";
    socket.on("data", (chunk) => (data += chunk.toString("latin1")));
    socket.on("error", reject);
    socket.on("close", () => resolve(data));
    if (keepOpen) socket.write(Buffer.from(bytes, "latin1"));
    else socket.end(Buffer.from(bytes, "latin1"));
  });
}

/** Sends bytes as they are and reads the first answer, once the server closed the connection. */
function raw(bytes: string): Promise<{ status: number; headers: Record<string, string>; body: any }> {
  return rawExchange(bytes).then((data) => {
    const [head = "", body = ""] = data.split("\r\n\r\n");
    const [statusLine = "", ...lines] = head.split("\r\n");
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
    return { status: Number(statusLine.split(" ")[1]), headers, body: body ? JSON.parse(body) : undefined };
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
    expect((await h.client().createSession({}, { idempotencyKey: "k-chunked" })).response.status).toBe(201);
  });
});

describe("POST /v1/sessions, with input no operation should be handed", () => {
  it("when Content-Type is not a media type, answers 422 naming the header", async () => {
    const res = await h.request("POST", "/v1/sessions", {
      raw: "{}",
      headers: { "Content-Type": "x2%", "Idempotency-Key": crypto.randomUUID() },
    });
    const error = await expectApiError(res, 422, "validation_failed");
    expect(error.detail).toEqual([{ location: "header", path: "Content-Type", message: "must be a media type, such as application/json" }]);
  });

  it("when a string holds a lone surrogate, answers 422 naming the field", async () => {
    const res = await h.request("POST", "/v1/sessions", {
      raw: '{"participant_identity":"a\\udfffb"}',
      headers: { "Idempotency-Key": crypto.randomUUID() },
    });
    const error = await expectApiError(res, 422, "validation_failed");
    expect(error.detail).toEqual([
      { location: "body", path: "participant_identity", message: "must be well-formed Unicode (no lone surrogates)" },
    ]);
  });

  it("when a metadata key holds a lone surrogate, answers 422 naming it", async () => {
    const res = await h.request("POST", "/v1/sessions", {
      raw: '{"metadata":{"k\\ud800":"v"}}',
      headers: { "Idempotency-Key": crypto.randomUUID() },
    });
    const error = await expectApiError(res, 422, "validation_failed");
    expect(error.detail[0]).toMatchObject({ location: "body", path: "metadata.k\ufffd" });
  });

  it("when a gzip Content-Encoding body is not gzip, answers 422", async () => {
    const res = await h.request("POST", "/v1/sessions", {
      raw: "{}",
      headers: { "Content-Encoding": "gzip", "Idempotency-Key": crypto.randomUUID() },
    });
    const error = await expectApiError(res, 422, "validation_failed");
    expect(error.detail[0]).toMatchObject({ location: "body", message: expect.stringMatching(/^could not be read/) });
  });

  it("when the body is gzip, reads it like any other", async () => {
    const res = await fetch(`${h.url}/v1/sessions`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${KEYS.a}`,
        "Content-Type": "application/json",
        "Content-Encoding": "gzip",
        "Idempotency-Key": crypto.randomUUID(),
      },
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

describe("metadata the service cannot take", () => {
  function errorLines(requestId: string | null): unknown[] {
    return h.logs
      .map((line) => JSON.parse(line) as { level: number; request_id?: string })
      .filter((line) => line.request_id === requestId && line.level >= 50);
  }

  it("when it nests 5 000 levels deep, answers 422 naming metadata, and logs no error", async () => {
    const body = `{"metadata":${'{"a":'.repeat(5000)}1${"}".repeat(5000)}}`;
    const res = await h.request("POST", "/v1/sessions", { raw: body, headers: { "Idempotency-Key": crypto.randomUUID() } });
    const error = await expectApiError(res, 422, "validation_failed");
    expect(error.detail).toEqual([
      {
        location: "body",
        path: expect.stringMatching(/^metadata(\.a){32}$/),
        message: "must nest at most 32 levels deep (metadata is level 1)",
      },
    ]);
    expect(errorLines(res.headers.get("X-Request-ID"))).toEqual([]);
  });

  it("when it nests exactly 32 levels deep, creates the session", async () => {
    const body = `{"metadata":${'{"a":'.repeat(31)}{}${"}".repeat(31)}}`;
    const res = await h.request("POST", "/v1/sessions", { raw: body, headers: { "Idempotency-Key": crypto.randomUUID() } });
    expect(res.status).toBe(201);
  });

  it.each(["1e400", "-1e400"])("when a number is %s, answers 422 naming it, and logs no error", async (number) => {
    const res = await h.request("POST", "/v1/sessions", {
      raw: `{"metadata":{"n":${number}}}`,
      headers: { "Idempotency-Key": crypto.randomUUID() },
    });
    const error = await expectApiError(res, 422, "validation_failed");
    expect(error.detail).toEqual([{ location: "body", path: "metadata.n", message: "must be a finite number" }]);
    expect(errorLines(res.headers.get("X-Request-ID"))).toEqual([]);
  });
});

describe("U+0000, which PostgreSQL's text and jsonb cannot hold", () => {
  const NUL = "must not contain U+0000 (NUL)";

  it.each([
    ["a metadata value", '{"metadata":{"note":"a\\u0000b"}}', "metadata.note"],
    ["a metadata key", '{"metadata":{"k\\u0000":"v"}}', "metadata.k\\u0000"],
    ["a nested metadata value", '{"metadata":{"a":[{"b":"\\u0000"}]}}', "metadata.a.0.b"],
    ["a tag", '{"tags":["ok","x\\u0000"]}', "tags.1"],
  ])("in %s of a create, answers 422 naming its path, and nothing is created", async (_name, raw, path) => {
    const key = crypto.randomUUID();
    const res = await h.request("POST", "/v1/sessions", { raw, headers: { "Idempotency-Key": key } });
    const error = await expectApiError(res, 422, "validation_failed");
    expect(error.detail).toEqual([{ location: "body", path, message: NUL }]);
    // Nothing was recorded under the key.
    expect((await h.client().createSession({}, { idempotencyKey: key })).response.status).toBe(201);
  });

  it("in a digital human's metadata key or name, answers 422 naming it", async () => {
    const cases: [string, string][] = [
      ['{"name":"Maya","metadata":{"t\\u0000":"v"}}', "metadata.t\\u0000"],
      ['{"name":"Ma\\u0000ya"}', "name"],
    ];
    for (const [raw, path] of cases) {
      const res = await h.request("POST", "/v1/digital-humans", {
        raw,
        key: KEYS.aPersonas,
        headers: { "Idempotency-Key": crypto.randomUUID() },
      });
      const error = await expectApiError(res, 422, "validation_failed");
      expect(error.detail).toEqual([{ location: "body", path, message: NUL }]);
    }
  });

  it("in what a backend says to a session, answers 422 at text", async () => {
    const session = expectData(await h.client().createSession({}), 201);
    const res = await h.request("POST", `/v1/sessions/${session.id}/say`, {
      raw: '{"text":"hello\\u0000"}',
      headers: { "Idempotency-Key": crypto.randomUUID() },
    });
    const error = await expectApiError(res, 422, "validation_failed");
    expect(error.detail).toEqual([{ location: "body", path: "text", message: NUL }]);
  });

  it("in a query value, answers 422 naming the parameter", async () => {
    const error = await expectApiError(await h.request("GET", "/v1/sessions?cursor=%00"), 422, "validation_failed");
    expect(error.detail).toEqual([{ location: "query", path: "cursor", message: NUL }]);
  });
});

describe("bidirectional controls in text people hear or read (one rule with the transcripts')", () => {
  const RLO = "\u202e";
  const ISOLATE = "\u2066";

  it.each([
    ["name", { name: `Maya${RLO}` }],
    ["greeting", { name: "Maya", greeting: `Hello ${ISOLATE}{participant_identity}` }],
    ["description", { name: "Maya", description: `gpj.${RLO}exe` }],
    ["instructions", { name: "Maya", instructions: `Be brief.${RLO}` }],
  ])("in a persona's %s, answers 422 naming it", async (field, body) => {
    const res = await h.request("POST", "/v1/digital-humans", {
      body,
      key: KEYS.aPersonas,
      headers: { "Idempotency-Key": crypto.randomUUID() },
    });
    const error = await expectApiError(res, 422, "validation_failed");
    expect(error.detail).toEqual([expect.objectContaining({ location: "body", path: field })]);
  });

  it("in a session's participant_identity, answers 422 naming it", async () => {
    const res = await h.request("POST", "/v1/sessions", {
      body: { participant_identity: `admin${RLO}` },
      headers: { "Idempotency-Key": crypto.randomUUID() },
    });
    const error = await expectApiError(res, 422, "validation_failed");
    expect(error.detail).toEqual([expect.objectContaining({ location: "body", path: "participant_identity" })]);
  });
});

describe("days no store holds", () => {
  it.each([
    ["from=0000-01-01&to=0000-01-01", "from"],
    ["from=1969-12-31&to=1970-01-02", "from"],
    ["to=0000-12-31", "to"],
  ])("GET /v1/usage?%s answers 422 naming the parameter, and counts no dependency fault", async (query, path) => {
    const faults = async () => {
      const text = await (await fetch(`${h.metricsUrl}/metrics`)).text();
      return [...text.matchAll(/^dhs_dependency_faults_total\{[^}]*\} (\S+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
    };
    const before = await faults();
    const error = await expectApiError(await h.request("GET", `/v1/usage?${query}`), 422, "validation_failed");
    expect(error.detail).toEqual(expect.arrayContaining([expect.objectContaining({ location: "query", path })]));
    expect(await faults()).toBe(before);
  });

  it("GET /v1/usage takes the first day every store holds", async () => {
    expect((await h.request("GET", "/v1/usage?from=1970-01-01&to=1970-01-31")).status).toBe(200);
  });
});

describe("garbage after a complete request on the same connection", () => {
  it("leaves that request its own answer (201 for a create), then closes the connection", async () => {
    const key = crypto.randomUUID();
    const create = `POST /v1/sessions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEYS.a}\r\nIdempotency-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`;
    const answer = await rawExchange(`${create}\u0000\u0001 garbage \r\n\r\n`, true);
    expect(answer.match(/HTTP\/1\.1 \d+/g)).toEqual(["HTTP/1.1 201"]);
    // The key made one session: a retry with it replays that session.
    const retry = await h.client().createSession({}, { idempotencyKey: key });
    expect(retry.response.status).toBe(201);
    expect(retry.response.headers.get("Idempotent-Replayed")).toBe("true");
    expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)).id).toBe(retry.data?.id);
  });
});

describe("integer query parameters", () => {
  it.each(["1e1", "0x10", " 5", "5 ", "+5", "05", "5.0", "1_0"])(
    "answer 422 for limit=%j, which is not written in decimal digits",
    async (limit) => {
      const error = await expectApiError(
        await h.request("GET", `/v1/sessions?limit=${encodeURIComponent(limit)}`),
        422,
        "validation_failed",
      );
      expect(error.detail).toEqual([{ location: "query", path: "limit", message: "must be an integer written in decimal digits" }]);
    },
  );

  it("take limit=5", async () => {
    expect((await h.request("GET", "/v1/sessions?limit=5")).status).toBe(200);
  });

  it("are checked after the scope: a key without it is answered 403 first", async () => {
    await expectApiError(await h.request("GET", "/v1/sessions?limit=0x10", { key: KEYS.aWrite }), 403, "forbidden");
  });
});

describe("an Expect header other than 100-continue", () => {
  it("answers 417 expectation_failed as an ApiError and closes the connection", async () => {
    const answer = await raw(`POST /v1/sessions HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n{}`);
    expectRawApiError(answer, 417, "expectation_failed");
  });
});
