/**
 * What driving a session costs the service (issue 38): the backend's say, the digital human's pull and
 * reports, the per-turn events they queue and their delivery. Measured as LiveKit's webhooks are
 * (measure-livekit-events.ts): CONVERSATION_SESSIONS active sessions (participant and digital human
 * joined), one request per session, one kind at a time over 16 connections, in the order of a driven
 * say; each kind's service CPU over its load and the quiet second after, less the idle service's, with
 * Redis's commands and CPU and the LiveKit calls it made, per request. First for sessions of an account
 * without webhook endpoints (nothing is delivered: the request alone), then for the account whose
 * endpoint takes every type (with the deliveries of session.utterance_started, utterance_ended and
 * participant_turn). Then, for that account, the service's CPU per delivery of a per-turn event while a
 * backlog of them drains with no other load, as measure-webhooks.ts measures session.created's.
 *
 * Requests are built before their load starts; the digital human's token is minted once per session,
 * as a job holds one for its calls.
 */
import { digitalHumanToken, until, type WebhookReceiver } from "@dhs/testkit";
import { quiet } from "./bench-receiver.js";
import { addSpent, cpuUsOf, perRequest, type RedisFigures, type RedisSnapshot, redisSnapshot, redisSpent } from "./figures.js";
import { inParallel } from "./in-parallel.js";
import {
  AGENT,
  idleCpu,
  monotonicUs,
  postEvents,
  profileWindows,
  type Session,
  sessionsFor,
  signedEvents,
  USER,
} from "./measure-livekit-events.js";
import { MIN_DRAINED } from "./measure-webhooks.js";
import { ACCOUNT, API_KEY, CONVERSATION_SESSIONS, LIVEKIT, QUIET } from "./settings.js";
import type { Stack } from "./stack.js";

export interface ConversationRow {
  kind: string;
  perS: number;
  /** The request alone: sessions of an account without webhook endpoints. */
  cpuUs: number;
  redis: RedisFigures;
  /** LiveKit calls (the nudges' SendData) per request. */
  livekitCalls: number;
  /** The same request for a session whose account has an endpoint taking every type, with its deliveries. */
  withDeliveriesUs: number;
  deliveries: number;
}

export interface ConversationFigures {
  rows: ConversationRow[];
  sessions: number;
  /** The service's CPU while idle (µs/s), taken off each kind's window. */
  idleUsPerS: number;
  /**
   * The sessions' participant and digital human joins (LiveKit webhooks, no endpoint), per event: the
   * results' own rows measured in this run, a yardstick for how busy the machine was.
   */
  joinUs: number;
  /** Per delivery of session.participant_turn, while a backlog drained with no other load. */
  perDelivery: { cpuUs: number; redis: RedisFigures; drained: number; perS: number } | null;
}

/**
 * Sessions taken through the kinds together. A say the job has not pulled is nudged again 3 s after its
 * nudge (the service's RENUDGE_MS): the job pulls at once, so with a batch's says and its pulls that
 * much apart the bench would measure nudges no job causes (LiveKit calls per request would show them).
 * 250 says took about a second on a busy 2-core VM, and a quiet second follows them.
 */
export const BATCH = 250;
/** Per-turn events queued for the drain, at most 20 per report post (the contract's bound). */
const DRAIN_EVENTS = 3000;
/** The job is the digital human that joined the room (its identity there, where nudges go). */
const JOB = AGENT.identity;
const SAID = "Your order shipped this morning; it arrives on Thursday.";
const TURN = "When does my order arrive?";

type Call = { path: string; headers: Record<string, string>; body: string; status: number };
interface Turn {
  session: Session;
  token: string;
  key: string;
  /** The say's utterance id, once the say was answered. */
  utterance: string | undefined;
}
interface Kind {
  kind: string;
  call(turn: Turn): Call;
  /** Checks the answer is the one meant (a refused report would measure another path) and keeps what the next kind needs. */
  check(answer: Record<string, unknown>, turn: Turn): void;
}

const jobCall = (turn: Turn, operation: "pull" | "reports", body: object): Call => ({
  path: `/v1/sessions/${turn.session.id}/conversation/${operation}`,
  headers: { authorization: `Bearer ${turn.token}`, "content-type": "application/json" },
  body: JSON.stringify(body),
  status: 200,
});
const report = (turn: Turn, ...reports: object[]) => jobCall(turn, "reports", { participant_identity: JOB, reports });
const items = (answer: Record<string, unknown>) => answer.items as { id: string }[];
const accepted = (answer: Record<string, unknown>, kind: string) => {
  if (!(answer.results as { accepted: boolean }[]).every((result) => result.accepted)) throw new Error(`${kind}: a report was refused`);
};
const participantTurn = (id: string, at: string) => ({ type: "participant_turn", id, text: TURN, started_at: at, ended_at: at });

let idempotencyKeys = 0;

