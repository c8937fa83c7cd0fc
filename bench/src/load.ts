/**
 * The load: autocannon driving creates or gets over CONNECTIONS connections, each create a new logical
 * create (an Idempotency-Key of its own), spread round robin over the bench's accounts; with the
 * service's CPU and Redis's figures over the same span when asked.
 */

import autocannon from "autocannon";
import type { Redis } from "ioredis";
import { cpuUsOf, type RedisFigures, redisFigures, redisSnapshot } from "./figures.js";
import { API_KEY, accounts, CONNECTIONS, DURATION_S, WARMUP_S } from "./settings.js";

export interface Measured {
  /** 2xx answers in all. */
  ok: number;
  /** CPU time of the measured process per request answered (µs), when its pid is known. */
  cpuUsPerRequest: number | null;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Redis commands and Redis CPU (µs, all masters) per request answered; per master, its share of the commands. */
  redis?: RedisFigures;
}

let keyCounter = 0;

export async function measure(
  url: string,
  op: "create" | "get",
  sessionIds: readonly string[],
  durationS: number,
  options: { pid?: number; key?: string; nodes?: readonly Redis[] } = {},
): Promise<Measured> {
  const headers = { authorization: `Bearer ${options.key ?? API_KEY}`, "content-type": "application/json" };
  const run = `${process.pid}-${Date.now()}`;
  // Round robin over the accounts (unless a key is given): each request as its account's.
  const keys = options.key ? [options.key] : accounts.map((account) => account.key);
  let turn = 0;
  const redisBefore = options.nodes ? await redisSnapshot(options.nodes) : undefined;
  const cpuBefore = options.pid ? cpuUsOf(options.pid) : 0;
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: durationS,
    requests: [
      op === "create"
        ? {
            method: "POST",
            path: "/v1/sessions",
            headers,
            body: '{"participant_identity":"bench-user","tags":["bench"]}',
            // Every create is a new logical create: a key of its own.
            setupRequest: (request) => ({
              ...request,
              headers: {
                ...request.headers,
                authorization: `Bearer ${keys[turn++ % keys.length]}`,
                "idempotency-key": `${run}-${keyCounter++}`,
              },
            }),
          }
        : {
            method: "GET",
            path: `/v1/sessions/${sessionIds[0]}`,
            headers,
            setupRequest: (request) => {
              const i = turn++ % sessionIds.length;
              return {
                ...request,
                path: `/v1/sessions/${sessionIds[i]}`,
                headers: { ...request.headers, authorization: `Bearer ${keys[i % keys.length]}` },
              };
            },
          },
    ],
  });
  const answered = result.requests.total;
  const cpuUsPerRequest = options.pid && answered > 0 ? Math.round((cpuUsOf(options.pid) - cpuBefore) / answered) : null;
  return {
    ok: result["2xx"],
    cpuUsPerRequest,
    ...(options.nodes && redisBefore ? { redis: redisFigures(redisBefore, await redisSnapshot(options.nodes), answered) } : {}),
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
  };
}

/**
 * Create, then get. On the service, a create's CPU and Redis figures count until its session.created
 * events are delivered (`settle` waits until the receiver's deliveries stop): that work is the create's,
 * and measured after the load it would be charged to the gets.
 */
export async function bothOps(
  url: string,
  sessionIds: readonly string[],
  service?: { pid: number; nodes: readonly Redis[]; settle: () => Promise<void> },
): Promise<{ create: Measured; get: Measured }> {
  await measure(url, "create", sessionIds, WARMUP_S);
  await service?.settle();
  const cpuBefore = service ? cpuUsOf(service.pid) : 0;
  const redisBefore = service ? await redisSnapshot(service.nodes) : undefined;
  const create = await measure(url, "create", sessionIds, DURATION_S);
  if (service && redisBefore) {
    await service.settle();
    create.cpuUsPerRequest = Math.round((cpuUsOf(service.pid) - cpuBefore) / Math.max(create.ok, 1));
    create.redis = redisFigures(redisBefore, await redisSnapshot(service.nodes), create.ok);
  }
  await measure(url, "get", sessionIds, WARMUP_S);
  const get = await measure(url, "get", sessionIds, DURATION_S, service ?? {});
  return { create, get };
}
