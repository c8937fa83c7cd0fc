/**
 * The sections of the results that stand on their own: LiveKit's webhooks by kind, a whole session's
 * CPU, driving a session (say, the digital human's pull and reports) and tracing; `pnpm bench` prints
 * them alone with BENCH_ONLY.
 */
import { shares } from "./figures.js";
import { BATCH, type ConversationFigures } from "./measure-conversation.js";
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

export function conversationSection(figures: ConversationFigures): string {
  const row = (part: string) => figures.rows.find((r) => r.kind.includes(part));
  const said = ["say (", "after the nudge", "utterance_started", "utterance_ended"].map(row);
  const sum = (values: (number | undefined)[]) => values.reduce<number>((total, value) => total + (value ?? Number.NaN), 0);
  const turn = row("participant_turn");
  const delivery = figures.perDelivery;
  return [
    "## Driving a session: say, the digital human's pull and reports",
    "",
    `For ${figures.sessions} active sessions (participant and digital human joined) per account, one request per session, one kind at a time over 16 connections, in the order of a driven say (a batch of ${BATCH} sessions at a time, so that each say is pulled before the service would nudge again, 3 s after), after a round that warms their path up; each kind's CPU is the service's over its load and the quiet second after, less what the idle service spends over as long (${figures.idleUsPerS} µs/s). The digital human's calls carry its token (a LiveKit AccessToken with the agent grant for the session's room); a say's nudge is a SendData call to the LiveKit stand-in, which answers at once (LiveKit calls per request counts them). First for sessions of an account without webhook endpoints: the request alone (no per-turn event is queued; the reference digital human does not even report turns then). Then for sessions of the account whose endpoint takes every type: with the session.utterance_started, utterance_ended and participant_turn events they queue and their deliveries (deliveries per request).`,
    "",
    "| request | req/s | CPU µs/req | Redis cmds/req | Redis CPU µs/req | cmds per master | LiveKit calls/req | with its deliveries: CPU µs/req | deliveries per req |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...figures.rows.map(
      (r) =>
        `| ${r.kind} | ${r.perS} | ${r.cpuUs} | ${r.redis.commandsPerRequest} | ${r.redis.cpuUsPerRequest} | ${shares(r.redis)} | ${r.livekitCalls} | ${r.withDeliveriesUs} | ${r.deliveries} |`,
    ),
    "",
    delivery
      ? `Per delivery of a per-turn event (session.participant_turn), measured while a backlog of ${delivery.drained} drained at ${delivery.perS}/s with no other load: ${delivery.cpuUs} µs of the service's CPU, ${delivery.redis.commandsPerRequest} Redis commands and ${delivery.redis.cpuUsPerRequest} µs of Redis CPU.`
      : "Per delivery of a per-turn event: not measured (too few were left to drain after the posts).",
    "",
    `For scale, the same run's participant and digital human joins (LiveKit's webhooks, without an endpoint, as in the LiveKit table) cost ${figures.joinUs} µs an event (against that table's, how much busier or slower the machine was for this run).`,
    "",
    `A say, all told (the say with its nudge, the job's pull, its utterance_started and utterance_ended reports): ${sum(said.map((r) => r?.cpuUs))} µs of the service's CPU without a webhook endpoint, ${sum(said.map((r) => r?.withDeliveriesUs))} µs with its two events delivered. A participant turn's report: ${turn?.cpuUs} µs alone, ${turn?.withDeliveriesUs} µs with its event delivered.`,
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
