/**
 * What the fuzzer sends: requests built from the contract's operations (parameters and bodies generated
 * from their schemas), then mutated the way hostile or broken clients do: wrong types, huge strings,
 * deep nesting, unicode and lone surrogates, invalid UTF-8, duplicate JSON keys, truncated JSON, odd
 * content types and encodings, odd headers, unknown paths and methods, and raw bytes no HTTP client
 * would send.
 */
import fc from "fast-check";
import { document, type Operation, operations } from "./contract.js";
import { schemaArbitrary } from "./schema-arbitrary.js";

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** A whole request as bytes, sent over a plain socket instead of through an HTTP client. */
  raw?: Buffer;
  /** What kind of request this is, for the report. */
  kind: string;
  /** What it carries that the service must never take (a 2xx is a defect): U+0000 where PostgreSQL cannot hold it, a day no store holds. */
  mustRefuse?: string;
}

export interface FuzzContext {
  /** API keys by role. */
  keys: { readWrite: string; readOnly: string; writeOnly: string; otherAccount: string };
  /** Ids of sessions that exist, in the first account and in the other one. */
  sessionIds: string[];
  otherAccountSessionIds: string[];
  /** The digital human's token for each of `sessionIds` (its room's), so its transcript is reached too. */
  agentTokens: Record<string, string>;
}

/** A cursor in the format the API issued before cursors were sealed: anyone could write one. */
const unsealedCursor = (value: unknown) => `cursor=${Buffer.from(JSON.stringify(value)).toString("base64url")}`;

const json = (value: unknown) => Buffer.from(JSON.stringify(value));

/** Percent-encodes the UTF-8 bytes of any string (encodeURIComponent throws on lone surrogates). */
function percentEncode(text: string): string {
  return [...Buffer.from(text, "utf8")]
    .map((b) =>
      /[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, "0")}`,
    )
    .join("");
}

// Header values an HTTP client can send: visible ASCII and latin-1, no control characters.
const headerText = fc.string({
  unit: fc
    .integer({ min: 0x20, max: 0xff })
    .filter((c) => c !== 0x7f)
    .map((c) => String.fromCharCode(c)),
  maxLength: 300,
});

function authorization(ctx: FuzzContext): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(`Bearer ${ctx.keys.readWrite}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(`Bearer ${ctx.keys.readOnly}`, `Bearer ${ctx.keys.writeOnly}`, `Bearer ${ctx.keys.otherAccount}`),
    },
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 1,
      arbitrary: fc.oneof(
        headerText,
        headerText.map((t) => `Bearer ${t}`),
        fc.constantFrom(
          "Bearer",
          "Bearer ",
          "bearer dhs_",
          `Basic ${Buffer.from("a:b").toString("base64")}`,
          `Bearer ${ctx.keys.readWrite} extra`,
          `Bearer  ${ctx.keys.readWrite}`,
        ),
        fc.constant(`Bearer ${"dhs_".padEnd(8000, "x")}`),
      ),
    },
  );
}

const hugeString = fc.integer({ min: 1000, max: 70_000 }).map((n) => "x".repeat(n));
const unicodeString = fc.oneof(
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.string({ unit: "grapheme", maxLength: 200 }),
  fc.constantFrom("\u0000", "\uFEFF", "\uD800", "\uDFFF\uD800", "𝕏".repeat(100), "\u202Eevil", "../../etc/passwd", "%00", "' OR 1=1 --"),
);

function deepNesting(): fc.Arbitrary<Buffer> {
  return fc
    .tuple(fc.integer({ min: 50, max: 200_000 }), fc.boolean())
    .map(([depth, objects]) =>
      Buffer.from(objects ? `${'{"metadata":'.repeat(depth)}{}${"}".repeat(depth)}` : `${"[".repeat(depth)}${"]".repeat(depth)}`),
    );
}

/** Nesting inside metadata, where the body is an object the contract takes: every level a key or an index. */
function deepMetadata(): fc.Arbitrary<Buffer> {
  return fc.tuple(fc.integer({ min: 20, max: 10_000 }), fc.constantFrom('{"a":', "[", '[{"b":')).map(([depth, open]) => {
    const close = { '{"a":': "}", "[": "]", '[{"b":': "}]" }[open] as string;
    return Buffer.from(`{"metadata":{"m":${open.repeat(depth)}1${close.repeat(depth)}}}`);
  });
}

