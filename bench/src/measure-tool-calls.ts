/**
 * What a webhook tool's call costs the service (issue 50): the digital human's runToolCall, which claims
 * the call in the session's conversation, posts it signed to the customer's endpoint, waits for its answer
 * and records it with its session.tool_called event, in two compare-and-sets. The endpoint is a receiver
 * in this process that answers `{"result": ...}` at once, of an account with no other endpoint (no event
 * is delivered: the call alone). Two figures:
 *
 * - the service's CPU per call, and Redis's, over TOOL_CALLS calls on 16 connections (each a new call id,
 *   spread over the sessions), less what the idle service spends over as long;
 * - the latency the service adds between the LLM's call and its result reaching the job: the job's
 *   request to its answer, one call at a time, at the median and p99, with an endpoint that answers at
 *   once (its own time, a fraction of a millisecond on loopback, is in the figure, not taken off).
 */
import { digitalHumanToken, WebhookReceiver } from "@dhs/testkit";
import { cpuUsOf, perRequest, type RedisFigures, redisSnapshot, redisSpent } from "./figures.js";
import { inParallel } from "./in-parallel.js";
import { idleCpu } from "./measure-livekit-events.js";
import { LIVEKIT, TOOL_CALLS, TOOLS } from "./settings.js";
import type { Stack } from "./stack.js";

export interface ToolCallFigures {
  calls: number;
  perS: number;
  cpuUs: number;
  redis: RedisFigures;
  latency: { calls: number; p50Ms: number; p99Ms: number };
  idleUsPerS: number;
}

const SESSIONS = 50;
const JOB = "agent-ava";

export async function measureToolCalls(stack: Stack, quietReceiver: WebhookReceiver): Promise<ToolCallFigures> {
  const endpoint = await new WebhookReceiver({
    keepBodies: false,
    answer: () => ({ status: 200, body: '{"result":{"status":"shipped","arrives":"Thursday"}}' }),
  }).start();
  try {
    const api = async (path: string, body: unknown, status: number) => {
      const res = await fetch(`${stack.serverUrl}${path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${TOOLS.key}`,
          "content-type": "application/json",
          "idempotency-key": `bench-tools-${Math.random()}`,
        },
        body: JSON.stringify(body),
      });
      if (res.status !== status) throw new Error(`POST ${path} answered ${res.status}: ${await res.text()}`);
      // Every answer read here is an object with a string id (and, for a session, its room's name).
      return (await res.json()) as { id: string; room_name: string };
    };
    // Its events go nowhere: the one type it takes never comes while this runs.
    const hook = await api("/v1/webhook-endpoints", { url: endpoint.url, event_types: ["session.transcript_ready"] }, 201);
    const tool = { type: "webhook", name: "order_status", description: "Looks up an order.", endpoint_id: hook.id, timeout_ms: 5000 };
    const dh = await api("/v1/digital-humans", { name: "Bench", tools: [tool] }, 201);
    const sessions = await Promise.all(
      Array.from({ length: SESSIONS }, async () => {
        const session = await api("/v1/sessions", { digital_human_id: dh.id, participant_identity: "bench-user" }, 201);
        const token = await digitalHumanToken(session.room_name, { identity: JOB, apiKey: LIVEKIT.key, secret: LIVEKIT.secret, ttl: 3600 });
        return { id: session.id, token };
      }),
    );
    let serial = 0;
    const call = async (i: number): Promise<number> => {
      const session = sessions[i % sessions.length] as (typeof sessions)[number];
      const body = JSON.stringify({
        participant_identity: JOB,
        tool_call_id: `call_bench_${++serial}`,
        name: "order_status",
        arguments: { order_id: `A-${i}` },
      });
      const started = performance.now();
      const res = await fetch(`${stack.serverUrl}/v1/sessions/${session.id}/conversation/tool-calls`, {
        method: "POST",
        headers: { authorization: `Bearer ${session.token}`, "content-type": "application/json" },
        body,
      });
      const answer = (await res.json()) as { status?: string };
      if (res.status !== 200 || answer.status !== "succeeded")
        throw new Error(`runToolCall answered ${res.status}: ${JSON.stringify(answer)}`);
      return performance.now() - started;
    };
    // A round not measured warms the path up; a session takes 100 calls at most, so each round has sessions of its own.
    await inParallel(SESSIONS, call, 16);
    const idleUsPerS = await idleCpu(stack, quietReceiver);
    const calls = Math.min(TOOL_CALLS, SESSIONS * 98 - SESSIONS - 200);
    const redisBefore = await redisSnapshot(stack.nodes);
    const cpuBefore = cpuUsOf(stack.servicePid);
    const started = performance.now();
    await inParallel(calls, (i) => call(i).then(() => undefined), 16);
    const seconds = (performance.now() - started) / 1000;
    const cpuUs = (cpuUsOf(stack.servicePid) - cpuBefore - idleUsPerS * seconds) / calls;
    const redis = perRequest(redisSpent(redisBefore, await redisSnapshot(stack.nodes)), calls);
    const times: number[] = [];
    for (let i = 0; i < 200; i++) times.push(await call(i));
    times.sort((a, b) => a - b);
    const at = (q: number) => Number((times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0).toFixed(2));
    return {
      calls,
      perS: Math.round(calls / seconds),
      cpuUs: Math.round(cpuUs),
      redis,
      latency: { calls: times.length, p50Ms: at(0.5), p99Ms: at(0.99) },
      idleUsPerS: Math.round(idleUsPerS),
    };
  } finally {
    await endpoint.stop();
  }
}

export function toolCallSection(figures: ToolCallFigures): string {
  return [
    "## Tools: a webhook tool's call",
    "",
    `The digital human's runToolCall for a webhook tool whose endpoint (a receiver in the load generator's process) answers at once; ${figures.calls} calls over 16 connections, each a new call id, then 200 one after another for the latency. CPU is the service's over the load, less what the idle service spends over as long (${figures.idleUsPerS} µs/s). The latency is the job's request to its answer with an endpoint that answers at once (its own time, a fraction of a millisecond on loopback, is included): what the service adds between the LLM's call and the result reaching the job (target: 15 ms at the median on loopback).`,
    "",
    "| calls/s | CPU µs/call | Redis cmds/call | Redis CPU µs/call | latency p50 ms | latency p99 ms |",
    "| --- | --- | --- | --- | --- | --- |",
    `| ${figures.perS} | ${figures.cpuUs} | ${figures.redis.commandsPerRequest} | ${figures.redis.cpuUsPerRequest} | ${figures.latency.p50Ms} | ${figures.latency.p99Ms} |`,
  ].join("\n");
}
