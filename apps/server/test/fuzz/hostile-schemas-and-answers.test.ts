/**
 * What a customer's JSON Schemas and a customer's tool endpoint can do to the service, generated
 * (issue 61's probe, at volume): data_schemas with the patterns that take a backtracking engine
 * exponential time, $ref loops written every way (directly, through anyOf and allOf, across
 * definitions, percent-encoded), and answers of a webhook tool nested thousands deep, holding NUL and
 * lone surrogates in keys and values, too large, not JSON. Whatever comes, the service answers within
 * the contract (never a 5xx), keeps serving /healthz meanwhile, and what it kept is readable.
 *
 * FUZZ_SEED reproduces a run.
 */
import { randomUUID } from "node:crypto";
import { digitalHumanToken, WebhookReceiver } from "@dhs/testkit";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, KEYS, startHarness } from "../support/harness.js";
import { validator } from "./contract.js";

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const JOB = "agent-AJ_fuzz";
let h: Harness;
const endpoint = new WebhookReceiver();
let endpointId = "";

beforeAll(async () => {
  h = await startHarness({ RATE_LIMIT_PER_SECOND: "1000000", RATE_LIMIT_BURST: "1000000", TEST_MAX_OPEN_SESSIONS: "1000" });
  await endpoint.start();
  const made = (await (
    await h.request("POST", "/v1/webhook-endpoints", { key: KEYS.aTest, body: { url: endpoint.url, event_types: ["session.ended"] } })
  ).json()) as { id: string; secret: string };
  endpointId = made.id;
  endpoint.secrets = [made.secret];
});
afterAll(async () => {
  await endpoint.stop();
  await h?.close();
});