/** Numbers JSON.parse can only read as Infinity, where the contract takes a number or anything. */
function nonFiniteNumber(): fc.Arbitrary<Buffer> {
  return fc
    .tuple(fc.constantFrom("1e400", "-1e400", "9".repeat(400), "1.5e309"), fc.constantFrom("metadata", "tags", "participant_identity"))
    .map(([number, field]) =>
      Buffer.from(field === "metadata" ? `{"metadata":{"n":${number}}}` : `{"${field}":${field === "tags" ? `[${number}]` : number}}`),
    );
}

function invalidUtf8(valid: fc.Arbitrary<unknown>): fc.Arbitrary<Buffer> {
  const bad = fc.constantFrom([0xff], [0xfe, 0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82], [0x80]);
  return fc.tuple(valid, bad, fc.nat()).map(([value, bytes, at]) => {
    const text = Buffer.from(JSON.stringify(value ?? {}));
    const quote = text.indexOf(0x22, at % Math.max(text.length, 1));
    const cut = quote >= 0 ? quote + 1 : Math.min(at % (text.length + 1), text.length);
    return Buffer.concat([text.subarray(0, cut), Buffer.from(bytes), text.subarray(cut)]);
  });
}

interface BodyChoice {
  body?: Buffer;
  kind: string;
  mustRefuse?: string;
}

/**
 * The value with U+0000 put into one of its strings or keys (the `at`-th, counting strings and keys in
 * order), or into a new key when it holds none: what PostgreSQL's text and jsonb cannot hold.
 */
function withNul(value: unknown, at: number, inKey: boolean): unknown {
  const places: { parent: Record<string, unknown> | unknown[]; key: string | number; isKey: boolean }[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node))
      for (const [i, child] of node.entries()) {
        if (typeof child === "string") places.push({ parent: node, key: i, isKey: false });
        else walk(child);
      }
    else if (typeof node === "object" && node !== null)
      for (const [key, child] of Object.entries(node)) {
        places.push({ parent: node as Record<string, unknown>, key, isKey: true });
        if (typeof child === "string") places.push({ parent: node as Record<string, unknown>, key, isKey: false });
        else walk(child);
      }
  };
  const copy = structuredClone(value) ?? {};
  walk(copy);
  const candidates = places.filter((place) => place.isKey === inKey);
  const place = candidates[at % Math.max(candidates.length, 1)];
  if (!place) return typeof copy === "object" && copy !== null && !Array.isArray(copy) ? { ...copy, "k\u0000": "v" } : { "k\u0000": "v" };
  if (!place.isKey) {
    const text = String((place.parent as Record<string | number, unknown>)[place.key]);
    (place.parent as Record<string | number, unknown>)[place.key] =
      `${text.slice(0, at % (text.length + 1))}\u0000${text.slice(at % (text.length + 1))}`;
    return copy;
  }
  const parent = place.parent as Record<string, unknown>;
  const child = parent[place.key as string];
  delete parent[place.key as string];
  parent[`${place.key}\u0000`] = child;
  return copy;
}

/** Times no store holds, or at the edges of what they hold, put in place of the value's date-times. */
const HOSTILE_TIMES = [
  "0000-01-01T00:00:00Z",
  "0001-01-01T00:00:00.000Z",
  "9999-12-31T23:59:59.999Z",
  "1969-12-31T23:59:59Z",
  "2026-02-30T10:00:00Z",
];

function withHostileTimes(value: unknown, time: string): unknown {
  const copy = structuredClone(value) ?? {};
  const walk = (node: unknown) => {
    if (typeof node !== "object" || node === null) return;
    for (const [key, child] of Object.entries(node)) {
      if (typeof child === "string" && /^\d{4}-\d{2}-\d{2}T/.test(child)) (node as Record<string, unknown>)[key] = time;
      else walk(child);
    }
  };
  walk(copy);
  return copy;
}

