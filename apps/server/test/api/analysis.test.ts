/**
 * Analysis (contract guide, "Analysis"): a digital human's `analysis` settings, checked as strict
 * structured outputs take a schema and kept by its sessions; the analysis asked of the LLM (the testkit's
 * Chat Completions server) once the session ended and its transcript is complete, its answer checked and
 * repaired once, retried while the LLM fails; getSessionAnalysis and its states; the
 * session.analysis_ready event, once; erasure with the transcript; the test helper.
 */
import { randomUUID } from "node:crypto";
import { askedSchema, ChatCompletionsServer, type ChatRequest, type ChatScript, messageText, WebhookReceiver } from "@dhs/testkit";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { postSegments, segment } from "../support/digital-human-posts.js";
import { DIGITAL_HUMANS, expectApiError, expectData, KEYS, STORE, until, useHarness } from "../support/harness.js";

const llm = await new ChatCompletionsServer().start();
const h = useHarness({
  SWEEP_INTERVAL_MS: "100",
  TEST_MAX_OPEN_SESSIONS: "100",
  OPENAI_BASE_URL: llm.baseUrl,
  OPENAI_API_KEY: "sk-analysis",
  ANALYSIS_MODEL: "analysis-model",
  ANALYSIS_TIMEOUT_S: "5",
  ANALYSIS_RETRY_S: "1",
});
const [AVA] = DIGITAL_HUMANS;
const events = new WebhookReceiver();

const LEAD_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["name", "email", "seats"],
  properties: {
    name: { type: ["string", "null"], description: "The participant's name." },
    email: { type: ["string", "null"], format: "email" },
    seats: { type: ["integer", "null"] },
  },
};
const CRITERIA = ["The participant left a way to contact them.", "The participant booked a demo."];
const LEAD_ANSWER = {
  summary: "Ada asked for a quote for 40 seats and left her e-mail address.",
  data: { name: "Ada Lovelace", email: "ada@example.com", seats: 40 },
  success_criteria: [
    { index: 0, result: "met", reason: "She gave her e-mail address." },
    { index: 1, result: "not_met", reason: "She asked to be called back." },
  ],
};

/** What each LLM request gets, in order; the last one for any after. */
let scripts: ChatScript[] = [];
beforeEach(() => {
  scripts = [{ json: LEAD_ANSWER }];
});
llm.script = () => (scripts.length > 1 ? (scripts.shift() as ChatScript) : (scripts[0] as ChatScript));

beforeAll(async () => {
  await events.start();
  const endpoint = expectData(
    await h.client(KEYS.aHooks).createWebhookEndpoint({ url: events.url, event_types: ["session.analysis_ready"] }),
    201,
  );
  events.secrets = [endpoint.secret as string];
});
afterAll(async () => {
  await events.stop();
  await llm.stop();
});

async function analyst(analysis: unknown = { data_schema: LEAD_SCHEMA, success_criteria: CRITERIA }, key: string = KEYS.aPersonas) {
  return expectData(await h.client(key).createDigitalHuman({ name: "Lena", appearance: AVA.id, analysis: analysis as never }), 201);
}

type Made = { id: string; room_name: string };
async function sessionOf(digitalHumanId: string, key: string = KEYS.a): Promise<Made> {
  return expectData(
    await h.client(key).createSession({ digital_human_id: digitalHumanId, participant_identity: `p-${randomUUID().slice(0, 8)}` }),
    201,
  );
}

/** The conversation the digital human's worker would post, then the end and `final`: the transcript complete. */
async function converse(session: Made, lines: [string, "participant" | "digital_human"][], key: string = KEYS.a): Promise<void> {
  const segments = lines.map(([text, speaker], i) => segment(`s${i}`, i * 2, text, speaker));
  expect((await postSegments(h, session, { segments })).status).toBe(200);
  await h.client(key).endSession(session.id);
  expect((await postSegments(h, session, { segments: [], final: true })).status).toBe(200);
}

const LEAD_TALK: [string, "participant" | "digital_human"][] = [
  ["Hello, how can I help?", "digital_human"],
  ["I'm Ada Lovelace, I'd like a quote for 40 seats.", "participant"],
  ["Happy to. Where can we reach you?", "digital_human"],
  ["ada@example.com, and please call me back rather than booking a demo.", "participant"],
];

const analysisOf = async (id: string, key: string = KEYS.a) => expectData(await h.client(key).getSessionAnalysis(id));
const settledAnalysis = (id: string, key: string = KEYS.a) =>
  until(
    async () => {
      const shown = await analysisOf(id, key);
      return shown.status === "pending" ? undefined : shown;
    },
    { what: "the analysis settled", timeoutMs: 15_000 },
  );
