/**
 * Hostile input, at volume: at least 20 000 requests generated from the contract and mutated (see
 * requests.ts), sent to the real service on Redis. Whatever arrives, the service answers: no 5xx, no
 * dropped connection, an X-Request-ID on every answer, every error an ApiError whose request_id is that
 * id, and every answer to a contract operation one of the statuses it documents, with a body valid
 * against the documented schema (checked here with Ajv, and by express-openapi-validator's response
 * validation inside the server, which would turn an invalid body into a 500).
 *
 * FUZZ_SEED reproduces a run; FUZZ_RUNS changes its size; FUZZ_REPORT=<file> writes every problem found
 * there (the assertion shows the first 25).
 */
import { writeFileSync } from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import { connect } from "node:net";
import { digitalHumanToken } from "@dhs/testkit";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, KEYS, roomEvent, startHarness } from "../support/harness.js";
import { document, operationFor, validator } from "./contract.js";
import { type FuzzContext, type FuzzRequest, requestArbitrary, seedRequests } from "./requests.js";
import { schemaArbitrary } from "./schema-arbitrary.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 20_000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const CONCURRENCY = 16;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

let h: Harness;
let ctx: FuzzContext;
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

beforeAll(async () => {
  // Limits high enough that the fuzzer reaches the operations instead of being answered 429.
  h = await startHarness({ RATE_LIMIT_PER_SECOND: "1000000", RATE_LIMIT_BURST: "1000000" });
  const create = async (key: string) => (await (await h.create({}, { key })).json()) as { id: string; room_name: string };
  const mine = await Promise.all(Array.from({ length: 8 }, () => create(KEYS.a)));
  // Some of them active and some terminal, so refresh and end meet every state.
  for (const s of mine.slice(0, 3)) await h.webhook(roomEvent("participant_joined", s, { identity: "u" }));
  for (const s of mine.slice(3, 5)) await h.request("POST", `/v1/sessions/${s.id}/end`);
  const theirs = await Promise.all(Array.from({ length: 2 }, () => create(KEYS.b)));
  ctx = {
    keys: { readWrite: KEYS.a, readOnly: KEYS.aRead, writeOnly: KEYS.aWrite, otherAccount: KEYS.b },
    sessionIds: mine.map((s) => s.id),
    otherAccountSessionIds: theirs.map((s) => s.id),
    agentTokens: Object.fromEntries(
      await Promise.all(mine.map(async (s) => [s.id, await digitalHumanToken(s.room_name, { ttl: 3000 })] as const)),
    ),
  };
});
afterAll(async () => {
  agent.destroy();
  await h?.close();
});

function send(req: FuzzRequest): Promise<Answer> {
  const { hostname, port } = new URL(h.url);
  if (req.raw) return sendRaw(hostname, Number(port), req.raw);
  return new Promise((resolve, reject) => {
    // Content-Length always: without it Node sends a GET, DELETE or OPTIONS body unframed, which the
    // server must read as the start of the next request.
    const headers = req.body ? { ...req.headers, "Content-Length": String(req.body.length) } : req.headers;
    const outgoing = httpRequest({ host: hostname, port, method: req.method, path: req.path, headers, agent, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    outgoing.on("timeout", () => outgoing.destroy(new Error("no answer within 10 s")));
    outgoing.on("error", reject);
    outgoing.end(req.body);
  });
}

/** Writes bytes no HTTP client would, and reads one HTTP/1.1 answer back. */
function sendRaw(host: string, port: number, raw: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, host);
    let data = Buffer.alloc(0);
    const timer = setTimeout(() => socket.destroy(new Error("no answer within 10 s")), 10_000);
    const finish = (answer: Answer | Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (answer instanceof Error) reject(answer);
      else resolve(answer);
    };
    const tryParse = (ended: boolean) => {
      const end = data.indexOf("\r\n\r\n");
      if (end < 0) return ended ? finish(new Error(`connection closed without an answer (${data.length} bytes)`)) : undefined;
      const [statusLine = "", ...headerLines] = data.subarray(0, end).toString("latin1").split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(":");
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = Number(headers["content-length"] ?? 0);
      if (data.length - end - 4 < length && !ended) return undefined;
      finish({ status: Number(statusLine.split(" ")[1]), headers, body: data.subarray(end + 4, end + 4 + length).toString("utf8") });
    };
    socket.on("data", (chunk) => {
      data = Buffer.concat([data, chunk]);
      tryParse(false);
    });
    socket.on("end", () => tryParse(true));
    socket.on("error", (error) => finish(error));
    socket.write(raw);
  });
}

const BEFORE_ANY_OPERATION: Record<number, string> = {
  400: "malformed_request",
  408: "request_timeout",
  417: "expectation_failed",
  431: "headers_too_large",
};

const apiErrorValid = validator({ $ref: "#/components/schemas/ApiError" });