function bodyOf(op: Operation | undefined): fc.Arbitrary<BodyChoice> {
  const valid = op?.body ? schemaArbitrary(op.body, document) : fc.jsonValue({ maxDepth: 2 });
  const validObject = op?.body ? valid : fc.object();
  return fc.oneof(
    { weight: 8, arbitrary: valid.map((v) => ({ body: json(v), kind: "body from schema" })) },
    { weight: 2, arbitrary: fc.constant({ kind: "no body" }) },
    { weight: 2, arbitrary: fc.jsonValue().map((v) => ({ body: json(v), kind: "body of any JSON type" })) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          validObject,
          fc.constantFrom("participant_identity", "digital_human_id", "tags", "metadata", "unknown_field"),
          fc.oneof(fc.jsonValue(), unicodeString, hugeString),
        )
        .map(([v, field, value]) => ({
          body: json({ ...(v as object), [field]: value }),
          kind: "a field with a wrong, unicode or huge value",
        })),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(validObject, fc.nat(), fc.boolean()).map(([v, at, inKey]) => ({
        body: json(withNul(v, at, inKey)),
        kind: `U+0000 in a ${inKey ? "key" : "string"}`,
        mustRefuse: "U+0000 in its body",
      })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(valid, fc.constantFrom(...HOSTILE_TIMES))
        .map(([v, time]) => ({ body: json(withHostileTimes(v, time)), kind: `its times at ${time}` })),
    },
    { weight: 1, arbitrary: deepNesting().map((body) => ({ body, kind: "deep nesting" })) },
    { weight: 1, arbitrary: deepMetadata().map((body) => ({ body, kind: "deep nesting inside metadata" })) },
    { weight: 1, arbitrary: nonFiniteNumber().map((body) => ({ body, kind: "a number too large to be finite" })) },
    { weight: 1, arbitrary: invalidUtf8(valid).map((body) => ({ body, kind: "invalid UTF-8" })) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.string({ maxLength: 20 }), fc.jsonValue({ maxDepth: 1 }), fc.jsonValue({ maxDepth: 1 })).map(([k, a, b]) => ({
        body: Buffer.from(
          `{${JSON.stringify(k || "participant_identity")}:${JSON.stringify(a)},${JSON.stringify(k || "participant_identity")}:${JSON.stringify(b)}}`,
        ),
        kind: "duplicate JSON keys",
      })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(valid, fc.nat(), fc.constantFrom("truncate", "bom", "trailing", "comment", "single quotes"))
        .map(([v, at, how]) => {
          const text = JSON.stringify(v ?? {});
          const mangled = {
            truncate: text.slice(0, at % Math.max(text.length, 1)),
            bom: `\uFEFF${text}`,
            trailing: `${text} garbage`,
            comment: `/* c */${text}`,
            "single quotes": text.replaceAll('"', "'"),
          }[how];
          return { body: Buffer.from(mangled), kind: "malformed JSON" };
        }),
    },
  );
}

const contentType = fc.oneof(
  { weight: 10, arbitrary: fc.constant("application/json") },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      undefined,
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/json; charset=utf-16",
      "application/json; charset=latin1",
      "application/json; charset=utf-8",
      "application/merge-patch+json",
      "application/webhook+json",
      "*/*",
      "application/json, text/plain",
    ),
  },
  { weight: 1, arbitrary: headerText },
);

function pathValue(ctx: FuzzContext): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...ctx.sessionIds) },
    { weight: 1, arbitrary: fc.constantFrom(...ctx.otherAccountSessionIds) },
    { weight: 2, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: fc.uuid().map((u) => u.toUpperCase()) },
    {
      weight: 2,
      arbitrary: fc
        .oneof(
          fc.string({ minLength: 1, maxLength: 80 }),
          unicodeString.filter((s) => s.length > 0),
          fc.integer({ min: 1, max: 9000 }).map((n) => "a".repeat(n)),
        )
        .map(percentEncode),
    },
    // Sent as they are: dot segments and broken percent-encoding.
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "..",
        ".",
        "%2e%2e",
        "%00",
        "%ZZ",
        "%",
        "a%2Fb",
        "00000000-0000-0000-0000-000000000000",
        "%20",
        "null",
        "undefined",
      ),
    },
  );
}

