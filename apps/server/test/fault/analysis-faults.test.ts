/**
 * A session's analysis when what it depends on fails, against the built server as a process (the issue's
 * fault list): the LLM down (nothing listening), hanging past ANALYSIS_TIMEOUT_S, answering JSON that
 * does not match the schema, the replica that claimed the analysis SIGKILLed mid-attempt, and the
 * history database stopped while the result is written. Each analysis ends `complete` or `failed` with
 * a code and a reason, and its `session.analysis_ready` event reaches the customer's endpoint once: the
 * receiver is read again a while after the first delivery, when a second one would have come.
 */
import { performance } from "node:perf_hooks";
import {
  ChatCompletionsServer,
  type ChatRequest,
  type ChatScript,
  createDatabase,
  DIGITAL_HUMANS,
  digitalHumanToken,
  FakeLiveKit,
  freePort,
  messageText,
  type RedisServer,
  startPostgres,
  startRedis,
  type TestDatabase,
  until,
  WebhookReceiver,
} from "@dhs/testkit";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { keyspace } from "../../src/store/redis/keys.js";
import { migrate, migratedDatabase } from "../support/database.js";
import { segment } from "../support/digital-human-posts.js";
import { killServerProcesses, type ServerProcess, startServerProcess } from "../support/server-process.js";
import { DEV_KEY, ms, report, sleep } from "./support.js";

// The configuration's minimums: every wait below is as short as an operator could make it.
const TIMEOUT_S = 5;
const RETRY_S = 1;
// compose-analysis.ts: the answer and one repair, each within the timeout, and a 30 s margin.
const LEASE_MS = 2 * TIMEOUT_S * 1000 + 30_000;
// A second event would be a second settle's: its delivery comes within the sweeps that sent the first.
const SECOND_EVENT_WOULD_SHOW_MS = 3_000;
// Sweeps, claims and the sampling of Redis between a retry's due time and the next request.
const SLACK_MS = 1_500;

const AVA = DIGITAL_HUMANS[0];
const SETTINGS = {
  data_schema: {
    type: "object",
    additionalProperties: false,
    required: ["seats"],
    properties: { seats: { type: ["integer", "null"] } },
  },
  success_criteria: ["The participant said how many seats."],
};
const ANSWER = {
  summary: "Ada asked for a quote for 40 seats.",
  data: { seats: 40 },
  success_criteria: [{ index: 0, result: "met", reason: "She asked for 40 seats." }],
};

let redis: RedisServer;
let livekit: FakeLiveKit;
const receiver = new WebhookReceiver();
const llm = new ChatCompletionsServer();
/** What the LLM stand-in answers a test's requests (those whose transcript holds its marker), by their rank. */
const scripts = new Map<string, (nth: number) => ChatScript>();

beforeAll(async () => {
  [redis, livekit] = await Promise.all([startRedis(), new FakeLiveKit().start(), receiver.start(), llm.start()]);
});
afterEach(() => {
  killServerProcesses();
});
afterAll(async () => {
  await Promise.all([redis?.stop(), livekit?.stop(), receiver.stop(), llm.stop()]);
  await Promise.all([...databases.values()].map(async (database) => (await database).drop()));
});

const asks = (request: ChatRequest, marker: string) => request.messages.some((m) => messageText(m).includes(marker));
const requestsFor = (marker: string) => llm.requests.filter((r) => asks(r, marker));
llm.script = (request) => {
  for (const [marker, script] of scripts) if (asks(request, marker)) return script(requestsFor(marker).length - 1);
  return { json: ANSWER };
};

/** Each prefix's database (a deployment's: its replicas share it), made on the first replica's start. */
const databases = new Map<string, Promise<TestDatabase>>();

/**
 * A replica on the test's Redis under `prefix`, and that prefix's database unless `env` names one, asking
 * its analyses of the stand-in unless `env` says otherwise. A database per prefix, not per file: the
 * endpoints an earlier test made would be copied into the next prefix's Redis and take its events too.
 */
async function replica(prefix: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  if (!databases.has(prefix)) databases.set(prefix, migratedDatabase());
  const database = env.DATABASE_URL ?? (await databases.get(prefix))?.url;
  return startServerProcess({
    REDIS_URL: redis.url,
    ...(database ? { DATABASE_URL: database } : {}),
    REDIS_KEY_PREFIX: prefix,
    LIVEKIT_API_URL: livekit.url,
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    SWEEP_INTERVAL_MS: "100",
    RATE_LIMIT_PER_SECOND: "100000",
    RATE_LIMIT_BURST: "100000",
    OPENAI_BASE_URL: llm.baseUrl,
    ANALYSIS_TIMEOUT_S: String(TIMEOUT_S),
    ANALYSIS_RETRY_S: String(RETRY_S),
    ...env,
  });
}