const readyFor = (id: string) => events.received.filter((r) => r.type === "session.analysis_ready" && r.body.data?.session_id === id);
const requestsFor = (marker: string): ChatRequest[] => llm.requests.filter((r) => r.messages.some((m) => messageText(m).includes(marker)));

describe("a digital human's analysis settings", () => {
  it("are answered with their defaults filled, null by default, and replaced or cleared by an update", async () => {
    const plain = expectData(await h.client(KEYS.aPersonas).createDigitalHuman({ name: "Plain", appearance: AVA.id }), 201);
    expect(plain.analysis).toBeNull();
    const made = await analyst({ success_criteria: ["  The guest got an answer.  "] });
    expect(made.analysis).toEqual({ summary: true, data_schema: null, success_criteria: ["The guest got an answer."] });
    const changed = expectData(
      await h.client(KEYS.aPersonas).updateDigitalHuman(made.id, { analysis: { summary: false, data_schema: LEAD_SCHEMA } }),
    );
    expect(changed.analysis).toEqual({ summary: false, data_schema: LEAD_SCHEMA, success_criteria: [] });
    expect(expectData(await h.client(KEYS.aPersonas).updateDigitalHuman(made.id, { name: "Lena 2" })).analysis).toEqual(changed.analysis);
    expect(expectData(await h.client(KEYS.aPersonas).updateDigitalHuman(made.id, { analysis: null })).analysis).toBeNull();
    const stock = expectData(await h.client(KEYS.aPersonas).getDigitalHuman(AVA.id));
    expect(stock.analysis).toBeNull();
  });

  it("are refused with 422 naming the path: a schema strict outputs refuse, criteria twice, settings that ask for nothing", async () => {
    const refuse = async (analysis: unknown, path: string, message: RegExp) => {
      const res = await h.client(KEYS.aPersonas).createDigitalHuman({ name: "Bad", appearance: AVA.id, analysis: analysis as never });
      const error = await expectApiError(res, 422, "validation_failed");
      const details = error.detail as { path: string; message: string }[];
      expect(
        details.map((d) => d.path),
        JSON.stringify(details),
      ).toContain(path);
      expect(details.find((d) => d.path === path)?.message).toMatch(message);
    };
    const open = { type: "object", properties: { name: { type: "string" } }, required: ["name"] };
    await refuse({ data_schema: open }, "analysis.data_schema.additionalProperties", /false/);
    const optional = { ...LEAD_SCHEMA, required: ["name", "email"] };
    await refuse({ data_schema: optional }, "analysis.data_schema.required", /seats/);
    const unknownKeyword = { ...LEAD_SCHEMA, properties: { ...LEAD_SCHEMA.properties, name: { type: "string", minLength: 2 } } };
    await refuse({ data_schema: unknownKeyword }, "analysis.data_schema.properties.name.minLength", /keyword/);
    await refuse({ data_schema: { type: "array", items: { type: "string" } } }, "analysis.data_schema.type", /object/);
    await refuse({ success_criteria: ["Booked.", "booked."] }, "analysis.success_criteria.1", /same/);
    await refuse({ summary: false }, "analysis", /nothing/);
  });

  it("are refused with a $ref loop that never reaches a value, or a pattern beyond linear time", async () => {
    const refuse = async (dataSchema: unknown, path: string, message: RegExp) => {
      const res = await h
        .client(KEYS.aPersonas)
        .createDigitalHuman({ name: "Bad", appearance: AVA.id, analysis: { data_schema: dataSchema as never } });
      const details = (await expectApiError(res, 422, "validation_failed")).detail as { path: string; message: string }[];
      expect(details.find((d) => d.path === path)?.message, JSON.stringify(details)).toMatch(message);
    };
    const withCode = (code: unknown, extra: object = {}) => ({
      ...LEAD_SCHEMA,
      ...extra,
      properties: { ...LEAD_SCHEMA.properties, code },
      required: [...LEAD_SCHEMA.required, "code"],
    });
    await refuse(
      withCode({ $ref: "#/$defs/a" }, { $defs: { a: { $ref: "#/$defs/a" } } }),
      "analysis.data_schema.$defs.a.$ref",
      /loops back/,
    );
    await refuse(
      withCode(
        { $ref: "#/$defs/a" },
        { $defs: { a: { anyOf: [{ type: "null" }, { $ref: "#/$defs/b" }] }, b: { anyOf: [{ $ref: "#/$defs/a" }] } } },
      ),
      "analysis.data_schema.$defs.b.anyOf.0.$ref",
      /#\/\$defs\/a -> #\/\$defs\/b -> #\/\$defs\/a/,
    );
    await refuse(withCode({ type: "string", pattern: "^(?!x)\\w+$" }), "analysis.data_schema.properties.code.pattern", /linear time/);
  });

  it("are refused by the contract: more than 10 criteria, a criterion over 300 characters", async () => {
    const many = Array.from({ length: 11 }, (_, i) => `Criterion ${i}.`);
    const res = await h
      .client(KEYS.aPersonas)
      .createDigitalHuman({ name: "Bad", appearance: AVA.id, analysis: { success_criteria: many } });
    await expectApiError(res, 422, "validation_failed");
    const long = await h
      .client(KEYS.aPersonas)
      .createDigitalHuman({ name: "Bad", appearance: AVA.id, analysis: { success_criteria: ["x".repeat(301)] } });
    await expectApiError(long, 422, "validation_failed");
  });
});

