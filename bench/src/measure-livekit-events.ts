/**
 * What LiveKit's signed webhooks cost the service, by kind of event: a session's life after its create.
 * For EVENT_SESSIONS sessions created for them, one kind at a time over 16 connections: each kind's
 * service CPU, Redis commands and CPU per event, for sessions of an account without webhook endpoints
 * (the event alone) and of one with an endpoint (with the deliveries it causes, measured once the
 * receiver has been quiet for a second). The bodies are signed before the clock starts.
 */
import { signLiveKitWebhook, type WebhookReceiver } from "@dhs/testkit";
import { quiet } from "./bench-receiver.js";
import { cpuUsOf, type RedisFigures, redisFigures, redisSnapshot } from "./figures.js";
import { inParallel } from "./in-parallel.js";
import { ACCOUNT, API_KEY, EVENT_SESSIONS, LIVEKIT, QUIET } from "./settings.js";
import type { Stack } from "./stack.js";

export interface EventFigures {
  rows: {
    kind: string;
    perS: number;
    /** The event alone: sessions of an account without webhook endpoints. */
    cpuUs: number;
    redis: RedisFigures;
    /** The same event of a session whose account has an endpoint, with the deliveries it causes. */
    withDeliveriesUs: number;
    deliveries: number;
  }[];
  sessions: number;
  /** The service's CPU while idle (µs/s), taken off each kind's window. */
  idleUsPerS: number;
}

interface EventRound {
  rows: { kind: string; perS: number; cpuUs: number; redis: RedisFigures; deliveries: number }[];
}

type Signed = { body: string; authorization: string };
export type Session = { id: string; room_name: string };

/**
 * When each kind's load ran, on the clock V8's CPU profiles use (CLOCK_MONOTONIC, µs): written beside the
 * profile (BENCH_CPU_PROF) so that profile-summary can show one kind's samples alone.
 */
export const profileWindows: { kind: string; events: number; fromUs: number; toUs: number }[] = [];
export const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** Event ids: unique over the run, so no round's events are taken for another's duplicates. */
let serial = 0;

export async function measureLiveKitEvents(stack: Stack, receiver: WebhookReceiver): Promise<EventFigures> {
  // A first round, not measured, warms the event path up (in a full run the creates and gets before
  // warm up only theirs): without it the first kinds measured pay for the JIT.
  await liveKitEvents(stack, receiver, Math.min(EVENT_SESSIONS, 500), QUIET, 0);
  // What the service spends doing nothing (its timer and delivery sweeps) is not the events': each
  // kind's window (its load, then a quiet second at least) is charged that much less.
  const idleUsPerS = await idleCpu(stack, receiver);
  const alone = await liveKitEvents(stack, receiver, EVENT_SESSIONS, QUIET, idleUsPerS);
  const delivered = await liveKitEvents(stack, receiver, EVENT_SESSIONS, { key: API_KEY, accountId: ACCOUNT }, idleUsPerS);
  return {
    idleUsPerS: Math.round(idleUsPerS),
    rows: alone.rows.map((row, i) => {
      const other = delivered.rows[i] as EventRound["rows"][number];
      return { ...row, withDeliveriesUs: other.cpuUs, deliveries: other.deliveries };
    }),
    sessions: EVENT_SESSIONS,
  };
}

/** The idle service's CPU (µs/s: its timer and delivery sweeps), over 3 s once the receiver is quiet. */
export async function idleCpu(stack: Stack, receiver: WebhookReceiver): Promise<number> {
  await quiet(receiver);
  const before = cpuUsOf(stack.servicePid);
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, 3000));
  return (cpuUsOf(stack.servicePid) - before) / ((performance.now() - started) / 1000);
}