function queryOf(op: Operation): fc.Arbitrary<string> {
  const params = op.parameters.filter((p) => p.in === "query");
  const pair = fc.oneof(
    ...params.map((p) =>
      fc
        .oneof(schemaArbitrary(p.schema, document), fc.jsonValue({ maxDepth: 0 }), unicodeString)
        .map((v) => `${p.name}=${percentEncode(String(v))}`),
    ),
    fc
      .tuple(fc.string({ minLength: 1, maxLength: 10 }), fc.string({ maxLength: 10 }))
      .map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`),
    fc.constantFrom(
      "limit=1&limit=2",
      "limit[]=1",
      "status[foo]=active",
      "limit=",
      "cursor=",
      "limit=1e2",
      "limit=0x10",
      "limit=%20",
      "=x",
      "&&",
      "cursor=AAAA",
      // What an attacker's probe sent (issue 39): a time beyond JavaScript's, the log entry 0-0, a
      // segment that does not exist.
      unsealedCursor([9007199254740991, "x"]),
      unsealedCursor(["0-0"]),
      unsealedCursor([1795869261120, "no-such-segment"]),
      unsealedCursor(["c", 8.64e15, "3fa85f64-5717-4562-b3fc-2c963f66afa6"]),
      // Days no store holds (issue 48: year 0000 was a 500 from PostgreSQL).
      "from=0000-01-01&to=0000-01-01",
      "to=0000-12-31",
      "from=1969-12-31&to=1970-01-01",
      "from=9999-12-31&to=9999-12-31",
    ),
    // U+0000 in a value of one of the operation's own parameters.
    ...params.map((p) => fc.string({ maxLength: 8 }).map((v) => `${p.name}=${percentEncode(`${v}\u0000`)}`)),
  );
  // Mostly none, so that most requests get past validation and reach the operation itself.
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant("") },
    { weight: 1, arbitrary: fc.array(pair, { minLength: 1, maxLength: 4 }).map((pairs) => `?${pairs.join("&")}`) },
  );
}

/** Whether one of the operation's own query parameters holds U+0000 (the others are ignored or refused anyway). */
function queryTakesNul(op: Operation, query: string): boolean {
  const names = new Set(op.parameters.filter((p) => p.in === "query").map((p) => p.name));
  return [...new URLSearchParams(query.slice(1))].some(([name, value]) => names.has(name) && value.includes("\u0000"));
}

function operationRequest(op: Operation, ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const idempotency = op.parameters.find((p) => p.name === "Idempotency-Key");
  return fc
    .record({
      id: pathValue(ctx),
      query: queryOf(op),
      auth: authorization(ctx),
      type: contentType,
      body: op.body
        ? bodyOf(op)
        : fc.oneof({ weight: 6, arbitrary: fc.constant<BodyChoice>({ kind: "no body" }) }, { weight: 1, arbitrary: bodyOf(undefined) }),
      idempotencyKey: idempotency
        ? fc.oneof(
            { weight: 8, arbitrary: fc.uuid() },
            {
              weight: 2,
              arbitrary: schemaArbitrary(idempotency.schema, document)
                .map(String)
                .filter((s) => /^[\x20-\x7e]*$/.test(s)),
            },
            { weight: 1, arbitrary: fc.constant(undefined) },
            { weight: 1, arbitrary: headerText },
            { weight: 1, arbitrary: fc.constantFrom(...ctx.sessionIds.slice(0, 3)) },
          )
        : fc.constant(undefined),
      extra: fc.dictionary(fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,20}$/), headerText, { maxKeys: 3 }),
      accept: fc.constantFrom(undefined, "application/json", "application/xml", "*/*", "text/html"),
      useAgentToken: fc.boolean(),
    })
    .map(({ id, query, auth, type, body, idempotencyKey, extra, accept, useAgentToken }) => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(extra)) {
        // Hop-by-hop and framing headers would make the client's request another request.
        if (
          !/^(host|content-length|transfer-encoding|connection|expect|upgrade|te|trailer|keep-alive|authorization|content-type|idempotency-key)$/i.test(
            name,
          )
        )
          headers[name] = value;
      }
      // The digital human's operation, mostly with its own token for the path's session, so its body is reached.
      const agentToken = op.id === "appendTranscriptSegments" && useAgentToken ? ctx.agentTokens[id] : undefined;
      if (agentToken !== undefined) headers.Authorization = `Bearer ${agentToken}`;
      else if (auth !== undefined) headers.Authorization = auth;
      if (type !== undefined && body.body !== undefined) headers["Content-Type"] = type;
      if (idempotencyKey !== undefined) headers["Idempotency-Key"] = idempotencyKey;
      if (accept !== undefined) headers.Accept = accept;
      const mustRefuse =
        // A body sent as anything but JSON is not read (a create without a Content-Type takes `{}`).
        (op.body && /^application\/json\b/i.test(headers["Content-Type"] ?? "") && body.mustRefuse) ||
        (queryTakesNul(op, query) ? "U+0000 in a query value" : undefined) ||
        (op.id === "getUsage" && /(from|to)=(0000|1969)/.test(query) ? "a day before 1970" : undefined);
      return {
        method: op.method,
        path: op.template.replace(/\{[^}]+\}/, id) + query,
        headers,
        ...(body.body ? { body: body.body } : {}),
        kind: `${op.id}: ${body.kind}`,
        ...(mustRefuse ? { mustRefuse } : {}),
      };
    });
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "TRACE", "PROPFIND", "PURGE", "FOO"];

function oddRequest(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const paths = fc.oneof(
    fc.constantFrom(...operations.map((op) => op.template.replace(/\{[^}]+\}/, ctx.sessionIds[0] as string))),
    fc.constantFrom(
      "/",
      "/v1",
      "/v1/",
      "/v2/sessions",
      "/v1/sessions/",
      "//v1/sessions",
      "/v1//sessions",
      "/V1/SESSIONS",
      "/v1/sessions;x=1",
      "/v1/sessions/%2e%2e/me",
      "/v1/me/..",
      "/livekit/webhook",
      "/metrics",
      "/healthz",
      "/readyz",
      "/.env",
      "/v1/sessions?%",
      "/v1/sessions#frag",
      "/v1/me?__proto__[x]=1",
    ),
    fc.webPath().map((p) => p || "/"),
  );
  return fc
    .record({ method: fc.constantFrom(...METHODS), path: paths, auth: authorization(ctx), body: bodyOf(undefined), type: contentType })
    .map(({ method, path, auth, body, type }) => ({
      method,
      path,
      headers: {
        ...(auth ? { Authorization: auth } : {}),
        ...(type && body.body && method !== "GET" && method !== "HEAD" ? { "Content-Type": type } : {}),
      },
      ...(body.body && method !== "GET" && method !== "HEAD" && method !== "TRACE" ? { body: body.body } : {}),
      kind: `odd method or path: ${method}`,
    }));
}

function rawRequest(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const key = ctx.keys.readWrite;
  const id = ctx.sessionIds[0] as string;
  const lines = (parts: string[]) => Buffer.from(`${parts.join("\r\n")}\r\n\r\n`, "latin1");
  const cases: Buffer[] = [
    lines(["GET /v1/me HTTP/1.1", "Host: x", "Authorization: Bearer \u0000abc"]),
    lines(["GET /v1/me HTTP/1.1", "Host: x", `Authorization: Bearer ${key}`, " folded: continuation"]),
    lines([
      "POST /v1/sessions HTTP/1.1",
      "Host: x",
      `Authorization: Bearer ${key}`,
      "Idempotency-Key: k1",
      "Content-Length: 2",
      "Content-Length: 3",
      "",
      "{}",
    ]),
    lines([
      "POST /v1/sessions HTTP/1.1",
      "Host: x",
      `Authorization: Bearer ${key}`,
      "Idempotency-Key: k2",
      "Transfer-Encoding: chunked",
      "Content-Length: 2",
      "",
      "2",
      "{}",
      "0",
    ]),
    lines(["GET /v1/sessions/\u00ff\u00fe HTTP/1.1", "Host: x", `Authorization: Bearer ${key}`]),
    lines([`GET http://evil.example/v1/sessions/${id} HTTP/1.1`, "Host: x", `Authorization: Bearer ${key}`]),
    lines(["GET /v1/me HTTP/1.0", `Authorization: Bearer ${key}`]),
    lines(["GET /v1/me HTTP/9.9", "Host: x"]),
    lines(["GET /v1/me", "Host: x"]),
    lines(["G\u00c9T /v1/me HTTP/1.1", "Host: x"]),
    lines(["GET /v1/me HTTP/1.1", "Host: x", `X-Big: ${"a".repeat(20_000)}`]),
    lines(["GET /v1/me HTTP/1.1", "Host: x", "Bad Header Name: 1"]),
    lines(["GET /v1/me HTTP/1.1", "Host: x", `Authorization: Bearer ${key}`, "X-Request-ID: req_mine"]),
    lines([
      "POST /v1/sessions HTTP/1.1",
      "Host: x",
      `Authorization: Bearer ${key}`,
      "Idempotency-Key: k3",
      "Content-Type: application/json",
      "Content-Encoding: gzip",
      "Content-Length: 2",
      "",
      "{}",
    ]),
    lines([
      "POST /v1/sessions HTTP/1.1",
      "Host: x",
      `Authorization: Bearer ${key}`,
      "Idempotency-Key: k4",
      "Content-Type: application/json",
      "Content-Encoding: br, compress",
      "Content-Length: 2",
      "",
      "{}",
    ]),
    lines([
      "POST /v1/sessions HTTP/1.1",
      "Host: x",
      `Authorization: Bearer ${key}`,
      "Idempotency-Key: k5",
      "Content-Type: application/json",
      "Transfer-Encoding: chunked",
      "",
      "zz",
      "{}",
      "0",
    ]),
    lines(["\u0016\u0003\u0001\u0000"]),
  ];
  return fc.constantFrom(...cases.map((raw, i) => ({ method: "RAW", path: `raw case ${i}`, headers: {}, raw, kind: `raw bytes #${i}` })));
}