async function call<T>(url: string, method: string, path: string, expected: number, body?: unknown, auth = `Bearer ${DEV_KEY}`) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      Authorization: auth,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      // The creates require one; the other posts with a key take it as well.
      ...(method === "POST" && auth.includes(DEV_KEY) ? { "Idempotency-Key": crypto.randomUUID() } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status !== expected) throw new Error(`${method} ${path}: ${res.status}, not ${expected}: ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** The deployment's endpoint for analysis events (at the receiver) and a digital human asking for an analysis. */
async function analyst(url: string): Promise<string> {
  const endpoint = await call<{ secret: string }>(url, "POST", "/v1/webhook-endpoints", 201, {
    url: receiver.url,
    event_types: ["session.analysis_ready"],
  });
  receiver.secrets.push(endpoint.secret);
  const made = await call<{ id: string }>(url, "POST", "/v1/digital-humans", 201, { name: "Lena", appearance: AVA.id, analysis: SETTINGS });
  return made.id;
}

/**
 * A session of `digitalHumanId` in which the participant said `marker`, ended, its transcript made
 * complete by the worker's `final`: its analysis is due at once (`beforeFinal` runs just before that).
 */
async function endedSession(
  url: string,
  digitalHumanId: string,
  marker: string,
  beforeFinal?: (sessionId: string) => void,
): Promise<string> {
  const session = await call<{ id: string; room_name: string }>(url, "POST", "/v1/sessions", 201, {
    digital_human_id: digitalHumanId,
    participant_identity: "ada",
  });
  const worker = `Bearer ${await digitalHumanToken(session.room_name)}`;
  const segments = [segment("s0", 0, "How many seats would you like?"), segment("s1", 2, `${marker}: 40 seats, please.`, "participant")];
  await call(url, "POST", `/v1/sessions/${session.id}/transcript/segments`, 200, { segments }, worker);
  await call(url, "POST", `/v1/sessions/${session.id}/end`, 200);
  beforeFinal?.(session.id);
  await call(url, "POST", `/v1/sessions/${session.id}/transcript/segments`, 200, { segments: [], final: true }, worker);
  return session.id;
}

type Analysis = {
  status: string;
  summary: string | null;
  data: unknown;
  error: { code: string; message: string } | null;
  completed_at: string;
};

function settledAnalysis(url: string, sessionId: string, timeoutMs: number): Promise<Analysis> {
  return until(
    async () => {
      const shown = await call<Analysis>(url, "GET", `/v1/sessions/${sessionId}/analysis`, 200);
      return shown.status === "pending" ? undefined : shown;
    },
    { timeoutMs, everyMs: 100, what: `the analysis of ${sessionId} settled` },
  );
}

const readyFor = (sessionId: string) => receiver.of("session.analysis_ready").filter((r) => r.body.data?.session_id === sessionId);

/** The one event, verified, its data the analysis as shown; checked again once a second would have come. */
async function expectOneEvent(sessionId: string, shown: Analysis): Promise<number> {
  const [first] = await until(() => readyFor(sessionId).length > 0 && readyFor(sessionId), { timeoutMs: 10_000, what: "the event" });
  await sleep(SECOND_EVENT_WOULD_SHOW_MS);
  expect(readyFor(sessionId)).toHaveLength(1);
  expect(first?.verifiedWith).toBeGreaterThanOrEqual(0);
  expect(first?.body).toMatchObject({ type: "session.analysis_ready", data: shown });
  return first?.at as number;
}

/** When each attempt claimed the analysis (its count of attempts went up), read from the session's record in Redis. */
function watchAttempts(prefix: string, sessionId: string) {
  const client = new Redis(redis.url);
  const key = keyspace(prefix).session(sessionId);
  const claims: number[] = [];
  let watching = true;
  const look = async () => {
    const stored = await client.get(key);
    const attempts = stored ? ((JSON.parse(stored) as { analysis?: { attempts: number } }).analysis?.attempts ?? 0) : 0;
    while (claims.length < attempts) claims.push(Date.now());
  };
  const loop = (async () => {
    while (watching) {
      await look();
      await sleep(20);
    }
  })();
  return {
    claims,
    stop: async () => {
      watching = false;
      await loop;
      // The last attempt can claim and fail between two looks (unreachable fails in a millisecond) and the
      // caller stop as soon as it reads the failure: one more look counts it (CI saw 4 of 5 without it).
      await look();
      client.disconnect();
    },
  };
}

const gaps = (times: readonly number[]) => times.slice(1).map((t, i) => t - (times[i] as number));
/** The waits after failed attempts 1, 2, ...: ANALYSIS_RETRY_S, then three times longer each. */
const retryWaitMs = (failed: number) => RETRY_S * 1000 * 3 ** (failed - 1);

describe("the LLM down (nothing listening at OPENAI_BASE_URL)", () => {
  it("is tried 5 times with waits growing threefold, then the analysis fails llm_unavailable saying why, with one event", async () => {
    const proc = await replica("an-down", { OPENAI_BASE_URL: `http://127.0.0.1:${await freePort()}/v1` });
    const url = (await proc.listening).url;
    const digitalHuman = await analyst(url);
    const started = performance.now();
    let attempts: ReturnType<typeof watchAttempts> | undefined;
    const sessionId = await endedSession(url, digitalHuman, "Down", (id) => {
      attempts = watchAttempts("an-down", id);
    });
    const shown = await settledAnalysis(url, sessionId, 70_000);
    const settledMs = performance.now() - started;
    await attempts?.stop();
    const claims = attempts?.claims ?? [];

    expect(shown.status).toBe("failed");
    expect(shown.error?.code).toBe("llm_unavailable");
    expect(shown.error?.message).toMatch(/failed on 5 tries; the last: unreachable/);
    const waits = gaps(claims);
    report("analysis: the LLM down, ANALYSIS_RETRY_S=1", {
      attempts: claims.length,
      "waits between attempts (ms)": waits.map(ms).join(", "),
      "ended to failed (ms)": settledMs,
      error: shown.error?.message ?? "",
    });
    expect(claims).toHaveLength(5);
    for (const [i, wait] of waits.entries()) {
      expect(wait).toBeGreaterThanOrEqual(retryWaitMs(i + 1) - 100);
      expect(wait).toBeLessThan(retryWaitMs(i + 1) + SLACK_MS);
    }
    // The operator's log says what the customer's code does not: the LLM's own error.
    expect(proc.output().stdout).toMatch(/"code":"llm_unavailable".*"msg":"analysis failed"/);
    await expectOneEvent(sessionId, shown);
  }, 100_000);
});