/** What is wrong with an answer; nothing when it keeps every promise. */
function problems(req: FuzzRequest, answer: Answer): string[] {
  const found: string[] = [];
  const requestId = answer.headers["x-request-id"];
  if (answer.status >= 500) found.push(`answered ${answer.status}`);
  if (req.mustRefuse && answer.status >= 200 && answer.status < 300) found.push(`took a request with ${req.mustRefuse} (${answer.status})`);
  if (typeof requestId !== "string" || !/^req_[0-9a-f]{32}$/.test(requestId)) found.push(`X-Request-ID is ${String(requestId)}`);
  if (req.method === "HEAD") return found;
  let body: any;
  const isJson = /^application\/json/.test(String(answer.headers["content-type"]));
  if (isJson) {
    try {
      body = JSON.parse(answer.body);
    } catch {
      found.push("a JSON content type with a body that is not JSON");
    }
  }
  if (answer.status >= 400) {
    if (!isJson) found.push(`an error that is not JSON (${String(answer.headers["content-type"])})`);
    else {
      found.push(...apiErrorValid(body).map((e) => `not an ApiError: ${e}`));
      if (body?.request_id !== requestId) found.push("request_id differs from X-Request-ID");
    }
  }
  // Answered by the HTTP layer before any operation is reached (see the contract's table of errors).
  const before = BEFORE_ANY_OPERATION[answer.status];
  if (before) {
    if (body?.code !== before) found.push(`${answer.status} with code ${String(body?.code)}, not ${before}`);
    return found;
  }
  const pathname = req.path.split("?")[0] ?? "";
  const op = req.raw ? undefined : operationFor(req.method, pathname);
  if (op) {
    const documented = op.responses[String(answer.status)];
    if (!documented) found.push(`${op.id} answered ${answer.status}, which it does not document`);
    else {
      for (const [name, header] of Object.entries((documented.headers ?? {}) as Record<string, any>)) {
        const resolved = header.$ref ? document.components.headers[header.$ref.split("/").pop()] : header;
        if (resolved.required && answer.headers[name.toLowerCase()] === undefined)
          found.push(`${op.id} ${answer.status} without the ${name} header`);
      }
      const schema = documented.content?.["application/json"]?.schema;
      if (schema) found.push(...validator(schema)(body).map((e) => `${op.id} ${answer.status} body: ${e}`));
    }
  }
  return found;
}

function describeRequest(req: FuzzRequest): string {
  if (req.raw) return `${req.kind}: ${JSON.stringify(req.raw.toString("latin1").slice(0, 200))}`;
  const body = req.body ? ` body(${req.body.length} B)=${JSON.stringify(req.body.toString("latin1").slice(0, 120))}` : "";
  return `${req.kind}: ${req.method} ${req.path.slice(0, 160)} ${JSON.stringify(req.headers).slice(0, 300)}${body}`;
}

describe("the contract fuzzer", () => {
  it("generates bodies from the contract's schemas that the contract accepts", () => {
    const create = validator({ $ref: "#/components/schemas/SessionCreate" });
    for (const value of fc.sample(schemaArbitrary({ $ref: "#/components/schemas/SessionCreate" }, document), {
      numRuns: 500,
      seed: SEED,
    })) {
      expect(create(value), JSON.stringify(value)).toEqual([]);
    }
  });

  it(`answers ${RUNS} generated and mutated requests without a 5xx, each an ApiError or a valid answer of the contract`, {
    timeout: 600_000,
  }, async () => {
    const requests = [...seedRequests(ctx), ...fc.sample(requestArbitrary(ctx), { numRuns: RUNS, seed: SEED })];
    const failures: string[] = [];
    const statuses: Record<string, number> = {};
    const kinds = new Set<string>();
    // Requests carrying what must be refused, by the status they got: most should reach validation (422).
    const refusals: Record<string, number> = {};
    let next = 0;
    const worker = async () => {
      while (next < requests.length) {
        const req = requests[next++] as FuzzRequest;
        kinds.add(req.kind.replace(/^\w+: /, ""));
        let answer: Answer;
        try {
          answer = await send(req);
        } catch (error) {
          failures.push(`no answer (${(error as Error).message}) to ${describeRequest(req)}`);
          continue;
        }
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        if (req.mustRefuse) refusals[answer.status] = (refusals[answer.status] ?? 0) + 1;
        for (const problem of problems(req, answer)) failures.push(`${problem} <- ${describeRequest(req)} -> ${answer.body.slice(0, 200)}`);
      }
    };
    const started = Date.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `fuzz: ${requests.length} requests in ${seconds.toFixed(1)} s (seed ${SEED}); statuses ${JSON.stringify(statuses)}; ${kinds.size} kinds of input; ${failures.length} problems`,
    );
    console.log(`fuzz: requests carrying U+0000 or a day no store holds, by status: ${JSON.stringify(refusals)}`);
    if (process.env.FUZZ_REPORT) writeFileSync(process.env.FUZZ_REPORT, failures.join("\n"));
    expect(failures.slice(0, 25), `seed ${SEED}: ${failures.length} problems, the first 25 shown`).toEqual([]);
    expect(requests.length).toBeGreaterThanOrEqual(RUNS);
    // The check above means something only if such requests get past authentication to be refused.
    if (RUNS >= 10_000) expect(refusals["422"] ?? 0).toBeGreaterThan(100);
  });
});
