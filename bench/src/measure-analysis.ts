/**
 * What a session's analysis costs the service (issue 52), the LLM's own time excluded: the LLM is the
 * testkit's Chat Completions server in this process, answering a valid structured output at once. Two
 * rounds of the same sessions (a 12-line transcript posted, the session ended, then `final`): one of a
 * digital human with an analysis (a summary, a 3-field data_schema, 2 criteria), one without; each
 * round's CPU runs from the `final`s until every session is settled (its analysis complete, or its
 * transcript complete), less what the idle service spends over as long. The difference per session is
 * the analysis: its timer, claim, transcript read, request, answer check, settle and event.
 */
import { digitalHumanToken, type WebhookReceiver } from "@dhs/testkit";
import { cpuUsOf, perRequest, type RedisFigures, redisSnapshot, redisSpent } from "./figures.js";
import { inParallel } from "./in-parallel.js";
import { idleCpu } from "./measure-livekit-events.js";
import { LIVEKIT, TOOLS } from "./settings.js";
import type { Stack } from "./stack.js";

export interface AnalysisFigures {
  sessions: number;
  cpuUsPerAnalysis: number;
  redis: RedisFigures;
  /** From the last `final` to the last analysis complete, for the round. */
  drainMs: number;
  idleUsPerS: number;
}

const SESSIONS = Number(process.env.BENCH_ANALYSES ?? 200);
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

export async function measureAnalysis(stack: Stack, quietReceiver: WebhookReceiver): Promise<AnalysisFigures> {
  stack.llm.script = () => ({ json: ANSWER });
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
  const plain = await api("POST", "/v1/digital-humans", { name: "Bench plain" });

  const post = (s: Prepared, body: unknown) =>
    fetch(`${stack.serverUrl}/v1/sessions/${s.id}/transcript/segments`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }).then(async (res) => {
      if (res.status !== 200) throw new Error(`segments answered ${res.status}: ${await res.text()}`);
    });
  const prepare = async (digitalHumanId: string): Promise<Prepared[]> =>
    Promise.all(
      Array.from({ length: SESSIONS }, async (_, i) => {
        const made = await api("POST", "/v1/sessions", { digital_human_id: digitalHumanId, participant_identity: `bench-${i}` });
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

  const analysed = await prepare(analyst.id as string);
  const unanalysed = await prepare(plain.id as string);
  const idleUsPerS = await idleCpu(stack, quietReceiver);
  const before = stack.llm.requests.length;
  const withAnalysis = await round(analysed, before + SESSIONS);
  const without = await round(unanalysed, before + SESSIONS);
  for (const s of analysed) {
    const shown = await api("GET", `/v1/sessions/${s.id}/analysis`);
    if (shown.status !== "complete") throw new Error(`session ${s.id}'s analysis is ${String(shown.status)}`);
  }
  const net = (r: typeof withAnalysis) => r.cpuUs - idleUsPerS * r.seconds;
  // Master by master, what the round with analyses cost beyond the one without.
  const beyond = withAnalysis.redis.map((node, i) => ({
    calls: Math.max(0, node.calls - (without.redis[i]?.calls ?? 0)),
    cpuUs: Math.max(0, node.cpuUs - (without.redis[i]?.cpuUs ?? 0)),
  }));
  const redis = perRequest(beyond, SESSIONS);
  return {
    sessions: SESSIONS,
    cpuUsPerAnalysis: Math.round((net(withAnalysis) - net(without)) / SESSIONS),
    redis,
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
  ].join("\n");
}
