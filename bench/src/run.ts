/**
 * `pnpm bench`: the service against bare Express 5, in one run on one machine.
 *
 * Starts Redis, a LiveKit RoomService stand-in and the built service (production settings, Redis store)
 * each in its own process, and a bare Express 5 app answering the same routes with a constant body; drives
 * both with autocannon (32 connections; a unique Idempotency-Key per create) and prints, for create and
 * get, req/s, p50, p99 and the ratio to bare Express. Then it measures Redis memory per session over 100k
 * creates and the service's RSS, and writes the table to bench/results.md. Then it registers one
 * customer webhook endpoint (a receiver in this process that answers 204), measures create again, and
 * how fast the session.created events reach the receiver. Before that, LiveKit's webhooks by kind and a
 * driven session's requests by kind (say, the digital human's pull and reports, with the per-turn events
 * they cause). Numbers only: nothing here fails on timing.
 *
 *   BENCH_DURATION_S (10)  BENCH_STORED (1; "1,10000,1000000" = pnpm bench:scale)  BENCH_MEMORY_SESSIONS (100000)
 *   BENCH_RESULTS (results.md; the file in bench/ the table is written to)
 *   BENCH_CPU_PROF (unset; a directory: the service runs under node --cpu-prof and writes its profile
 *   there on exit; summarize it with `tsx src/profile-summary.ts <file>`; with the LiveKit webhooks'
 *   windows beside it, `... <file> 25 "<kind>"` shows one kind's load alone)
 *   BENCH_SERVER (apps/server/dist/main.js; another build of the service, e.g. an older commit's, to
 *   compare under the same load)
 *   BENCH_SERVICE_NODE (the bench's own Node.js; another node binary to run the service with, e.g. an
 *   older Node.js under the same load, with a BENCH_SERVER build that runs on it)
 *   BENCH_SKIP (unset; "conversation", "tools", "history", "knowledge", comma-separated: sections a full
 *   run leaves out, for a BENCH_SERVER build that predates them)
 *   BENCH_REDIS (standalone; "cluster": a local Redis Cluster of three masters, each with a replica)
 *   BENCH_EVENT_SESSIONS (2000; sessions per account whose LiveKit webhooks are measured)
 *   BENCH_ONLY (unset; "events": only LiveKit's webhooks, printed, no results file: quick, and a profile
 *   of their path alone but for their sessions' creates; "get": only gets, printed, the same for a get;
 *   "tracing": only create and get with tracing off and on, printed; "conversation": only driving a
 *   session (say, the digital human's pull and reports, per-turn events and their delivery), printed;
 *   "history": only the PostgreSQL history (a database of its own on 127.0.0.1:5432), printed; "tools":
 *   only a webhook tool's call (runToolCall), printed; "knowledge": only the knowledge, documents into
 *   passages and their search (a database of its own on 127.0.0.1:5432), printed; "analysis": only a
 *   session's analysis, the LLM a stand-in answering at once, printed)
 *   BENCH_ANALYSES (200; ended sessions analysed, and as many not, for the analysis's CPU)
 *   BENCH_HISTORY_SESSIONS (20000; sessions created, ended and written to the history)
 *   BENCH_KNOWLEDGE_MAX_CHUNKS (100000; the account's passages are measured at 1 000, 10 000 and 100 000,
 *   those under this cap, and at the cap: 1000 for a quick run)
 *   BENCH_KNOWLEDGE_QUERIES (200; searches measured at each size by each of the two operations)
 *   BENCH_CONVERSATION_SESSIONS (1000; sessions per account whose conversation is measured)
 *   BENCH_ACCOUNTS (1; the load spread over this many accounts, one API key, one webhook endpoint and
 *   one session to get each: an account's keys share one hash slot, so one account loads one shard)
 *
 * Beside the service's CPU it reads Redis's own figures from every master (INFO commandstats and cpu):
 * commands and Redis CPU per request, and in a cluster each master's share of the commands.
 *
 * The service runs as production does: the rate limiter on (with a limit no request reaches, so what is
 * measured is the cost of counting) and one customer webhook endpoint registered for the account, whose
 * deliveries share the service's CPU.
 *
 * This file runs the measurements in order: stack.ts starts what is measured, load.ts drives it, each
 * measure-*.ts is one measurement, and report.ts writes the results.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { quiet, registerReceiver } from "./bench-receiver.js";
import { endOpenSessions } from "./end-open-sessions.js";
import { rssMb } from "./figures.js";
import { measure } from "./load.js";
import { analysisSection, measureAnalysis } from "./measure-analysis.js";
import { measureAtLimit } from "./measure-at-limit.js";
import { measureConversation } from "./measure-conversation.js";
import { getTargets, measureAll } from "./measure-create-get.js";
import { historySection, measureHistory } from "./measure-history.js";
import { knowledgeSection, measureKnowledge } from "./measure-knowledge.js";
import { measureLiveKitEvents, profileWindows } from "./measure-livekit-events.js";
import { memoryPerSession } from "./measure-memory.js";
import { measureToolCalls, toolCallSection } from "./measure-tool-calls.js";
import { measureTracing } from "./measure-tracing.js";
import { measureWebhooks } from "./measure-webhooks.js";
import { report } from "./report.js";
import { conversationSection, eventsSection, tracingSection } from "./report-sections.js";
import { DURATION_S, here, SKIP, WARMUP_S } from "./settings.js";
import { disconnect, startStack, stopStack } from "./stack.js";

async function main(): Promise<void> {
  const stack = await startStack();
  const receiver = await registerReceiver(stack);
  if (process.env.BENCH_ONLY === "events") {
    // The LiveKit events alone (a profile of their path: BENCH_CPU_PROF), printed, no results file.
    process.stdout.write(`\n${eventsSection(await measureLiveKitEvents(stack, receiver))}\n`);
    await receiver.stop();
    await disconnect(stack);
    return;
  }
  if (process.env.BENCH_ONLY === "get") {
    // Gets alone (a profile of their path: BENCH_CPU_PROF), printed, no results file.
    const sessionIds = await getTargets(stack);
    await measure(stack.serverUrl, "get", sessionIds, WARMUP_S);
    const get = await measure(stack.serverUrl, "get", sessionIds, DURATION_S, { pid: stack.servicePid, nodes: stack.nodes });
    process.stdout.write(
      `\nget: ${get.rps} req/s, p50 ${get.p50} ms, p99 ${get.p99} ms, ${get.cpuUsPerRequest} µs of CPU a request, ${get.redis?.commandsPerRequest} Redis commands\n`,
    );
    await receiver.stop();
    await disconnect(stack);
    return;
  }
  if (process.env.BENCH_ONLY === "conversation") {
    process.stdout.write(`\n${conversationSection(await measureConversation(stack, receiver))}\n`);
    await receiver.stop();
    await disconnect(stack);
    return;
  }
  if (process.env.BENCH_ONLY === "tools") {
    process.stdout.write(`\n${toolCallSection(await measureToolCalls(stack, receiver))}\n`);
    await receiver.stop();
    await disconnect(stack);
    return;
  }
  if (process.env.BENCH_ONLY === "analysis") {
    process.stdout.write(`\n${analysisSection(await measureAnalysis(stack, receiver))}\n`);
    await receiver.stop();
    await disconnect(stack);
    return;
  }
  if (process.env.BENCH_ONLY === "history") {
    process.stdout.write(`\n${historySection(await measureHistory(stack))}\n`);
    await receiver.stop();
    await disconnect(stack);
    return;
  }
  if (process.env.BENCH_ONLY === "knowledge") {
    process.stdout.write(`\n${knowledgeSection(await measureKnowledge(stack))}\n`);
    await receiver.stop();
    await disconnect(stack);
    return;
  }
  if (process.env.BENCH_ONLY === "tracing") {
    const figures = await measureTracing(stack, await getTargets(stack), () => quiet(receiver));
    process.stdout.write(`\n${tracingSection(figures)}\n`);
    await receiver.stop();
    await disconnect(stack);
    return;
  }
  const sessionIds = await getTargets(stack);
  const { rows, bareCreate } = await measureAll(stack, sessionIds, () => quiet(receiver));
  const tracing = await measureTracing(stack, sessionIds, () => quiet(receiver));
  const rss = rssMb(stack.servicePid);
  process.stdout.write(`bench: ended the ${await endOpenSessions(stack, receiver)} sessions the creates left open\n`);
  // Before LiveKit's events, whose sessions end: 60 s later (TRANSCRIPT_GRACE_S) their transcripts'
  // timers fire, and this measurement's sessions stay open, so nothing of theirs comes due later.
  const conversation = SKIP.has("conversation") ? undefined : await measureConversation(stack, receiver);
  const tools = SKIP.has("tools") ? undefined : await measureToolCalls(stack, receiver);
  // Before measureWebhooks, which stops the receiver: the events' deliveries are part of their cost.
  const events = await measureLiveKitEvents(stack, receiver);
  const hooks = await measureWebhooks(stack, receiver, bareCreate);
  const atLimit = await measureAtLimit(stack);
  const history = SKIP.has("history") ? undefined : await measureHistory(stack);
  const knowledge = SKIP.has("knowledge") ? undefined : await measureKnowledge(stack);
  const text = `${report(rows, await memoryPerSession(stack), rss, hooks, atLimit, events, tracing, conversation)}\n${tools ? toolCallSection(tools) : "## Tools: a webhook tool's call\n\nNot measured (BENCH_SKIP)."}\n\n${history ? historySection(history) : "## History in PostgreSQL\n\nNot measured (BENCH_SKIP)."}\n\n${knowledge ? knowledgeSection(knowledge) : "## Knowledge\n\nNot measured (BENCH_SKIP)."}`;
  process.stdout.write(`\n${text}\n`);
  writeFileSync(here(`../${process.env.BENCH_RESULTS ?? "results.md"}`), text);
  await disconnect(stack);
}

try {
  await main();
} finally {
  if (process.env.BENCH_CPU_PROF) writeFileSync(join(process.env.BENCH_CPU_PROF, "windows.json"), JSON.stringify(profileWindows, null, 1));
  await stopStack();
}
