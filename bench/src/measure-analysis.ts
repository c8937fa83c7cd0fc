/**
 * What a session's analysis costs the service (issue 52), the LLM's own time excluded: the LLM is the
 * testkit's Chat Completions server in this process, answering a valid structured output at once. Two
 * rounds of the same sessions (a 12-line transcript posted, the session ended, then `final`): one of a
 * digital human with an analysis (a summary, a 3-field data_schema, 2 criteria), one without; each
 * round's CPU runs from the `final`s until every session is settled (its analysis complete, or its
 * transcript complete), less what the idle service spends over as long. The difference per session is
 * the analysis: its timer, claim, transcript read, request, answer check, settle and event. A third
 * round, of a digital human that also remembers its participants (each session's a participant of its
 * own, named), costs beyond the analysis round what a memory update does: the kept facts read, the
 * digital human checked, the new list written by compare-and-set. That is a few hundred µs against an
 * idle service's few ms a second, so the two kinds of round alternate, three pairs, and the pairs' mean
 * is the figure (each pair's difference printed beside it, to show the noise).
 */
import { ParticipantMemories } from "@dhs/server/participant-memories";
import { PostgresParticipantMemories } from "@dhs/server/postgres-participant-memories";
import { digitalHumanToken, type WebhookReceiver } from "@dhs/testkit";
import pg from "pg";
import { cpuUsOf, perRequest, type RedisFigures, redisSnapshot, redisSpent } from "./figures.js";
import { inParallel } from "./in-parallel.js";
import { idleCpu } from "./measure-livekit-events.js";
import { LIVEKIT, TOOLS } from "./settings.js";
import type { Stack } from "./stack.js";

export interface AnalysisFigures {
  sessions: number;
  cpuUsPerAnalysis: number;
  redis: RedisFigures;
  /** What memory adds to an analysis (a memory update), beyond the analysis round: the mean of the pairs, and each pair's. */
  cpuUsPerMemoryUpdate: number;
  memoryPairsUs: number[];
  /** The service's own code of a memory update run alone, many times: first writes, then replacements. */
  memoryUpdate: { updates: number; createUs: number; replaceUs: number; commands: number };
  memoryRedis: RedisFigures;
  /** From the last `final` to the last analysis complete, for the round. */
  drainMs: number;
  idleUsPerS: number;
}

const SESSIONS = Number(process.env.BENCH_ANALYSES ?? 200);
const PAIRS = 3;
const JOB = "agent-ava";
const LEAD = {
  type: "object",
  additionalProperties: false,
  required: ["name", "email", "seats"],
  properties: { name: { type: ["string", "null"] }, email: { type: ["string", "null"] }, seats: { type: ["integer", "null"] } },
};
const ANSWER = {
  summary: "Ada asked for a quote for 40 seats and left her e-mail address; she wants a call back.",
  data: { name: "Ada Lovelace", email: "ada@example.com", seats: 40 },
  success_criteria: [
    { index: 0, result: "met", reason: "She gave her e-mail address." },
    { index: 1, result: "not_met", reason: "She asked for a call back instead." },
  ],
};

type Prepared = { id: string; room_name: string; token: string };
type Round = { cpuUs: number; seconds: number; drainMs: number; redis: ReturnType<typeof redisSpent> };