describe("the LLM hanging (accepting the request, never answering)", () => {
  it("has each attempt given up at ANALYSIS_TIMEOUT_S and tried again, and completes once the LLM answers, with one event", async () => {
    // Two hung attempts, then answers: the third attempt completes.
    scripts.set("Hanging", (nth) => (nth < 2 ? "hang" : { json: ANSWER }));
    const proc = await replica("an-hang");
    const url = (await proc.listening).url;
    const sessionId = await endedSession(url, await analyst(url), "Hanging");
    const shown = await settledAnalysis(url, sessionId, 40_000);

    expect(shown).toMatchObject({ status: "complete", summary: ANSWER.summary, data: ANSWER.data, error: null });
    const asked = requestsFor("Hanging").map((r) => r.at);
    const waits = gaps(asked);
    report("analysis: the LLM hanging twice, ANALYSIS_TIMEOUT_S=5, ANALYSIS_RETRY_S=1", {
      "requests the LLM saw": asked.length,
      "between requests (ms)": waits.map(ms).join(", "),
    });
    expect(asked).toHaveLength(3);
    // Each hung request is given up at the timeout (not before, not long after), then the retry's wait.
    for (const [i, wait] of waits.entries()) {
      // The timeout runs from the client's send, a little before the stand-in sees the request.
      expect(wait).toBeGreaterThanOrEqual(TIMEOUT_S * 1000 + retryWaitMs(i + 1) - 200);
      expect(wait).toBeLessThan(TIMEOUT_S * 1000 + retryWaitMs(i + 1) + SLACK_MS);
    }
    await expectOneEvent(sessionId, shown);
  }, 60_000);
});

