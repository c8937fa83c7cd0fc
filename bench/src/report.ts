/**
 * The results file (bench/results*.md) and what `pnpm bench` prints: the machine, versions and settings,
 * the create and get table against bare Express, memory per session, RSS, deliveries, the account's
 * limit, then the sections of report-sections.ts (LiveKit's webhooks, a whole session, driving a session,
 * tracing).
 */
import { cpus, totalmem } from "node:os";
import { commit, packageVersion, version } from "./environment.js";
import { shares } from "./figures.js";
import type { Measured } from "./load.js";
import type { ConversationFigures } from "./measure-conversation.js";
import type { EventFigures } from "./measure-livekit-events.js";
import type { MemoryFigures } from "./measure-memory.js";
import type { TracingFigures } from "./measure-tracing.js";
import { MIN_DRAINED, type WebhookFigures } from "./measure-webhooks.js";
import { conversationSection, eventsSection, tracingSection, wholeLife } from "./report-sections.js";
import { ACCOUNTS, CLUSTER, CONNECTIONS, DURATION_S, MEMORY_SESSIONS, STORED, WARMUP_S } from "./settings.js";

export function report(
  rows: string[][],
  memory: MemoryFigures,
  rss: number,
  hooks: WebhookFigures,
  atLimit: Measured,
  events: EventFigures,
  tracing: TracingFigures,
  conversation: ConversationFigures | undefined,
): string {
  const header = [
    "op",
    "stored sessions",
    "req/s",
    "p50 ms",
    "p99 ms",
    "non-2xx",
    "CPU µs/req",
    "Redis cmds/req",
    "Redis CPU µs/req",
    "cmds per master",
    "bare req/s",
    "bare p50",
    "bare p99",
    "ratio",
  ];
  const table = [header, header.map(() => "---"), ...rows].map((r) => `| ${r.join(" | ")} |`).join("\n");
  const cpu = cpus();
  const versions = {
    // The service's Node.js, which BENCH_SERVICE_NODE may make another than the bench's.
    node: process.env.BENCH_SERVICE_NODE ? version(process.env.BENCH_SERVICE_NODE, ["--version"]) : process.version,
    redis: version("redis-server", ["--version"]).split(" ")[2]?.replace("v=", "") ?? "?",
    express: packageVersion("express"),
    "express-openapi-validator": packageVersion("express-openapi-validator"),
    ioredis: packageVersion("ioredis"),
    "livekit-server-sdk": packageVersion("livekit-server-sdk"),
    pino: packageVersion("pino"),
    autocannon: packageVersion("autocannon", "../"),
  };
  return [
    "# Benchmark results",
    "",
    `Written by \`pnpm bench\` (BENCH_STORED=${STORED.join(",")}) on ${new Date().toISOString()}.`,
    "",
    `Machine: ${cpu.length} × ${cpu[0]?.model ?? "?"}, ${Math.round(totalmem() / 2 ** 30)} GiB; load generator, service, bare Express, Redis and the LiveKit stand-in all on it.`,
    `Versions: ${Object.entries(versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}.`,
    `Settings: ${CONNECTIONS} connections, ${DURATION_S} s per measurement after ${WARMUP_S} s of warm-up; the service with production's settings (NODE_ENV=bench only so that a webhook endpoint on loopback is allowed), the Redis store (${CLUSTER ? "a local Redis Cluster: three masters, each with a replica" : "one redis-server"}), ${ACCOUNTS === 1 ? "one account" : `the load spread round robin over ${ACCOUNTS} accounts`}, info-level request logs to a file, no response validation, the rate limiter on (1 000 000 a second: counting, never refusing), one customer webhook endpoint registered for ${ACCOUNTS === 1 ? "the account" : "each account"} (its receiver in the load generator's process).`,
    `Measured: commit ${commit()}.`,
    "",
    table,
    "",
    "CPU µs/req: the service process alone (utime + stime from /proc) over the measurement, divided by the requests it answered; a create's counts until its session.created event has been delivered to the endpoint. Redis cmds/req and Redis CPU µs/req: every master's INFO commandstats calls and used_cpu_sys + used_cpu_user over the same span, summed, per request (replicas not counted); cmds per master: each master's share of those commands.",
    "",
    `Redis memory per session: ${memory.bytes} bytes (used_memory over ${MEMORY_SESSIONS} creates through the service's create path; ${memory.keys} keys per session: session, idempotency record, plus the account's open sessions and the shards' timer sets). Seeding ran at ${memory.seedRate} creates/s in-process. Once every one of them has ended (endSession), ${memory.endedBytes} bytes a session, which Redis keeps for SESSION_RETENTION_S and then expires by itself. Each master's share of the memory the open sessions added: ${memory.shares.map((share) => `${Math.round(share * 100)}%`).join(" / ")}; of what the ended ones keep: ${memory.endedShares.map((share) => `${Math.round(share * 100)}%`).join(" / ")} (the sessions are one account's).`,
    "",
    "By key (MEMORY USAGE of every key, summed by kind, per session):",
    "",
    "| key | open | ended |",
    "| --- | --- | --- |",
    ...[...new Set([...Object.keys(memory.byKey.open), ...Object.keys(memory.byKey.ended)])].map(
      (kind) => `| ${kind} | ${memory.byKey.open[kind] ?? 0} | ${memory.byKey.ended[kind] ?? 0} |`,
    ),
    "",
    `Service RSS after the load: ${rss} MiB.`,
    "",
    "## Deliveries to the customer webhook endpoint",
    "",
    "The endpoint above (every event type, its receiver answering 204): create once more, following its session.created events.",
    "",
    "| op | req/s | p50 ms | p99 ms | non-2xx | CPU µs/req | bare req/s | ratio |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    `| create, 1 endpoint | ${hooks.create.rps} | ${hooks.create.p50} | ${hooks.create.p99} | ${hooks.create.errors} | ${hooks.create.cpuUsPerRequest} | ${hooks.bareCreate.rps} | ${(hooks.create.rps / hooks.bareCreate.rps).toFixed(2)} |`,
    "",
    "## At the account's limit of open sessions",
    "",
    "Creates of an account that has its one allowed session open: each is answered 429 concurrency_limit_exceeded by the idempotency claim's script, before any LiveKit call.",
    "",
    "| op | req/s | p50 ms | p99 ms | 429s | CPU µs/req | Redis cmds/req | Redis CPU µs/req |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    `| create beyond the limit | ${atLimit.rps} | ${atLimit.p50} | ${atLimit.p99} | ${atLimit.errors} | ${atLimit.cpuUsPerRequest} | ${atLimit.redis?.commandsPerRequest ?? "?"} | ${atLimit.redis?.cpuUsPerRequest ?? "?"} |`,
    "",
    hooks.perDelivery
      ? `Per delivery, measured while the backlog drained with no other load: ${hooks.perDelivery.cpuUs} µs of the service's CPU, ${hooks.perDelivery.redis.commandsPerRequest} Redis commands and ${hooks.perDelivery.redis.cpuUsPerRequest} µs of Redis CPU (commands per master ${shares(hooks.perDelivery.redis)}).`
      : `Per delivery: not measured (fewer than ${MIN_DRAINED} deliveries were left to drain after the load).`,
    "",
    `Deliveries: ${hooks.delivered} session.created events delivered for ${hooks.create.ok} creates autocannon counted (it does not count the creates still in flight when it stops), ${hooks.duplicates} delivered twice; ${hooks.duringLoadPerS}/s arrived during the load, ${hooks.backlogAtEnd} were still queued when it ended${hooks.drainPerS === null ? "" : `, and those drained at ${hooks.drainPerS}/s`}.`,
    "",
    eventsSection(events),
    "",
    wholeLife(rows, events),
    "",
    conversation ? conversationSection(conversation) : "## Driving a session\n\nNot measured (BENCH_SKIP).",
    "",
    tracingSection(tracing),
    "",
  ].join("\n");
}