export async function measureAnalysis(stack: Stack, quietReceiver: WebhookReceiver): Promise<AnalysisFigures> {
  // A digital human with memory is asked for memory_facts too: its answer has them, the others' not.
  stack.llm.script = (request) =>
    JSON.stringify(request.body.response_format).includes("memory_facts")
      ? { json: { ...ANSWER, memory_facts: ["Name is Ada Lovelace", "Wants a quote for 40 seats", "E-mail is ada@example.com"] } }
      : { json: ANSWER };
  const api = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(`${stack.serverUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${TOOLS.key}`,
        "content-type": "application/json",
        ...(method === "POST" ? { "idempotency-key": `bench-analysis-${Math.random()}` } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
  const analyst = await api("POST", "/v1/digital-humans", {
    name: "Bench analyst",
    analysis: { summary: true, data_schema: LEAD, success_criteria: ["The participant left a way to contact them.", "A demo was booked."] },
  });
  const rememberer = await api("POST", "/v1/digital-humans", {
    name: "Bench rememberer",
    analysis: { summary: true, data_schema: LEAD, success_criteria: ["The participant left a way to contact them.", "A demo was booked."] },
    memory: { enabled: true },
  });
  const plain = await api("POST", "/v1/digital-humans", { name: "Bench plain" });

  const post = (s: Prepared, body: unknown) =>
    fetch(`${stack.serverUrl}/v1/sessions/${s.id}/transcript/segments`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }).then(async (res) => {
      if (res.status !== 200) throw new Error(`segments answered ${res.status}: ${await res.text()}`);
    });
  const prepare = async (digitalHumanId: string, batch: number): Promise<Prepared[]> =>
    Promise.all(
      Array.from({ length: SESSIONS }, async (_, i) => {
        const made = await api("POST", "/v1/sessions", {
          digital_human_id: digitalHumanId,
          participant_identity: `bench-${digitalHumanId}-${batch}-${i}`,
        });
        const s = {
          id: made.id as string,
          room_name: made.room_name as string,
          token: await digitalHumanToken(made.room_name as string, {
            identity: JOB,
            apiKey: LIVEKIT.key,
            secret: LIVEKIT.secret,
            ttl: 3600,
          }),
        };
        const at = Date.parse("2026-11-28T10:00:00.000Z");
        const segments = Array.from({ length: 12 }, (_, n) => ({
          id: `s${n}`,
          speaker: n % 2 === 0 ? "digital_human" : "participant",
          text:
            n % 2 === 0
              ? "Happy to help with that. Could you tell me a little more?"
              : "I'm Ada Lovelace, I'd like a quote for 40 seats, ada@example.com.",
          started_at: new Date(at + n * 3000).toISOString(),
          ended_at: new Date(at + n * 3000 + 2500).toISOString(),
        }));
        await post(s, { segments });
        await api("POST", `/v1/sessions/${s.id}/end`);
        return s;
      }),
    );
  // Waiting reads nothing of the service: the LLM stand-in counts the analyses asked, and each one is
  // settled a moment after its answer (checked once the CPU is read, so the checks are not counted).
  const round = async (sessions: Prepared[], asked: number) => {
    const redisBefore = await redisSnapshot(stack.nodes);
    const cpuBefore = cpuUsOf(stack.servicePid);
    const started = performance.now();
    await inParallel(sessions.length, (i) => post(sessions[i] as Prepared, { segments: [], final: true }), 16);
    const posted = performance.now();
    while (stack.llm.requests.length < asked) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const ended = performance.now();
    const figures = {
      cpuUs: cpuUsOf(stack.servicePid) - cpuBefore,
      seconds: (ended - started) / 1000,
      drainMs: ended - posted - 500,
      redis: redisSpent(redisBefore, await redisSnapshot(stack.nodes)),
    };
    return figures;
  };

  const pairs: { analysed: Prepared[]; remembered: Prepared[] }[] = [];
  for (let k = 0; k < PAIRS; k++) {
    pairs.push({ analysed: await prepare(analyst.id as string, k), remembered: await prepare(rememberer.id as string, k) });
  }
  const unanalysed = await prepare(plain.id as string, 0);
  const idleUsPerS = await idleCpu(stack, quietReceiver);
  let asked = stack.llm.requests.length;
  const rounds: { analysis: Round; memory: Round }[] = [];
  for (const pair of pairs) {
    asked += SESSIONS;
    const analysis = await round(pair.analysed, asked);
    asked += SESSIONS;
    rounds.push({ analysis, memory: await round(pair.remembered, asked) });
  }
  const without = await round(unanalysed, asked);
  for (const pair of pairs) {
    for (const s of [...pair.analysed, ...pair.remembered]) {
      const shown = await api("GET", `/v1/sessions/${s.id}/analysis`);
      if (shown.status !== "complete") throw new Error(`session ${s.id}'s analysis is ${String(shown.status)}`);
    }
  }
  const kept = await api("GET", `/v1/digital-humans/${rememberer.id}/memories/bench-${rememberer.id}-0-0`);
  if ((kept.facts as string[]).length !== 3) throw new Error(`a participant's memory holds ${JSON.stringify(kept.facts)}`);
  const account = (await api("GET", "/v1/me")).account_id as string;
  const memoryUpdate = await measureMemoryUpdates(stack, account, rememberer.id as string);
  const withAnalysis = rounds[0]?.analysis as Round;
  const withMemory = rounds[0]?.memory as Round;
  const net = (r: Round) => r.cpuUs - idleUsPerS * r.seconds;
  const memoryPairsUs = rounds.map((r) => Math.round((net(r.memory) - net(r.analysis)) / SESSIONS));
  const meanAnalysis = rounds.reduce((sum, r) => sum + net(r.analysis), 0) / rounds.length;
  // Master by master, what the round with analyses cost beyond the one without.
  const beyond = (more: Round, less: Round) =>
    more.redis.map((node, i) => ({
      calls: Math.max(0, node.calls - (less.redis[i]?.calls ?? 0)),
      cpuUs: Math.max(0, node.cpuUs - (less.redis[i]?.cpuUs ?? 0)),
    }));
  return {
    sessions: SESSIONS,
    cpuUsPerAnalysis: Math.round((meanAnalysis - net(without)) / SESSIONS),
    redis: perRequest(beyond(withAnalysis, without), SESSIONS),
    cpuUsPerMemoryUpdate: Math.round(memoryPairsUs.reduce((sum, us) => sum + us, 0) / memoryPairsUs.length),
    memoryPairsUs,
    memoryUpdate,
    memoryRedis: perRequest(beyond(withMemory, withAnalysis), SESSIONS),
    drainMs: Math.round(withAnalysis.drainMs),
    idleUsPerS: Math.round(idleUsPerS),
  };
}

export function analysisSection(figures: AnalysisFigures): string {
  return [
    "## Analysis after the session",
    "",
    `${figures.sessions} ended sessions of a digital human with an analysis (summary, a 3-field data_schema, 2 criteria; a 12-line transcript), their \`final\` posted over 16 connections, against as many of one without; the LLM is a stand-in in the load generator's process answering at once, so its time is not the service's. CPU is the service's from the \`final\`s until every analysis is complete, less the same for the sessions without one and less the idle service's (${figures.idleUsPerS} µs/s). Drain: from the last \`final\` to the last analysis asked (the sweeper fires each timer within a second; at most 4 attempts at once per replica, a timer past them put off 5 s).`,
    "",
    "| sessions | CPU µs/analysis | Redis cmds/analysis | Redis CPU µs/analysis | drain ms |",
    "| --- | --- | --- | --- | --- |",
    `| ${figures.sessions} | ${figures.cpuUsPerAnalysis} | ${figures.redis.commandsPerRequest} | ${figures.redis.cpuUsPerRequest} | ${figures.drainMs} |`,
    "",
    `A memory update (as many sessions of a digital human that also remembers, each of a participant of its own, against the round of analyses without memory: the kept facts read, the digital human checked, the new list written, and the larger request and answer): **${figures.cpuUsPerMemoryUpdate} µs** of the service's CPU (the mean of ${figures.memoryPairsUs.length} pairs of rounds: ${figures.memoryPairsUs.join(", ")} µs) and ${figures.memoryRedis.commandsPerRequest} Redis commands (${figures.memoryRedis.cpuUsPerRequest} µs of Redis CPU) each. Those rounds cannot tell a few hundred µs from the idle service's noise; the memory update's own code, run alone in the load generator's process against the same PostgreSQL (${figures.memoryUpdate.updates} updates, each the kept facts read, the digital human looked up, three facts written by compare-and-set), costs **${figures.memoryUpdate.createUs} µs** of CPU for a participant's first and **${figures.memoryUpdate.replaceUs} µs** for a later one, ${figures.memoryUpdate.commands} statements each.`,
  ].join("\n");
}

/** The memory update's own code, alone: the service's ParticipantMemories on the stack's PostgreSQL, many times. */
async function measureMemoryUpdates(
  stack: Stack,
  owner: string,
  digitalHumanId: string,
): Promise<{ updates: number; createUs: number; replaceUs: number; commands: number }> {
  const updates = 2_000;
  let statements = 0;
  // The service's pool as it queries (every statement counted), on the run's database.
  const db = new pg.Pool({ connectionString: stack.databaseUrl, max: 16 });
  const query = db.query.bind(db) as (...args: unknown[]) => unknown;
  db.query = ((...args: unknown[]) => {
    statements++;
    return query(...args);
  }) as typeof db.query;
  const memories = new ParticipantMemories({
    store: new PostgresParticipantMemories(db),
    // The one statement the service's store of digital humans sends to find one (its row by owner and id).
    digitalHumanExists: async (who, id) =>
      (await db.query("SELECT 1 FROM digital_humans WHERE owner = $1 AND id = $2", [who, id])).rowCount === 1,
    retentionMs: 90 * 86_400_000,
  });
  const facts = ["Name is Ada Lovelace", "Wants a quote for 40 seats", "E-mail is ada@example.com"];
  const once = async (pass: number) => {
    statements = 0;
    const before = process.cpuUsage();
    await inParallel(
      updates,
      async (i) => {
        const key = { owner, digitalHumanId, participantIdentity: `bench-update-${i}` };
        const base = await memories.base(key);
        const kept = await memories.keep(key, base, [...facts.slice(0, 2), `Visit ${pass}`]);
        if (!kept) throw new Error("the bench's digital human was not found");
      },
      16,
    );
    const used = process.cpuUsage(before);
    return { us: Math.round((used.user + used.system) / updates), commands: Math.round((statements / updates) * 10) / 10 };
  };
  try {
    const create = await once(0);
    const replace = await once(1);
    return { updates, createUs: create.us, replaceUs: replace.us, commands: replace.commands };
  } finally {
    await db.end();
  }
}