describe("the LLM answering JSON that does not match the schema", () => {
  it("is asked once more naming the problem: complete when the repair matches, failed invalid_answer when it does not, one event each", async () => {
    scripts.set("Repairable", (nth) => (nth === 0 ? { json: { ...ANSWER, data: { seats: "forty" } } } : { json: ANSWER }));
    scripts.set("Garbled", () => ({ tokens: ["not", " json"] }));
    const proc = await replica("an-invalid");
    const url = (await proc.listening).url;
    const digitalHuman = await analyst(url);
    const [repairable, garbled] = await Promise.all([
      endedSession(url, digitalHuman, "Repairable"),
      endedSession(url, digitalHuman, "Garbled"),
    ]);
    const [repaired, failed] = await Promise.all([settledAnalysis(url, repairable, 15_000), settledAnalysis(url, garbled, 15_000)]);

    expect(repaired).toMatchObject({ status: "complete", data: ANSWER.data, error: null });
    const [, repair] = requestsFor("Repairable");
    expect(requestsFor("Repairable")).toHaveLength(2);
    expect(messageText(repair?.messages.at(-1) as never)).toMatch(/cannot be used: .*seats/);
    expect(failed).toMatchObject({ status: "failed", data: null, error: { code: "invalid_answer" } });
    expect(failed.error?.message).toMatch(/did not match the schema, even repaired once/);
    // Not retried: the same model asked the same way would answer alike.
    expect(requestsFor("Garbled")).toHaveLength(2);
    await Promise.all([expectOneEvent(repairable, repaired), expectOneEvent(garbled, failed)]);
  }, 40_000);
});

/**
 * Two replicas on one Redis, an ended session whose analysis's first request the stand-in holds (the
 * takeover's is answered), and which replica holds it: each sends its own key, so the requests say.
 */
async function heldByOneOfTwo(marker: string, keyPrefix: string) {
  scripts.set(marker, (nth) => (nth === 0 ? "hang" : { json: ANSWER }));
  const replicas = new Map([
    ["replica-a", await replica(keyPrefix, { OPENAI_API_KEY: "replica-a" })],
    ["replica-b", await replica(keyPrefix, { OPENAI_API_KEY: "replica-b" })],
  ]);
  const urls = new Map(await Promise.all([...replicas].map(async ([key, proc]) => [key, (await proc.listening).url] as const)));
  const firstUrl = urls.get("replica-a") as string;
  const sessionId = await endedSession(firstUrl, await analyst(firstUrl), marker);
  const [held] = await until(() => requestsFor(marker).length > 0 && requestsFor(marker), { what: "the first attempt" });
  const holder = held?.apiKey as string;
  const survivor = holder === "replica-a" ? "replica-b" : "replica-a";
  return { sessionId, held, holder: replicas.get(holder) as ServerProcess, survivor, survivorUrl: urls.get(survivor) as string };
}

describe("two replicas, the one whose attempt is running SIGKILLed", () => {
  it("leaves the analysis to the other at the lease's end, which completes it, with one event", async () => {
    // The first request is held, so the kill lands mid-attempt.
    const { sessionId, held, holder, survivor, survivorUrl } = await heldByOneOfTwo("Takeover", "an-kill");
    holder.child.kill("SIGKILL");
    const killedAt = Date.now();
    const [, signal] = await holder.exited;
    expect(signal).toBe("SIGKILL");

    const shown = await settledAnalysis(survivorUrl, sessionId, LEASE_MS + 20_000);
    expect(shown).toMatchObject({ status: "complete", summary: ANSWER.summary, data: ANSWER.data, error: null });
    const [, takeover, ...more] = requestsFor("Takeover");
    expect(more).toHaveLength(0);
    expect(takeover?.apiKey).toBe(survivor);
    const deliveredAt = await expectOneEvent(sessionId, shown);
    report("analysis: the replica running it SIGKILLed mid-attempt (2 replicas, ANALYSIS_TIMEOUT_S=5: a 40 s lease)", {
      "held request to the kill (ms)": killedAt - (held?.at as number),
      "kill to the survivor's request (ms)": (takeover?.at as number) - killedAt,
      "kill to complete (ms)": Date.parse(shown.completed_at) - killedAt,
      "kill to the event delivered (ms)": deliveredAt - killedAt,
    });
    // Not before the lease's end: the dead replica's attempt might have been alive.
    // (The lease ran from the claim, a little before the held request reached the stand-in.)
    expect((takeover?.at as number) - (held?.at as number)).toBeGreaterThanOrEqual(LEASE_MS - 500);
    expect((takeover?.at as number) - (held?.at as number)).toBeLessThan(LEASE_MS + SLACK_MS);
  }, 90_000);
});