export function requestArbitrary(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(
    { weight: 20, arbitrary: fc.oneof(...operations.map((op) => operationRequest(op, ctx))) },
    { weight: 3, arbitrary: oddRequest(ctx) },
    { weight: 1, arbitrary: rawRequest(ctx) },
  );
}

/**
 * Requests every run sends before the generated ones: what found a defect once, so that it cannot come
 * back unseen (issue 39's probe: cursors forged with a time beyond JavaScript's or naming no segment,
 * and transcript segments timed at a leap second, which broke a Redis script halfway through a post).
 */
export function seedRequests(ctx: FuzzContext): FuzzRequest[] {
  const session = ctx.sessionIds[0] as string;
  const key = { Authorization: `Bearer ${ctx.keys.readWrite}` };
  const agent = { Authorization: `Bearer ${ctx.agentTokens[session]}`, "Content-Type": "application/json" };
  const segment = (id: string, started_at: string, ended_at: string) => ({
    id,
    speaker: "digital_human",
    text: "a leap",
    started_at,
    ended_at,
  });
  const post = (segments: unknown[]): FuzzRequest => ({
    method: "POST",
    path: `/v1/sessions/${session}/transcript/segments`,
    headers: agent,
    body: json({ segments }),
    kind: "seed: a transcript post with a leap second",
  });
  return [
    ...[
      [9007199254740991, "x"],
      [-9007199254740991, session],
      [8.64e15 + 1, session],
    ].map((value) => ({
      method: "GET",
      path: `/v1/sessions?${unsealedCursor(value)}`,
      headers: key,
      kind: "seed: a forged sessions cursor",
    })),
    {
      method: "GET",
      path: `/v1/sessions/${session}/transcript?${unsealedCursor([1795869261120, "no-such-segment"])}`,
      headers: key,
      kind: "seed: a forged transcript cursor",
    },
    post([
      segment("seed-1", "2026-12-31T23:59:58Z", "2026-12-31T23:59:59Z"),
      segment("seed-2", "2026-12-31T23:59:60Z", "2027-01-01T00:00:00Z"),
    ]),
    post([segment("seed-3", "2026-12-31T23:59:59Z", "2026-12-31T23:59:60Z")]),
  ];
}