/** The slowest /healthz while `work` runs: the one thread every account shares must stay free. */
async function healthDuring<T>(work: () => Promise<T>): Promise<{ result: T; worstMs: number }> {
  let worstMs = 0;
  let done = false;
  const probe = (async () => {
    while (!done) {
      const started = performance.now();
      await fetch(`${h.url}/healthz`);
      worstMs = Math.max(worstMs, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  try {
    return { result: await work(), worstMs };
  } finally {
    done = true;
    await probe;
  }
}

const post = (path: string, body: unknown, key: string = KEYS.aTest) =>
  h.request("POST", path, { key, body, headers: { "Idempotency-Key": randomUUID() } });

// ---- data_schemas ----------------------------------------------------------------------------------

/** Patterns a backtracking engine takes exponential (or high polynomial) time on, with their killer input. */
const BACKTRACKING: [string, string][] = [
  ["^(a+)+$", `${"a".repeat(40)}!`],
  ["^(a|aa)+$", `${"a".repeat(60)}!`],
  ["^(a|a?)+$", `${"a".repeat(40)}!`],
  ["^([a-zA-Z]+)*$", `${"a".repeat(40)}1`],
  ["^(\\w+\\s?)+$", `${"word ".repeat(20)}!`],
  ["^(.*a){12}$", `${"a".repeat(40)}b`],
  ["(x+x+)+y", "x".repeat(40)],
  ["^(\\d+)*\\.$", `${"1".repeat(40)}x`],
];
/** What RE2 cannot match in linear time: refused when the schema is saved. */
const NOT_LINEAR = ["^(?=.*\\d).+$", "(?!x)y", "(?<=a)b", "(a)\\1"];

const closed = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: "object",
  additionalProperties: false,
  required: Object.keys(properties),
  properties,
  ...extra,
});

type SchemaCase = { schema: Record<string, unknown>; refused: boolean; input?: string };

const loopSchema: fc.Arbitrary<SchemaCase> = fc
  .oneof(
    fc.constant({ a: { $ref: "#/$defs/a" } }),
    fc.constant({ a: { anyOf: [{ type: "null" }, { $ref: "#/$defs/a" }] } }),
    fc.constant({ a: { $ref: "#/$defs/b" }, b: { anyOf: [{ $ref: "#/$defs/a" }, { type: "string" }] } }),
    fc.constant({ a: { $ref: "#/$defs/%61" } }),
    fc.constant({ a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/c" }, c: { anyOf: [{ type: "null" }, { $ref: "#/$defs/a" }] } }),
  )
  .map((defs) => ({ schema: closed({ x: { $ref: "#/$defs/a" } }, { $defs: defs }), refused: true }));

const treeSchema: fc.Arbitrary<SchemaCase> = fc.constant({
  schema: closed(
    { root: { $ref: "#/$defs/node" } },
    { $defs: { node: closed({ name: { type: "string" }, kids: { type: "array", items: { $ref: "#/$defs/node" } } }) } },
  ),
  refused: false,
});

const patternSchema: fc.Arbitrary<SchemaCase> = fc.oneof(
  fc.constantFrom(...BACKTRACKING).map(([pattern, input]) => ({
    schema: closed({ code: { type: ["string", "null"], pattern } }),
    refused: false,
    input,
  })),
  fc.constantFrom(...NOT_LINEAR).map((pattern) => ({ schema: closed({ code: { type: "string", pattern } }), refused: true })),
);

describe("data_schemas an attacker writes", () => {
  it("are refused when they loop or need lookaround, taken otherwise, and their answers checked in linear time", {
    timeout: 300_000,
  }, async () => {
    // Every pattern once, with its killer input, then what the generators make of them with the loops.
    const everyPattern = BACKTRACKING.map(([pattern, input]) => ({
      schema: closed({ code: { type: ["string", "null"], pattern } }),
      refused: false,
      input,
    }));
    const cases = [
      ...everyPattern,
      ...fc.sample(fc.oneof(loopSchema, treeSchema, patternSchema, patternSchema), { numRuns: 60, seed: SEED }),
    ];
    const failures: string[] = [];
    let worst = 0;
    for (const c of cases) {
      const created = await post("/v1/digital-humans", { name: "Fuzz", analysis: { summary: false, data_schema: c.schema } });
      if (created.status >= 500 || created.status !== (c.refused ? 422 : 201)) {
        failures.push(`create ${created.status} (wanted ${c.refused ? 422 : 201}) for ${JSON.stringify(c.schema)}`);
        continue;
      }
      if (c.refused) continue;
      const { id: digitalHumanId } = (await created.json()) as { id: string };
      const session = (await (await post("/v1/sessions", { digital_human_id: digitalHumanId })).json()) as { id: string };
      await post(`/v1/sessions/${session.id}/end`, {});
      const data = c.input !== undefined ? { code: c.input } : { root: { name: "n", kids: [{ name: "m", kids: [] }] } };
      const { result: set, worstMs } = await healthDuring(() =>
        post(`/v1/test-helpers/sessions/${session.id}/analysis`, { status: "complete", data }),
      );
      worst = Math.max(worst, worstMs);
      // A killer input does not match its pattern (422); a tree matches its schema (200).
      const wanted = c.input !== undefined ? 422 : 200;
      if (set.status !== wanted) failures.push(`setTestSessionAnalysis ${set.status} (wanted ${wanted}) for ${JSON.stringify(c.schema)}`);
    }
    console.log(
      `hostile data_schemas: ${cases.length} (seed ${SEED}); slowest /healthz while an answer was checked ${worst.toFixed(0)} ms`,
    );
    expect(failures).toEqual([]);
  });
});

// ---- a tool endpoint's answers ---------------------------------------------------------------------

const nested = (depth: number, leaf: string) => `${"[".repeat(depth)}${leaf}${"]".repeat(depth)}`;
const hostileText = fc.constantFrom("a\\u0000b", "\\ud800", "x\\udc00y", "\\u0000", "ok \\ud83d\\ude00", "\\u202eevil");
const answerBody: fc.Arbitrary<{ status: number; body: string }> = fc.oneof(
  fc.integer({ min: 1, max: 10_000 }).map((depth) => ({ status: 200, body: `{"result":${nested(depth, "1")}}` })),
  fc.tuple(hostileText, hostileText).map(([k, v]) => ({ status: 200, body: `{"result":{"${k}":"${v}","n":[1,"${v}"]}}` })),
  hostileText.map((v) => ({ status: 200, body: `{"error":"${v}"}` })),
  fc.constantFrom(
    { status: 200, body: '{"result":{"__proto__":{"polluted":true}}}' },
    { status: 200, body: '{"result":1e400}' },
    { status: 200, body: `{"result":"${"x".repeat(20_000)}"}` },
    { status: 200, body: '{"result":' },
    { status: 200, body: "[]" },
    { status: 500, body: '{"error":"down"}' },
    { status: 200, body: `{"error":"${"e".repeat(5000)}"}` },
  ),
);

const toolCallValid = validator({ $ref: "#/components/schemas/ToolCall" });

describe("a tool endpoint an attacker runs", () => {
  it("answers hostile JSON that each call records as the endpoint's outcome, readable as the contract says", {
    timeout: 300_000,
  }, async () => {
    const persona = await post("/v1/digital-humans", {
      name: "Fuzz tools",
      tools: [{ type: "webhook", name: "look_up", description: "Looks something up.", endpoint_id: endpointId }],
    });
    expect(persona.status).toBe(201);
    const { id: digitalHumanId } = (await persona.json()) as { id: string };
    const answers = fc.sample(answerBody, { numRuns: 120, seed: SEED });
    const failures: string[] = [];
    let worst = 0;
    for (let i = 0; i < answers.length; i += 10) {
      const session = (await (await post("/v1/sessions", { digital_human_id: digitalHumanId })).json()) as {
        id: string;
        room_name: string;
      };
      const token = await digitalHumanToken(session.room_name, { identity: JOB });
      for (const answer of answers.slice(i, i + 10)) {
        endpoint.answer = () => answer;
        const { result: res, worstMs } = await healthDuring(() =>
          fetch(`${h.url}/v1/sessions/${session.id}/conversation/tool-calls`, {
            method: "POST",
            headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
            body: JSON.stringify({ participant_identity: JOB, tool_call_id: `call_${randomUUID()}`, name: "look_up", arguments: {} }),
          }),
        );
        worst = Math.max(worst, worstMs);
        const call = (await res.json()) as { status: string };
        if (res.status !== 200 || !["succeeded", "failed"].includes(call.status))
          failures.push(`${res.status} ${JSON.stringify(call).slice(0, 200)} for ${answer.body.slice(0, 100)}`);
      }
      await post(`/v1/sessions/${session.id}/end`, {});
      const listed = await h.request("GET", `/v1/sessions/${session.id}/tool-calls`, { key: KEYS.aTest });
      const { data } = (await listed.json()) as { data: unknown[] };
      if (listed.status !== 200 || data.length !== Math.min(10, answers.length - i)) failures.push(`listSessionToolCalls ${listed.status}`);
      for (const call of data ?? []) failures.push(...toolCallValid(call).map((e) => `a kept call: ${e}`));
      if (JSON.stringify(data).match(/\\u0000|\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])/i))
        failures.push("a kept call holds NUL or a lone surrogate");
    }
    console.log(`hostile tool answers: ${answers.length} (seed ${SEED}); slowest /healthz while one was read ${worst.toFixed(0)} ms`);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(failures.slice(0, 20)).toEqual([]);
  });
});