describe("two replicas, the one whose attempt is running SIGTERMed (a deploy)", () => {
  it("gives the analysis back as it stops: the other takes it over at once, not at the lease's end, with one event", async () => {
    const { sessionId, holder, survivor, survivorUrl } = await heldByOneOfTwo("Handover", "an-term");
    holder.child.kill("SIGTERM");
    const stoppedAt = Date.now();
    const [code] = await holder.exited;
    expect(code).toBe(0);

    const shown = await settledAnalysis(survivorUrl, sessionId, 20_000);
    expect(shown).toMatchObject({ status: "complete", summary: ANSWER.summary, error: null });
    const [, takeover, ...more] = requestsFor("Handover");
    expect(more).toHaveLength(0);
    expect(takeover?.apiKey).toBe(survivor);
    await expectOneEvent(sessionId, shown);
    report("analysis: the replica running it SIGTERMed mid-attempt (2 replicas, a 40 s lease)", {
      "SIGTERM to the survivor's request (ms)": (takeover?.at as number) - stoppedAt,
      "SIGTERM to complete (ms)": Date.parse(shown.completed_at) - stoppedAt,
    });
    // Well before the lease's end: the stopping replica gave it back.
    expect((takeover?.at as number) - stoppedAt).toBeLessThan(LEASE_MS / 2);
  }, 60_000);
});

describe("PostgreSQL down while the analysis's result is written", () => {
  it("settles in Redis with its one event, and the history's row holds the result once PostgreSQL is back", async () => {
    const postgres = await startPostgres();
    try {
      const database = await createDatabase({ adminUrl: postgres.url, prefix: "analysis" });
      await migrate(database.url);
      // The answer comes this long after the request: time to see the session in the history, then stop it.
      const answerAfterMs = 5_000;
      scripts.set("Outage", () => ({ json: ANSWER, firstTokenMs: answerAfterMs }));
      const proc = await replica("an-pg", { DATABASE_URL: database.url, ANALYSIS_TIMEOUT_S: "10" });
      const { url, metrics_url: metricsUrl } = await proc.listening;
      const sessionId = await endedSession(url, await analyst(url), "Outage");
      const [asked] = await until(() => requestsFor("Outage").length > 0 && requestsFor("Outage"), { what: "the request" });

      const rowOf = async (): Promise<{ analysis: Analysis & { attempts: number } } | undefined> => {
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        try {
          const { rows } = await client.query<{ record: { analysis: Analysis & { attempts: number } } }>(
            "SELECT record FROM sessions WHERE id = $1",
            [sessionId],
          );
          return rows[0]?.record;
        } finally {
          await client.end();
        }
      };
      // The ended session is in the history, its analysis pending: the result is a write of it again.
      expect((await until(rowOf, { what: "the ended session in the history" })).analysis.status).toBe("pending");
      await postgres.stop("immediate");
      const stoppedAfterMs = Date.now() - (asked?.at as number);
      expect(stoppedAfterMs).toBeLessThan(answerAfterMs);

      const shown = await settledAnalysis(url, sessionId, 15_000);
      expect(shown).toMatchObject({ status: "complete", summary: ANSWER.summary, data: ANSWER.data, error: null });
      await expectOneEvent(sessionId, shown);
      const queued = async () => Number(/^dhs_history_queue_sessions (\S+)$/m.exec(await (await fetch(metricsUrl as string)).text())?.[1]);
      const queuedWhileDown = await queued();
      expect(queuedWhileDown).toBeGreaterThanOrEqual(1);

      await postgres.start();
      const backAt = performance.now();
      const row = await until(
        async () => {
          const found = await rowOf();
          return found?.analysis.status === "complete" && found;
        },
        { timeoutMs: 20_000, what: "the analysis in the history" },
      );
      report("analysis: PostgreSQL stopped while the analysis settled", {
        "request to PostgreSQL stopped (ms; answered at 5000)": stoppedAfterMs,
        "sessions queued for the history while it was down": queuedWhileDown,
        "back to the analysis in the history (ms)": performance.now() - backAt,
      });
      expect(row.analysis).toMatchObject({
        status: "complete",
        summary: ANSWER.summary,
        data: ANSWER.data,
        completed_at: shown.completed_at,
      });
      expect(row.analysis.attempts).toBe(1);
      // Written again, not settled again.
      await sleep(1_000);
      expect(readyFor(sessionId)).toHaveLength(1);
    } finally {
      await postgres.destroy();
    }
  }, 90_000);
});
