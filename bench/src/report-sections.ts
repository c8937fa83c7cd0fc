/**
 * The sections of the results that stand on their own: LiveKit's webhooks by kind, a whole session's
 * CPU, and tracing; `pnpm bench` prints them alone with BENCH_ONLY.
 */
import { shares } from "./figures.js";
import type { EventFigures } from "./measure-livekit-events.js";
import type { TracingFigures } from "./measure-tracing.js";

export function eventsSection(events: EventFigures): string {
  return [
    "## LiveKit's webhooks: a session's life after its create",
    "",
    `Signed LiveKit webhooks for ${events.sessions} sessions, one kind at a time over 16 connections, in the order of a session's life, after a round that warms their path up; each kind's CPU is the service's over its load and the quiet second after, less what the idle service spends over as long (${events.idleUsPerS} µs/s: its timer and delivery sweeps). First for sessions of an account without webhook endpoints: the event alone (events/s, CPU, Redis). Then for sessions of the account with the endpoint: the event with the customer webhook deliveries it causes (deliveries per event).`,
    "",
    "| event | events/s | CPU µs/event | Redis cmds/event | Redis CPU µs/event | cmds per master | with its deliveries: CPU µs/event | deliveries per event |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...events.rows.map(
      (row) =>
        `| ${row.kind} | ${row.perS} | ${row.cpuUs} | ${row.redis.commandsPerRequest} | ${row.redis.cpuUsPerRequest} | ${shares(row.redis)} | ${row.withDeliveriesUs} | ${row.deliveries} |`,
    ),
  ].join("\n");
}

/**
 * A whole session's service CPU: its create (with its session.created delivery) and the LiveKit events
 * of a session that is joined, served and left (with their deliveries); not the duplicate nor the
 * foreign room, which are LiveKit's and other rooms' costs.
 */
export function wholeLife(rows: string[][], events: EventFigures): string {
  const create = Number(rows.find((row) => row[0] === "create")?.[6]);
  const life = events.rows.filter((row) => !/duplicate|not this service/.test(row.kind));
  const eventsUs = life.reduce((sum, row) => sum + row.withDeliveriesUs, 0);
  return `A whole session's life, per session: ${create + eventsUs} µs of the service's CPU: its create ${create} µs and its ${life.length} LiveKit events ${eventsUs} µs, each with the deliveries it causes.`;
}

export function tracingSection(tracing: TracingFigures): string {
  return [
    "## Tracing (OpenTelemetry)",
    "",
    "Create and get as above, each on a new service process with the same settings: tracing off (no OTEL_ variable), then on with OTLP http/protobuf to a collector stand-in in the load generator's process (it answers 200 at once), sampling every trace (OTEL_TRACES_SAMPLER=parentbased_always_on), then one in ten (parentbased_traceidratio, 0.1). A create's CPU includes its session.created delivery, as above.",
    "",
    "| tracing | create req/s | create p99 ms | create CPU µs/req | get req/s | get p99 ms | get CPU µs/req |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...tracing.rows.map(
      ({ label, create, get }) =>
        `| ${label} | ${create.rps} | ${create.p99} | ${create.cpuUsPerRequest} | ${get.rps} | ${get.p99} | ${get.cpuUsPerRequest} |`,
    ),
    "",
    `The collector stand-in received ${tracing.exports.requests} export requests, ${Math.round(tracing.exports.bytes / 1024)} KiB in all.`,
  ].join("\n");
}