/** `count` sessions of the account, created for their events. */
export async function sessionsFor(stack: Stack, count: number, account: { key: string }): Promise<Session[]> {
  const sessions: Session[] = [];
  await inParallel(
    count,
    async (i) => {
      const made = await fetch(`${stack.serverUrl}/v1/sessions`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${account.key}`,
          "content-type": "application/json",
          "idempotency-key": `bench-events-${Date.now()}-${i}`,
        },
        body: '{"participant_identity":"bench-user"}',
      });
      if (made.status !== 201) throw new Error(`create for the events answered ${made.status}`);
      sessions.push((await made.json()) as Session);
    },
    16,
  );
  return sessions;
}

type Participant = { identity: string; kind: "STANDARD" | "AGENT" };
export const USER: Participant = { identity: "bench-user", kind: "STANDARD" };
export const AGENT: Participant = { identity: "agent-ava", kind: "AGENT" };

/** One of LiveKit's webhook events for a session's room, as LiveKit sends it (protobuf JSON). */
function liveKitEvent(kind: string, session: Session, accountId: string, participant?: Participant) {
  return {
    event: kind,
    id: `EV_bench_${++serial}`,
    createdAt: String(Math.floor(Date.now() / 1000)),
    room: {
      sid: `RM_${session.id}`,
      name: session.room_name,
      metadata: JSON.stringify({ session_id: session.id, account_id: accountId, deployment: "dhs" }),
    },
    ...(participant
      ? { participant: { sid: `PA_${participant.identity}_${session.id}`, identity: participant.identity, kind: participant.kind } }
      : {}),
  };
}

function sign(bodies: object[]): Promise<Signed[]> {
  return Promise.all(
    bodies.map(async (object) => {
      const body = JSON.stringify(object);
      return { body, authorization: await signLiveKitWebhook(body, { apiKey: LIVEKIT.key, secret: LIVEKIT.secret }) };
    }),
  );
}

/** One kind of event for each session, signed. */
export function signedEvents(kind: string, sessions: Session[], accountId: string, participant?: Participant): Promise<Signed[]> {
  return sign(sessions.map((s) => liveKitEvent(kind, s, accountId, participant)));
}

/** Posts signed events to the service's LiveKit webhook over 16 connections; each must be answered 200. */
export async function postEvents(stack: Stack, bodies: Signed[], what: string): Promise<void> {
  await inParallel(
    bodies.length,
    async (i) => {
      const { body, authorization } = bodies[i] as Signed;
      const res = await fetch(`${stack.serverUrl}/livekit/webhook`, {
        method: "POST",
        headers: { authorization, "content-type": "application/webhook+json" },
        body,
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${what}: LiveKit's webhook answered ${res.status}`);
    },
    16,
  );
}

/** Each kind of event, in the order of a session's life, signed. */
async function signedKinds(sessions: Session[], accountId: string): Promise<[string, Signed[]][]> {
  const joined = await signedEvents("participant_joined", sessions, accountId, USER);
  return [
    ["participant joined (the session becomes active)", joined],
    ["digital human joined", await signedEvents("participant_joined", sessions, accountId, AGENT)],
    ["a duplicate delivery (participant joined again, same event id)", joined],
    [
      "a room that is not this service's",
      await sign(
        sessions.map((s, i) => ({
          ...liveKitEvent("participant_joined", s, accountId, USER),
          room: { sid: `RM_other_${i}`, name: `other-room-${i}` },
        })),
      ),
    ],
    ["participant left (the departure timer starts)", await signedEvents("participant_left", sessions, accountId, USER)],
    ["room finished (the session ends)", await signedEvents("room_finished", sessions, accountId)],
  ];
}

async function liveKitEvents(
  stack: Stack,
  receiver: WebhookReceiver,
  count: number,
  account: { key: string; accountId: string },
  idleUsPerS: number,
): Promise<EventRound> {
  await quiet(receiver);
  const sessions = await sessionsFor(stack, count, account);
  await quiet(receiver);
  const kinds = await signedKinds(sessions, account.accountId);
  const rows: EventRound["rows"] = [];
  for (const [kind, bodies] of kinds) {
    const arrivedBefore = receiver.received.length;
    const redisBefore = await redisSnapshot(stack.nodes);
    const cpuBefore = cpuUsOf(stack.servicePid);
    const started = performance.now();
    const fromUs = monotonicUs();
    await postEvents(stack, bodies, kind);
    const seconds = (performance.now() - started) / 1000;
    profileWindows.push({ kind: `${account.accountId}: ${kind}`, events: bodies.length, fromUs, toUs: monotonicUs() });
    await quiet(receiver);
    const windowS = (performance.now() - started) / 1000;
    rows.push({
      kind,
      perS: Math.round(bodies.length / seconds),
      cpuUs: Math.round((cpuUsOf(stack.servicePid) - cpuBefore - idleUsPerS * windowS) / bodies.length),
      redis: redisFigures(redisBefore, await redisSnapshot(stack.nodes), bodies.length),
      deliveries: Number(((receiver.received.length - arrivedBefore) / bodies.length).toFixed(2)),
    });
  }
  return { rows };
}