/** The kinds, in the order a driven say goes: the job joins and polls, the backend says, the job takes it and says it; a turn. */
const KINDS: Kind[] = [
  {
    kind: "the job's pull when it joins (after 0, nothing queued)",
    call: (turn) => jobCall(turn, "pull", { after: 0, participant_identity: JOB }),
    check: (answer) => {
      if (items(answer).length !== 0) throw new Error("the join pull found something queued");
    },
  },
  {
    kind: "the job's poll every 60 s (after its cursor, nothing new)",
    call: (turn) => jobCall(turn, "pull", { after: 0, participant_identity: JOB }),
    check: (answer) => {
      if (items(answer).length !== 0) throw new Error("the poll found something queued");
    },
  },
  {
    kind: "say (a new Idempotency-Key; the service nudges the job: LiveKit SendData)",
    call: (turn) => ({
      path: `/v1/sessions/${turn.session.id}/say`,
      headers: {
        authorization: `Bearer ${turn.key}`,
        "content-type": "application/json",
        "idempotency-key": `bench-say-${process.pid}-${++idempotencyKeys}`,
      },
      body: JSON.stringify({ text: SAID }),
      status: 202,
    }),
    check: (answer, turn) => {
      turn.utterance = answer.id as string;
    },
  },
  {
    kind: "the job's pull after the nudge (takes the say)",
    call: (turn) => jobCall(turn, "pull", { after: 0, participant_identity: JOB }),
    check: (answer, turn) => {
      if (items(answer)[0]?.id !== turn.utterance) throw new Error("the pull after the nudge did not take the say");
    },
  },
  {
    kind: "report: the say's utterance_started",
    call: (turn) =>
      report(turn, { type: "utterance_started", id: turn.utterance, say: true, text: SAID, started_at: new Date().toISOString() }),
    check: (answer) => accepted(answer, "utterance_started"),
  },
  {
    kind: "report: the say's utterance_ended",
    call: (turn) =>
      report(turn, { type: "utterance_ended", id: turn.utterance, say: true, ended_at: new Date().toISOString(), interrupted: false }),
    check: (answer) => accepted(answer, "utterance_ended"),
  },
  {
    kind: "report: a participant_turn",
    call: (turn) => report(turn, participantTurn("turn-1", new Date().toISOString())),
    check: (answer) => accepted(answer, "participant_turn"),
  },
];