describe("a session's analysis", () => {
  it("is not_requested without analysis settings, and pending until the session ended and its transcript is complete", async () => {
    const plain = expectData(await h.client(KEYS.aPersonas).createDigitalHuman({ name: "Plain", appearance: AVA.id }), 201);
    const none = await sessionOf(plain.id);
    expect(await analysisOf(none.id)).toEqual({
      session_id: none.id,
      status: "not_requested",
      summary: null,
      data: null,
      success_criteria: [],
      error: null,
      completed_at: null,
    });
    const session = await sessionOf((await analyst()).id);
    expect((await analysisOf(session.id)).status).toBe("pending");
  });

  it("asks the LLM once the transcript is complete, with the schema as a strict structured output, and keeps what it answered", async () => {
    const lena = await analyst();
    const session = await sessionOf(lena.id);
    await converse(session, LEAD_TALK);
    const shown = await settledAnalysis(session.id);
    expect(shown).toMatchObject({
      status: "complete",
      summary: LEAD_ANSWER.summary,
      data: LEAD_ANSWER.data,
      success_criteria: [
        { criterion: CRITERIA[0], result: "met", reason: "She gave her e-mail address." },
        { criterion: CRITERIA[1], result: "not_met", reason: "She asked to be called back." },
      ],
      error: null,
    });
    expect(Date.parse(shown.completed_at as string)).toBeGreaterThan(0);
    const [asked, ...more] = requestsFor("ada@example.com, and please call me back");
    expect(more).toHaveLength(0);
    expect(asked?.model).toBe("analysis-model");
    expect(asked?.apiKey).toBe("sk-analysis");
    expect(asked?.responseFormat).toMatchObject({ type: "json_schema", json_schema: { strict: true } });
    expect((askedSchema(asked?.responseFormat) as { properties: { data: unknown } }).properties.data).toEqual(LEAD_SCHEMA);
    // One event, its data the analysis as getSessionAnalysis answers it.
    const [event] = await until(() => (readyFor(session.id).length > 0 ? readyFor(session.id) : undefined));
    expect(event?.body).toMatchObject({ type: "session.analysis_ready", mode: "live", data: shown });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(readyFor(session.id)).toHaveLength(1);
  });

  it("keeps an answer's NUL and lone surrogates out of its data (U+FFFD), so the session still reaches the history", async () => {
    scripts = [{ json: { ...LEAD_ANSWER, data: { ...LEAD_ANSWER.data, name: "Ada\u0000 \ud800Lovelace" } } }];
    const session = await sessionOf((await analyst()).id);
    await converse(session, LEAD_TALK);
    const shown = await settledAnalysis(session.id);
    expect(shown).toMatchObject({ status: "complete", data: { ...LEAD_ANSWER.data, name: "Ada\uFFFD \uFFFDLovelace" } });
    if (STORE === "memory") return;
    const db = new pg.Client({ connectionString: h.databaseUrl });
    db.on("error", () => undefined);
    await db.connect();
    try {
      const kept = await until(
        async () => {
          const { rows } = await db.query<{ record: { analysis?: { status: string; data?: unknown } } }>(
            "SELECT record FROM sessions WHERE id = $1",
            [session.id],
          );
          return rows[0]?.record.analysis?.status === "complete" ? rows[0].record.analysis : undefined;
        },
        { what: "the analysed session in the history", timeoutMs: 15_000 },
      );
      expect(kept.data).toEqual(shown.data);
    } finally {
      await db.end();
    }
  });

  it("asks no LLM when the participant said nothing: complete, nothing made up, each criterion unknown", async () => {
    const session = await sessionOf((await analyst()).id);
    const before = llm.requests.length;
    await converse(session, [["Hello, how can I help?", "digital_human"]]);
    const shown = await settledAnalysis(session.id);
    expect(shown).toMatchObject({ status: "complete", summary: null, data: null });
    expect(shown.success_criteria.map((c) => c.result)).toEqual(["unknown", "unknown"]);
    expect(llm.requests.length).toBe(before);
  });

  it("asks once more with the problem when the answer does not match the schema, and fails invalid_answer when that one does not either", async () => {
    const lena = await analyst();
    const repaired = await sessionOf(lena.id);
    scripts = [{ json: { ...LEAD_ANSWER, data: { ...LEAD_ANSWER.data, seats: "forty" } } }, { json: LEAD_ANSWER }];
    await converse(repaired, [["Repair me: Ada, 40 seats.", "participant"]]);
    expect((await settledAnalysis(repaired.id)).data).toEqual(LEAD_ANSWER.data);
    const asks = requestsFor("Repair me: Ada, 40 seats.");
    expect(asks).toHaveLength(2);
    expect(messageText(asks[1]?.messages.at(-1) as never)).toMatch(/seats/);

    const broken = await sessionOf(lena.id);
    scripts = [{ tokens: ["not", " json"] }];
    await converse(broken, [["Broken: Ada, 40 seats.", "participant"]]);
    const failed = await settledAnalysis(broken.id);
    expect(failed).toMatchObject({ status: "failed", data: null, error: { code: "invalid_answer" } });
    expect(requestsFor("Broken: Ada, 40 seats.")).toHaveLength(2);
    await until(() => (readyFor(broken.id).length > 0 ? true : undefined));
  });

  it("tries again while the LLM fails, with growing waits, and fails llm_refused at once when it refuses the request", async () => {
    const lena = await analyst();
    const flaky = await sessionOf(lena.id);
    scripts = [{ status: 503 }, { status: 429 }, { json: LEAD_ANSWER }];
    await converse(flaky, [["Flaky: Ada, 40 seats.", "participant"]]);
    expect((await settledAnalysis(flaky.id)).status).toBe("complete");
    const times = requestsFor("Flaky: Ada, 40 seats.").map((r) => r.at);
    expect(times).toHaveLength(3);
    // ANALYSIS_RETRY_S=1: a second, then three.
    expect((times[1] as number) - (times[0] as number)).toBeGreaterThanOrEqual(900);
    expect((times[2] as number) - (times[1] as number)).toBeGreaterThanOrEqual(2_700);

    const refused = await sessionOf(lena.id);
    scripts = [{ status: 400, message: "The model does not take json_schema." }];
    await converse(refused, [["Refused: Ada.", "participant"]]);
    expect(await settledAnalysis(refused.id)).toMatchObject({ status: "failed", error: { code: "llm_refused" } });
    expect(requestsFor("Refused: Ada.")).toHaveLength(1);
  }, 30_000);

  it("is deleted with its transcript, complete or not, and sends no event once deleted", async () => {
    const lena = await analyst();
    const done = await sessionOf(lena.id);
    await converse(done, LEAD_TALK);
    expect((await settledAnalysis(done.id)).status).toBe("complete");
    expectData(await h.client().deleteSessionTranscript(done.id));
    expect(await analysisOf(done.id)).toMatchObject({ status: "deleted", summary: null, data: null, success_criteria: [], error: null });

    const early = await sessionOf(lena.id);
    expect((await postSegments(h, early, { segments: [segment("a", 0, "Early: Ada.", "participant")] })).status).toBe(200);
    expectData(await h.client().deleteSessionTranscript(early.id));
    await h.client().endSession(early.id);
    expect((await analysisOf(early.id)).status).toBe("deleted");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(readyFor(early.id)).toHaveLength(0);
    expect(requestsFor("Early: Ada.")).toHaveLength(0);
  });

  it("is another account's 404, and needs sessions:read", async () => {
    const session = await sessionOf((await analyst()).id);
    await expectApiError(await h.client(KEYS.b).getSessionAnalysis(session.id), 404, "not_found");
    await expectApiError(await h.client(KEYS.aWrite).getSessionAnalysis(session.id), 403, "forbidden");
    expect((await analysisOf(session.id, KEYS.aRead)).status).toBe("pending");
  });
});