/** Calls the LiveKit stand-in has answered so far, all methods. */
async function livekitCalls(stack: Stack): Promise<number> {
  const counts = (await (await fetch(`${stack.livekitUrl}/bench/calls`)).json()) as Record<string, number>;
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

async function send(stack: Stack, call: Call): Promise<Record<string, unknown>> {
  const res = await fetch(`${stack.serverUrl}${call.path}`, { method: "POST", headers: call.headers, body: call.body });
  const text = await res.text();
  if (res.status !== call.status) throw new Error(`POST ${call.path} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

export async function measureConversation(stack: Stack, receiver: WebhookReceiver): Promise<ConversationFigures> {
  // A round not measured warms the path up (nothing before it in a run calls these routes).
  await conversation(stack, receiver, Math.min(CONVERSATION_SESSIONS, BATCH), QUIET, 0);
  const idleUsPerS = await idleCpu(stack, receiver);
  const alone = await conversation(stack, receiver, CONVERSATION_SESSIONS, QUIET, idleUsPerS);
  const delivered = await conversation(stack, receiver, CONVERSATION_SESSIONS, { key: API_KEY, accountId: ACCOUNT }, idleUsPerS);
  return {
    rows: alone.totals.map((row, i) => {
      const other = delivered.totals[i] as Totals;
      return {
        kind: row.kind,
        perS: Math.round(row.requests / row.seconds),
        cpuUs: Math.round(row.cpuUs / row.requests),
        redis: perRequest(row.redis, row.requests),
        livekitCalls: Number((row.livekitCalls / row.requests).toFixed(2)),
        withDeliveriesUs: Math.round(other.cpuUs / other.requests),
        deliveries: Number((other.deliveries / other.requests).toFixed(2)),
      };
    }),
    sessions: CONVERSATION_SESSIONS,
    idleUsPerS: Math.round(idleUsPerS),
    joinUs: Math.round(alone.joinUs),
    perDelivery: await drainTurns(stack, receiver, delivered.turns, idleUsPerS),
  };
}

interface Totals {
  kind: string;
  requests: number;
  /** Of the loads alone, for the rate. */
  seconds: number;
  /** The windows' CPU less the idle service's. */
  cpuUs: number;
  redis: RedisSnapshot;
  livekitCalls: number;
  deliveries: number;
}

/** `count` active sessions of the account through every kind, a batch at a time; each kind's totals over the batches. */
async function conversation(
  stack: Stack,
  receiver: WebhookReceiver,
  count: number,
  account: { key: string; accountId: string },
  idleUsPerS: number,
): Promise<{ totals: Totals[]; turns: Turn[]; joinUs: number }> {
  await quiet(receiver);
  const sessions = await sessionsFor(stack, count, account);
  const joined = [
    ...(await signedEvents("participant_joined", sessions, account.accountId, USER)),
    ...(await signedEvents("participant_joined", sessions, account.accountId, AGENT)),
  ];
  await quiet(receiver);
  // Both joins are measured as measure-livekit-events.ts measures them: the same two rows of the results
  // measured in this run's conditions, to scale this run's figures by when it ran on a busier machine.
  const cpuBefore = cpuUsOf(stack.servicePid);
  const started = performance.now();
  await postEvents(stack, joined.slice(0, sessions.length), "participant joined");
  await postEvents(stack, joined.slice(sessions.length), "digital human joined");
  await quiet(receiver);
  const joinUs = (cpuUsOf(stack.servicePid) - cpuBefore - idleUsPerS * ((performance.now() - started) / 1000)) / joined.length;
  // The digital human's token (the contract's digitalHumanToken), as its worker mints it.
  const turns: Turn[] = await Promise.all(
    sessions.map(async (session) => ({
      session,
      token: await digitalHumanToken(session.room_name, { identity: JOB, apiKey: LIVEKIT.key, secret: LIVEKIT.secret, ttl: 600 }),
      key: account.key,
      utterance: undefined,
    })),
  );
  const totals: Totals[] = KINDS.map(({ kind }) => ({
    kind,
    requests: 0,
    seconds: 0,
    cpuUs: 0,
    redis: [],
    livekitCalls: 0,
    deliveries: 0,
  }));
  for (let from = 0; from < turns.length; from += BATCH) {
    const batch = turns.slice(from, from + BATCH);
    await quiet(receiver);
    for (const [k, kind] of KINDS.entries()) {
      const calls = batch.map((turn) => kind.call(turn));
      const total = totals[k] as Totals;
      const arrivedBefore = receiver.received.length;
      const livekitBefore = await livekitCalls(stack);
      const redisBefore = await redisSnapshot(stack.nodes);
      const cpuBefore = cpuUsOf(stack.servicePid);
      const started = performance.now();
      const fromUs = monotonicUs();
      await inParallel(calls.length, async (i) => kind.check(await send(stack, calls[i] as Call), batch[i] as Turn), 16);
      total.seconds += (performance.now() - started) / 1000;
      profileWindows.push({ kind: `${account.accountId}: ${kind.kind}`, events: calls.length, fromUs, toUs: monotonicUs() });
      await quiet(receiver);
      const windowS = (performance.now() - started) / 1000;
      total.cpuUs += cpuUsOf(stack.servicePid) - cpuBefore - idleUsPerS * windowS;
      total.redis = addSpent(total.redis, redisSpent(redisBefore, await redisSnapshot(stack.nodes)));
      total.livekitCalls += (await livekitCalls(stack)) - livekitBefore;
      total.deliveries += receiver.received.length - arrivedBefore;
      total.requests += calls.length;
    }
  }
  return { totals, turns, joinUs };
}

/**
 * Per delivery of a per-turn event: participant turns queued in a burst (several a post, so that most
 * are still queued when the posts end), then the service's CPU and Redis's from the last post until
 * every one has arrived, per delivery in that span.
 */
async function drainTurns(
  stack: Stack,
  receiver: WebhookReceiver,
  turns: Turn[],
  idleUsPerS: number,
): Promise<ConversationFigures["perDelivery"]> {
  const perPost = Math.min(20, Math.ceil(DRAIN_EVENTS / turns.length));
  await quiet(receiver);
  const at = new Date().toISOString();
  const calls = turns.map((turn) => report(turn, ...Array.from({ length: perPost }, (_, j) => participantTurn(`turn-drain-${j}`, at))));
  const before = receiver.received.length;
  await inParallel(calls.length, async (i) => accepted(await send(stack, calls[i] as Call), "participant_turn"), 16);
  const from = { arrived: receiver.received.length, cpuUs: cpuUsOf(stack.servicePid), redis: await redisSnapshot(stack.nodes) };
  const started = performance.now();
  await until(() => receiver.received.length - before >= calls.length * perPost, {
    timeoutMs: 120_000,
    what: "every participant_turn at the bench's webhook receiver",
  });
  const seconds = (performance.now() - started) / 1000;
  const drained = receiver.received.length - from.arrived;
  if (drained < MIN_DRAINED) return null;
  return {
    cpuUs: Math.round((cpuUsOf(stack.servicePid) - from.cpuUs - idleUsPerS * seconds) / drained),
    redis: perRequest(redisSpent(from.redis, await redisSnapshot(stack.nodes)), drained),
    drained,
    perS: Math.round(drained / seconds),
  };
}