describe("setTestSessionAnalysis", () => {
  const testSession = async (analysis: unknown = { data_schema: LEAD_SCHEMA, success_criteria: CRITERIA }) => {
    const lena = await analyst(analysis, KEYS.aTest);
    return sessionOf(lena.id, KEYS.aTest);
  };
  const outcome = {
    status: "complete" as const,
    summary: LEAD_ANSWER.summary,
    data: LEAD_ANSWER.data,
    success_criteria: [
      { criterion: CRITERIA[0] as string, result: "met" as const, reason: "She gave her e-mail address." },
      { criterion: CRITERIA[1] as string, result: "not_met" as const, reason: "She asked to be called back." },
    ],
  };

  it("sets an ended test session's outcome, once, with its event; refuses it before the end and after it is settled", async () => {
    const session = await testSession();
    const client = h.client(KEYS.aTest);
    await expectApiError(await client.setTestSessionAnalysis(session.id, outcome), 409, "session_not_ended");
    await client.endSession(session.id);
    const set = expectData(await client.setTestSessionAnalysis(session.id, outcome));
    expect(set).toMatchObject({ status: "complete", data: LEAD_ANSWER.data, success_criteria: outcome.success_criteria });
    expect(expectData(await client.getSessionAnalysis(session.id))).toEqual(set);
    await expectApiError(await client.setTestSessionAnalysis(session.id, outcome), 409, "analysis_settled");
    const failed = await testSession();
    await client.endSession(failed.id);
    const error = { code: "llm_unavailable" as const, message: "The LLM did not answer in time on 5 tries." };
    expect(expectData(await client.setTestSessionAnalysis(failed.id, { status: "failed", error }))).toMatchObject({
      status: "failed",
      error,
    });
  });

  it("holds the outcome to the settings: data matching the schema, each criterion once, only the parts asked", async () => {
    const session = await testSession();
    const client = h.client(KEYS.aTest);
    await client.endSession(session.id);
    const refuse = async (body: unknown, path: string) => {
      const error = await expectApiError(await client.setTestSessionAnalysis(session.id, body as never), 422, "validation_failed");
      expect((error.detail as { path: string }[]).map((d) => d.path)).toContain(path);
    };
    await refuse({ ...outcome, data: { ...outcome.data, seats: "forty" } }, "data.seats");
    await refuse({ ...outcome, success_criteria: outcome.success_criteria.slice(0, 1) }, "success_criteria");
    await refuse({ ...outcome, success_criteria: [{ criterion: "Another.", result: "met", reason: "-" }] }, "success_criteria.0.criterion");
    await refuse({ ...outcome, summary: null }, "summary");
    await refuse({ status: "failed" }, "error");
    await refuse({ ...outcome, error: { code: "llm_refused", message: "-" } }, "error");
    expect((await analysisOf(session.id, KEYS.aTest)).status).not.toBe("failed");
  });

  it("checks data against a backtracking pattern in linear time, while the service goes on answering", async () => {
    const schema = {
      type: "object",
      additionalProperties: false,
      required: ["code"],
      properties: { code: { type: ["string", "null"], pattern: "^(a+)+$" } },
    };
    const session = await testSession({ summary: false, data_schema: schema });
    const client = h.client(KEYS.aTest);
    await client.endSession(session.id);
    // A backtracking engine takes about 2^n steps on n a's and a "!": at 40, hours of the one thread every account shares.
    const health = (async () => {
      const started = performance.now();
      await fetch(`${h.url}/healthz`);
      return performance.now() - started;
    })();
    const res = await client.setTestSessionAnalysis(session.id, { status: "complete", data: { code: `${"a".repeat(40)}!` } });
    const error = await expectApiError(res, 422, "validation_failed");
    expect(error.detail).toEqual([{ location: "body", path: "data.code", message: 'must match pattern "^(a+)+$"' }]);
    console.log(`/healthz answered in ${(await health).toFixed(1)} ms beside the check`);
    const set = expectData(await client.setTestSessionAnalysis(session.id, { status: "complete", data: { code: "a".repeat(40) } }));
    expect(set.data).toEqual({ code: "a".repeat(40) });
  });

  it("is for test keys, and for sessions whose digital human asks for an analysis", async () => {
    const live = await sessionOf((await analyst()).id);
    await expectApiError(await h.client().setTestSessionAnalysis(live.id, outcome), 403, "test_key_required");
    const plain = expectData(await h.client(KEYS.aTest).createDigitalHuman({ name: "Plain", appearance: AVA.id }), 201);
    const none = await sessionOf(plain.id, KEYS.aTest);
    await h.client(KEYS.aTest).endSession(none.id);
    await expectApiError(await h.client(KEYS.aTest).setTestSessionAnalysis(none.id, outcome), 409, "analysis_not_requested");
  });
});
