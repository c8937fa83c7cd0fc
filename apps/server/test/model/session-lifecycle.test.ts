/**
 * The session lifecycle against a small reference model, over generated sequences of what happens to a
 * session: its participant joining and leaving on several connections, the digital human and others
 * joining, LiveKit closing the room, duplicate webhook deliveries, endSession and token refreshes, the
 * clock moving so timers fire, and LiveKit's API failing every call for a while (a room's deletion is
 * then owed, and must happen once it is back). The model below is written from the contract's lifecycle tables, not from
 * the transition table, so a rule that depends on a session's data (a timer that must not fire once
 * something has happened) is checked where a state x event table cannot see it. The customer webhook
 * events the session queues are drained from the real queue after every step and compared with the
 * events the model expects (created, active and the digital human's first join once each, ended once
 * with the model's status, end reason and active seconds).
 *
 * Runs on the store of the project (memory, a real Redis, or Redis with the PostgreSQL history, whose
 * writer runs after every step: the session is in the history once it ended, once, as the model says, and
 * a step lets Redis forget it once its keep is over, so reads come from the history). MODEL_SEED replays a run; MODEL_RUNS
 * changes how many sequences (each up to MAX_COMMANDS steps) are tried. Two runs each time: a fixed
 * seed, and a fresh one printed for replay.
 *
 * The session is a test key's, so the sequences also drive it with the test helpers
 * (sendTestSessionEvent): their events are the same events (a new connection joining, the session's
 * connection leaving, the digital human, the room closed) and `time_passed` moves the session's deadlines
 * as the clock would, without the clock; the model applies them with the same rules. A live key's
 * session takes the same path: the mode only names whose data it is.
 *
 * On Redis a session's end takes steps across slots (the session's, its account's): a step can make the
 * replica handling the next end die right after storing it, before it gives back the session's place
 * among the account's open sessions or carries out the end's effects; the sequence goes on as if another
 * replica took over, and the account's count of open sessions and its usage must come right all the same.
 */
import type { Session, TestSessionEvent } from "@dhs/contract";
import type { TestDatabase } from "@dhs/testkit";
import fc from "fast-check";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { AccountLimits } from "../../src/domain/accounts/account-limits.js";
import { dataOwner, type Principal } from "../../src/domain/accounts/api-keys.js";
import type { AppError } from "../../src/domain/app-error.js";
import type { WebhookStore } from "../../src/domain/customer-webhooks/ports.js";
import { DependencyUnavailableError } from "../../src/domain/dependency-errors.js";
import { DigitalHumanCatalog } from "../../src/domain/digital-humans/digital-human-catalog.js";
import type { CreateRoomRequest, SessionStore } from "../../src/domain/sessions/ports.js";
import { type RoomEvent, SessionService } from "../../src/domain/sessions/session-service.js";
import { TranscriptService } from "../../src/domain/transcripts/transcript-service.js";
import { MemoryWebhookStore } from "../../src/store/memory/customer-webhook-store.js";
import { MemorySessionStore } from "../../src/store/memory/session-store.js";
import { MemoryTranscriptStore } from "../../src/store/memory/transcript-store.js";
import { PostgresSessionHistory } from "../../src/store/postgres/session-history.js";
import { PostgresUsageHistory } from "../../src/store/postgres/usage-history.js";
import { connectRedis } from "../../src/store/redis/client.js";
import { RedisWebhookStore } from "../../src/store/redis/customer-webhook-store.js";
import { keyspace } from "../../src/store/redis/keys.js";
import { RedisSessionStore, type StoreStep } from "../../src/store/redis/session-store.js";
import { RedisTranscriptStore } from "../../src/store/redis/transcript-store.js";
import { HistoryWriter } from "../../src/workers/history-writer.js";
import { sessionTimers, TimerSweeper } from "../../src/workers/timer-sweeper.js";
import { databaseFrom, testPool } from "../support/database.js";
import { sessionSettings, stockPersonas, VOICES } from "../support/session-fixtures.js";

const STORE = (process.env.DHS_TEST_STORE ?? "memory") as "memory" | "redis" | "cluster";
// Fewer sequences where each step costs more round trips (a sweep asks every timer shard; on Redis the
// history writer writes to PostgreSQL).
const RUNS = Number(process.env.MODEL_RUNS ?? { memory: 1000, redis: 300, cluster: 200 }[STORE]);
// With the PostgreSQL history: how long Redis keeps a written session (longer than the transcript's grace,
// as the configuration requires).
const KEEP_MS = 3600_000;
const MAX_COMMANDS = 40;
// A bound for a hang, not a pace: the same sequences took over 120 s on a starved CI machine.
const MODEL_TIMEOUT_MS = 600_000;
const FIXED_SEED = 20261123;

// Seconds, chosen apart so that two deadlines rarely fall on the same millisecond.
const D = { join: 600, digitalHuman: 60, maxDuration: 1800, departure: 30, redispatch: 5, retention: 30 * 86_400, transcriptGrace: 60 };
// The contract promises a check "after 5 s, then less and less often"; the service waits at most 60 s.
const MAX_DISPATCH_WAIT_MS = D.redispatch * 1000 + 60_000;
const SIDS = ["PA_1", "PA_2", "PA_3"] as const;
const PARTICIPANT = "user-1";
const principal: Principal = {
  keyId: "key_m",
  accountId: dataOwner("acct_model", "test"),
  account: "acct_model",
  mode: "test",
  scopes: new Set(["sessions:read", "sessions:write"]),
};

type Status = "created" | "active" | "completed" | "cancelled" | "failed";

/** The reference: what the contract says a session does, kept as plainly as it can be. */
class Model {
  status: Status = "created";
  endReason: string | null = null;
  digitalHumanJoined = false;
  digitalHumanPresent = false;
  connection: string | null = null;
  leftAt: number | null = null;
  deadlines: { join: number; digitalHuman: number | null; maxDuration: number | null; departure: number | null; lost: number | null };
  /** Since when the digital human has been absent with no live job for it (the service must dispatch). */
  unservedSince: number | null = null;
  dispatchesThen = 0;
  roomsDeletedAfterEnd = 0;
  /** The webhook events the session must have queued. */
  events: string[] = ["session.created"];

  constructor(readonly createdAt: number) {
    this.deadlines = { join: createdAt + D.join * 1000, digitalHuman: null, maxDuration: null, departure: null, lost: null };
  }

  get terminal(): boolean {
    return this.status === "completed" || this.status === "cancelled" || this.status === "failed";
  }

  private end(reason: string): void {
    this.status =
      this.status === "created"
        ? "cancelled"
        : reason === "digital_human_timeout" || reason === "digital_human_lost"
          ? "failed"
          : "completed";
    this.endReason = reason;
    this.events.push("session.ended");
  }

  participantJoined(sid: string, now: number): void {
    if (this.terminal) return void this.roomsDeletedAfterEnd++;
    if (this.status === "created") {
      this.status = "active";
      this.events.push("session.active");
      this.deadlines.maxDuration = now + D.maxDuration * 1000;
      if (!this.digitalHumanPresent) {
        if (this.digitalHumanJoined) this.deadlines.lost = now + D.digitalHuman * 1000;
        else this.deadlines.digitalHuman = now + D.digitalHuman * 1000;
      }
    }
    this.connection = sid;
    this.leftAt = null;
    this.deadlines.departure = null;
  }

  participantLeft(sid: string, now: number): void {
    if (this.status !== "active" || sid !== this.connection || this.leftAt !== null) return;
    this.leftAt = now;
    this.deadlines.departure = now + D.departure * 1000;
  }

  digitalHumanJoins(): void {
    if (this.terminal) return void this.roomsDeletedAfterEnd++;
    if (!this.digitalHumanJoined) this.events.push("session.digital_human_joined");
    this.digitalHumanJoined = true;
    this.digitalHumanPresent = true;
    this.deadlines.digitalHuman = null;
    this.deadlines.lost = null;
  }

  digitalHumanLeaves(now: number): void {
    if (this.terminal || !this.digitalHumanPresent) return;
    this.digitalHumanPresent = false;
    if (this.status === "active") this.deadlines.lost = now + D.digitalHuman * 1000;
  }

  /** Follows whether the digital human is absent with nothing to bring it (no live job), and since when. */
  track(now: number, liveJob: boolean, dispatches: number): void {
    const unserved = !this.terminal && !this.digitalHumanPresent && !liveJob;
    if (!unserved) this.unservedSince = null;
    else if (this.unservedSince === null) {
      this.unservedSince = now;
      this.dispatchesThen = dispatches;
    }
  }

  otherJoins(): void {
    if (this.terminal) this.roomsDeletedAfterEnd++;
  }

  /**
   * LiveKit closed the room (its own timeouts, or deleted outside the API). The contract's end reasons
   * name the cause: a participant who had left, nobody joining within the join timeout, else the room.
   */
  roomFinished(now: number): void {
    if (this.terminal) return;
    if (this.status === "active" && this.leftAt !== null) this.end("participant_left");
    else if (this.status === "created" && now >= this.deadlines.join) this.end("join_timeout");
    else this.end("room_finished");
  }

  endRequested(): void {
    if (!this.terminal) this.end("user_ended");
  }

  /** The deadlines that are due by `now`, earliest first, as [reason, at]. */
  due(now: number): [string, number][] {
    if (this.terminal) return [];
    const { join, digitalHuman, maxDuration, departure, lost } = this.deadlines;
    const candidates: [string, number | null][] =
      this.status === "created"
        ? [["join_timeout", join]]
        : [
            ["digital_human_timeout", digitalHuman],
            ["max_duration", maxDuration],
            ["participant_left", departure],
            ["digital_human_lost", lost],
          ];
    return candidates.filter((c): c is [string, number] => c[1] !== null && c[1] <= now).sort((a, b) => a[1] - b[1]);
  }

  timerFired(reason: string): void {
    this.end(reason);
  }

  /** Time passed for this session alone (a test helper): its later deadlines come that much closer. */
  deadlinesCloser(ms: number, now: number): void {
    for (const key of Object.keys(this.deadlines) as (keyof Model["deadlines"])[]) {
      const at = this.deadlines[key];
      if (at !== null) this.deadlines[key] = Math.max(now, at - ms);
    }
  }
}

// LiveKit's own room timeouts when CreateRoom leaves them unset (livekit-server's defaults).
const LIVEKIT_DEFAULT_EMPTY_TIMEOUT_S = 300;
const LIVEKIT_DEFAULT_DEPARTURE_TIMEOUT_S = 20;

/**
 * LiveKit's rooms and agent jobs, as far as the service can see them. The room closes by itself as
 * livekit-server closes it: once nobody but agents is in it, after its departure timeout from the last
 * departure if a participant (not an agent) ever joined, else after its empty timeout from its creation;
 * each as the service's CreateRoom set it, or LiveKit's default.
 */
class FakeRooms {
  /** The room as LiveKit holds it; closed once deleted or closed by LiveKit's own timeouts. */
  room = {
    open: false,
    createdAt: 0,
    emptyTimeoutS: 0,
    departureTimeoutS: 0,
    firstJoinedAt: null as number | null,
    lastLeftAt: null as number | null,
    present: new Set<string>(),
  };
  /** A dispatch of the digital human has a job that is pending or running. */
  liveJob = false;
  dispatches = 0;
  /** Dispatches made while a live job existed: a doubled digital human. */
  doubled = 0;
  /** LiveKit's API refuses every call (its webhooks and its own timeouts go on). */
  down = false;
  /** LiveKit was down at some point of this sequence. */
  wasDown = false;
  constructor(private readonly clock: { now: number }) {}
  private reachable(): void {
    if (this.down) throw new DependencyUnavailableError("livekit");
  }
  async createRoom(request: CreateRoomRequest): Promise<void> {
    this.reachable();
    this.liveJob = true;
    this.room = {
      open: true,
      createdAt: this.clock.now,
      emptyTimeoutS: request.emptyTimeoutS || LIVEKIT_DEFAULT_EMPTY_TIMEOUT_S,
      departureTimeoutS: request.departureTimeoutS || LIVEKIT_DEFAULT_DEPARTURE_TIMEOUT_S,
      firstJoinedAt: null,
      lastLeftAt: null,
      present: new Set(),
    };
  }
  /** A participant's connection (not an agent's) joined or left the room. */
  joined(sid: string): void {
    if (!this.room.open) return;
    this.room.present.add(sid);
    this.room.firstJoinedAt ??= this.clock.now;
  }
  /** Any participant leaving, agents included, restarts LiveKit's departure timeout. */
  left(sid: string | null): void {
    if (!this.room.open) return;
    if (sid !== null && !this.room.present.delete(sid)) return;
    this.room.lastLeftAt = this.clock.now;
  }
  /** When LiveKit will close the room by itself, as things stand; null while it stays open. */
  closesAt(): number | null {
    const { open, present, firstJoinedAt, lastLeftAt, createdAt, emptyTimeoutS, departureTimeoutS } = this.room;
    if (!open || present.size > 0) return null;
    return firstJoinedAt !== null && lastLeftAt !== null ? lastLeftAt + departureTimeoutS * 1000 : createdAt + emptyTimeoutS * 1000;
  }
  async hasLiveAgentJob(): Promise<boolean> {
    this.reachable();
    return this.liveJob;
  }
  async dispatchAgent(): Promise<void> {
    this.reachable();
    if (this.liveJob) this.doubled++;
    this.dispatches++;
    this.liveJob = true;
  }
  async deleteRoom(): Promise<void> {
    this.reachable();
    this.room.open = false;
  }
}

/** A replica dying in the middle of a change (the store throws it at the step it dies after). */
class Crash extends Error {}

/** Whether an error is the replica's crash (the store's guard wraps it). */
const isCrash = (error: unknown) => error instanceof Crash || (error instanceof Error && error.cause instanceof Crash);

/**
 * What LiveKit being down does to a call: it fails with DependencyUnavailableError, nothing else. A
 * replica that died in the middle of it fails it too: the change it stored stands, its effects are owed.
 */
async function livekitMayFail(real: Real, call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (error) {
    if (isCrash(error)) return;
    if (!(real.rooms.down && error instanceof DependencyUnavailableError)) throw error;
  }
}

interface Real {
  service: SessionService;
  sweeper: TimerSweeper;
  store: SessionStore;
  rooms: FakeRooms;
  clock: { now: number };
  session: Session;
  /** ended_at as first seen, to check it is set once. */
  endedAt: string | null;
  lastEvent: { id: string; event: RoomEvent } | undefined;
  events: number;
  hooks: WebhookStore;
  /** Its keys' prefix on Redis. */
  prefix: string;
  /** The webhook events drained from the queue so far: type and data. */
  delivered: { type: string; timestamp: string; data: Record<string, any> }[];
  /** The step after which the replica handling the next change dies, if one is to. */
  crash: { at: StoreStep | null; happened: boolean };
  /** With the PostgreSQL history: its writer (run after every step) and the database, to count rows. */
  history?: { writer: HistoryWriter; db: pg.Pool };
}

/** Takes every queued webhook delivery off the real queue, as a dispatcher would, and keeps its event. */
async function drainEvents(real: Real): Promise<void> {
  const far = Number.MAX_SAFE_INTEGER - 1e12;
  for (const account of await real.hooks.claimDueAccounts(far, 1, 100)) {
    const claims = await real.hooks.claimDeliveries(account, far, 1, { max: 1000, perEndpoint: 1000, busy: new Map() });
    for (const claim of claims) {
      const { body } = await real.hooks.loadDelivery(claim);
      const payload = JSON.parse(body ?? "{}") as { type: string; timestamp: string; data: Record<string, any> };
      if (payload.data?.id === real.session.id || payload.data?.session_id === real.session.id) real.delivered.push(payload);
      await real.hooks.finishDelivery(claim, { kind: "done" }, null, "succeeded", far);
    }
  }
}

/**
 * A LiveKit webhook. One whose effects fail while LiveKit is down has still changed the session (the
 * change is stored first); its delivery fails, and LiveKit's redelivery changes nothing more.
 */
/** A test helper's event (sendTestSessionEvent), as a test key sends it. */
async function helper(real: Real, event: TestSessionEvent): Promise<void> {
  await livekitMayFail(real, () => real.service.testEvent(principal, real.session.id, event));
}

async function webhook(real: Real, event: RoomEvent): Promise<void> {
  const id = `EV_${++real.events}_${real.session.id}`;
  real.lastEvent = { id, event };
  await livekitMayFail(real, () => real.service.onLiveKitEvent(id, principal.accountId, real.session.id, event));
}

/** Compares the service with the model after every step, and checks the lifecycle's invariants. */
async function check(model: Model, real: Real): Promise<void> {
  await drainEvents(real);
  if (real.history) await historyAgrees(model, real, real.history);
  // Each expected event exactly once; deliveries promise no order (events of one step may come either way).
  const ready = real.delivered.filter((e) => e.type === "session.transcript_ready");
  const lifecycle = real.delivered.filter((e) => e.type !== "session.transcript_ready");
  expect(lifecycle.map((e) => e.type).sort()).toEqual([...model.events].sort());
  // The transcript's event: at most once, only once the session ended and its grace passed (no `final`
  // is ever said here); transcriptReadyOnce checks that it comes at all.
  expect(ready.length).toBeLessThanOrEqual(1);
  const ended = real.delivered.find((e) => e.type === "session.ended");
  if (ended) {
    expect({ status: ended.data.status, end_reason: ended.data.end_reason }).toEqual({ status: model.status, end_reason: model.endReason });
    const { started_at, ended_at } = ended.data;
    expect(ended.data.duration_seconds).toBe(started_at ? Math.ceil((Date.parse(ended_at) - Date.parse(started_at)) / 1000) : 0);
  }
  const [item] = (await real.service.list(principal, { limit: 100 })).items.filter((s) => s.id === real.session.id);
  const view = await real.service.get(principal, real.session.id);
  expect({ status: item?.status, end_reason: item?.end_reason }).toEqual({ status: model.status, end_reason: model.endReason });
  // A digital human that joined is never the reason a session failed.
  if (item?.digital_human_joined_at) expect(item.end_reason).not.toBe("digital_human_timeout");
  // The token is null exactly when the session is terminal.
  expect(view.participant_token === null).toBe(model.terminal);
  // The account's count of open sessions and its usage agree with the session: at once, or, after a
  // replica died in the middle of its end, once a timer of the ended session has fired (or the next
  // create at the cap repairs the account).
  if (!real.crash.happened) await expectAccountAgrees(model, real);
  if (model.terminal) {
    // ended_at is set once and never moves.
    real.endedAt ??= view.ended_at;
    expect(view.ended_at).toBe(real.endedAt);
    expect(view.ended_at).not.toBeNull();
    if (ready[0]) {
      expect(Date.parse(ready[0].timestamp)).toBeGreaterThanOrEqual(Date.parse(view.ended_at as string) + D.transcriptGrace * 1000);
      expect(ready[0].data).toEqual({ session_id: real.session.id, segment_count: 0 });
    }
    // Every terminal session's room is gone: deleted by us, or closed by LiveKit itself. Once LiveKit
    // has been down, a deletion may be pending: eventuallyNoRoom checks it at the sequence's end.
    if (!real.rooms.wasDown && !real.crash.happened)
      expect(real.rooms.room.open, "the room of a terminal session is still open").toBe(false);
  } else {
    expect(view.ended_at).toBeNull();
    expect(ready).toEqual([]);
  }
  // The digital human is never dispatched twice at once, and one that is missing with no job to bring
  // it is dispatched again within the checks' longest wait.
  expect(real.rooms.doubled).toBe(0);
  // While LiveKit is down nobody can dispatch: the wait for a dispatch starts once it is back.
  model.track(real.clock.now, real.rooms.liveJob || real.rooms.down, real.rooms.dispatches);
  if (model.unservedSince !== null && real.clock.now - model.unservedSince >= MAX_DISPATCH_WAIT_MS) {
    expect(real.rooms.dispatches, "a missing digital human was not dispatched again").toBeGreaterThan(model.dispatchesThen);
  }
}

/**
 * With the PostgreSQL history, after the writer wrote what was queued: a terminal session is there once,
 * as the model says it ended; an open one is not there at all.
 */
async function historyAgrees(model: Model, real: Real, history: NonNullable<Real["history"]>): Promise<void> {
  await history.writer.drain();
  const { rows } = await history.db.query<{ status: string; end_reason: string | null }>(
    "SELECT status, record->>'end_reason' AS end_reason FROM sessions WHERE id = $1",
    [real.session.id],
  );
  expect(rows, "rows of the session in the history").toEqual(model.terminal ? [{ status: model.status, end_reason: model.endReason }] : []);
}

/** The account's open sessions and usage counters, as the model's one session says they must be. */
async function expectAccountAgrees(model: Model, real: Real): Promise<void> {
  expect(await real.store.openSessions(principal.accountId), "open sessions").toBe(model.terminal ? 0 : 1);
  const days = [0, 1, 2].map((d) => new Date(Date.parse(real.session.created_at) + d * 86_400_000).toISOString().slice(0, 10));
  const counters: Record<string, number> = {};
  for (const day of await real.store.usage(principal.accountId, days)) {
    for (const [field, n] of Object.entries(day))
      if (field === "created" || field.startsWith("ended:")) counters[field] = (counters[field] ?? 0) + Number(n);
  }
  expect(counters, "usage").toEqual(model.terminal ? { created: 1, [`ended:${model.status}`]: 1 } : { created: 1 });
}

type Cmd = fc.AsyncCommand<Model, Real>;

/** Steps run, over every sequence (shrinking included), for the report. */
let stepsRun = 0;
/** Sequences whose session Redis forgot, so that reads came from the history, for the report. */
let forgotten = 0;
const reportForgotten = () => (STORE !== "memory" ? `, ${forgotten} of them read from the history once Redis forgot the session` : "");

const step = (name: string, run: (m: Model, r: Real) => Promise<void>): Cmd => ({
  check: () => true,
  run: async (m, r) => {
    stepsRun++;
    await run(m, r);
    await check(m, r);
  },
  toString: () => name,
});

const commands = [
  fc.constantFrom(...SIDS).map((sid) =>
    step(`participant joins (${sid})`, async (m, r) => {
      r.rooms.joined(sid);
      await webhook(r, { type: "participant_joined", identity: PARTICIPANT, sid, isAgent: false });
      m.participantJoined(sid, r.clock.now);
    }),
  ),
  fc.constantFrom(...SIDS).map((sid) =>
    step(`participant leaves (${sid})`, async (m, r) => {
      r.rooms.left(sid);
      await webhook(r, { type: "participant_left", identity: PARTICIPANT, sid, isAgent: false });
      m.participantLeft(sid, r.clock.now);
    }),
  ),
  fc.constant(
    step("digital human joins", async (m, r) => {
      await webhook(r, { type: "participant_joined", identity: "agent-ava", sid: "PA_agent", isAgent: true });
      m.digitalHumanJoins();
    }),
  ),
  fc.boolean().map((jobEnds) =>
    step(`digital human leaves (${jobEnds ? "its job ends: the worker crashed" : "its job goes on: a network blip"})`, async (m, r) => {
      r.rooms.left(null);
      await webhook(r, { type: "participant_left", identity: "agent-ava", sid: "PA_agent", isAgent: true });
      if (jobEnds) r.rooms.liveJob = false;
      m.digitalHumanLeaves(r.clock.now);
    }),
  ),
  fc.constant(
    step("the digital human's job ends before it joined (no worker took it)", async (_m, r) => {
      r.rooms.liveJob = false;
    }),
  ),
  fc.constant(
    step("someone else joins and leaves", async (m, r) => {
      r.rooms.joined("PA_obs");
      await webhook(r, { type: "participant_joined", identity: "observer", sid: "PA_obs", isAgent: false });
      r.rooms.left("PA_obs");
      await webhook(r, { type: "participant_left", identity: "observer", sid: "PA_obs", isAgent: false });
      m.otherJoins();
    }),
  ),
  fc.constant(
    step("the last webhook is delivered again", async (_m, r) => {
      const last = r.lastEvent;
      if (last) await livekitMayFail(r, () => r.service.onLiveKitEvent(last.id, principal.accountId, r.session.id, last.event));
    }),
  ),
  fc.constant(
    step("LiveKit's API goes down (every call fails)", async (_m, r) => {
      r.rooms.down = true;
      r.rooms.wasDown = true;
    }),
  ),
  fc.constant(
    step("LiveKit's API comes back", async (_m, r) => {
      r.rooms.down = false;
    }),
  ),
  fc.constant(
    step("the room is deleted outside this API", async (m, r) => {
      r.rooms.room.open = false;
      await webhook(r, { type: "room_finished" });
      m.roomFinished(r.clock.now);
    }),
  ),
  fc.constant(
    step("endSession", async (m, r) => {
      // LiveKit down: 503, and the session is unchanged (the room could not be deleted).
      if (r.rooms.down && !m.terminal) {
        await expect(r.service.end(principal, r.session.id)).rejects.toBeInstanceOf(DependencyUnavailableError);
        return;
      }
      await r.service.end(principal, r.session.id).catch((error: unknown) => {
        if (!isCrash(error)) throw error;
      });
      m.endRequested();
    }),
  ),
  fc.constant(
    step("refreshSessionToken", async (m, r) => {
      const refreshed = await r.service.refreshToken(principal, r.session.id).then(
        (s) => s,
        (error: unknown) => error,
      );
      if (m.terminal) expect(refreshed).toMatchObject({ code: "session_not_connectable" } satisfies Partial<AppError>);
      else expect((refreshed as Session).participant_token).toEqual(expect.any(String));
    }),
  ),
  // The clock: a little (a reload), about a timer's length, or far; then the sweeper runs. Should LiveKit
  // close the room by its own timeouts before the earliest deadline of the session, it does so then.
  fc
    .oneof(fc.integer({ min: 1, max: 5_000 }), fc.integer({ min: 5_000, max: 90_000 }), fc.integer({ min: 90_000, max: 2_000_000 }))
    .map((ms) =>
      step(`${ms} ms pass`, async (m, r) => {
        const target = r.clock.now + ms;
        const closesAt = r.rooms.closesAt();
        const firstDeadline = m.due(target)[0]?.[1];
        if (closesAt !== null && closesAt <= target && (firstDeadline === undefined || closesAt < firstDeadline)) {
          r.clock.now = Math.max(r.clock.now, closesAt);
          await r.sweeper.sweep();
          r.rooms.room.open = false;
          await webhook(r, { type: "room_finished" });
          m.roomFinished(r.clock.now);
        }
        r.clock.now = target;
        const due = m.due(r.clock.now);
        await r.sweeper.sweep();
        if (due.length === 0) return;
        // Deadlines that fall on the same millisecond may fire in either order: take the one that did.
        const tied = due.filter(([, at]) => at === (due[0] as [string, number])[1]).map(([reason]) => reason);
        const [item] = (await r.service.list(principal, { limit: 100 })).items.filter((s) => s.id === r.session.id);
        m.timerFired(tied.includes(item?.end_reason ?? "") ? (item?.end_reason as string) : (tied[0] as string));
      }),
    ),
];

// The test helpers: the same events, sent by a test key instead of LiveKit, and time passing for the
// session alone.
let helperConnections = 0;
commands.push(
  fc.constant(
    step("test helper: participant_joined (a new connection)", async (m, r) => {
      await helper(r, { type: "participant_joined" });
      m.participantJoined(`helper-${++helperConnections}`, r.clock.now);
    }),
  ),
  fc.constant(
    step("test helper: participant_left (the session's connection)", async (m, r) => {
      await helper(r, { type: "participant_left" });
      if (m.connection !== null) m.participantLeft(m.connection, r.clock.now);
    }),
  ),
  fc.constant(
    step("test helper: digital_human_joined", async (m, r) => {
      await helper(r, { type: "digital_human_joined" });
      m.digitalHumanJoins();
    }),
  ),
  fc.constant(
    step("test helper: digital_human_left", async (m, r) => {
      await helper(r, { type: "digital_human_left" });
      m.digitalHumanLeaves(r.clock.now);
    }),
  ),
  fc.constant(
    step("test helper: room_finished", async (m, r) => {
      // The helper closes the room for real first; with LiveKit down it answers 503 and nothing changes.
      const down = r.rooms.down && !m.terminal;
      await helper(r, { type: "room_finished" });
      if (!down) m.roomFinished(r.clock.now);
    }),
  ),
  fc.oneof(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 5, max: 90 }), fc.integer({ min: 90, max: 2_000 })).map((seconds) =>
    step(`test helper: time_passed ${seconds} s`, async (m, r) => {
      const due = m.due(r.clock.now + seconds * 1000);
      await helper(r, { type: "time_passed", seconds });
      if (due.length === 0) return m.deadlinesCloser(seconds * 1000, r.clock.now);
      // Deadlines on the same millisecond may fire in either order: take the one that did.
      const tied = due.filter(([, at]) => at === (due[0] as [string, number])[1]).map(([reason]) => reason);
      const [item] = (await r.service.list(principal, { limit: 100 })).items.filter((s) => s.id === r.session.id);
      m.timerFired(tied.includes(item?.end_reason ?? "") ? (item?.end_reason as string) : (tied[0] as string));
    }),
  ),
);

// With the history, Redis lets a written session go once its keep is over: every read is the history's then.
if (STORE !== "memory") {
  commands.push(
    fc.constant(
      step("Redis forgets the written session once its keep is over", async (m, r) => {
        if (!m.terminal || r.endedAt === null || !r.history) return;
        r.clock.now = Math.max(r.clock.now, Date.parse(r.endedAt) + KEEP_MS);
        // Time passed: what was due fired, and the writer wrote what that changed.
        await r.sweeper.sweep();
        await r.history.writer.drain();
        // Only what the writer gave a keep (a session whose room's deletion is owed keeps its retention).
        const { redis } = r.store as RedisSessionStore;
        const key = keyspace(r.prefix).session(r.session.id);
        const ttl = await redis.pttl(key);
        if (ttl < 0 || ttl > KEEP_MS) return;
        await redis.del(key);
        forgotten++;
      }),
    ),
  );
}

// On Redis, a replica can die between storing a session's end and what follows it.
if (STORE !== "memory") {
  commands.push(
    fc.constant(
      step("the replica handling the next end dies right after storing it", async (_m, r) => {
        r.crash.at = "end:replaced";
      }),
    ),
  );
}

describe(`the session lifecycle against its model (${STORE} store)`, () => {
  let redis: ReturnType<typeof connectRedis> | undefined;
  let database: TestDatabase | undefined;
  let db: pg.Pool | undefined;
  beforeAll(async () => {
    if (STORE === "memory") return;
    database = await databaseFrom(inject("databaseTemplate"));
    db = testPool(database.url, 4);
    redis = connectRedis({ url: inject("redisUrl"), mode: inject("redisMode"), commandTimeoutMs: 2000 });
    // No offline queue: wait until the connection is up.
    if (redis.status !== "ready") await new Promise((resolve) => redis?.once("ready", resolve));
  });
  afterAll(async () => {
    await redis?.quit();
    await db?.end();
    await database?.drop();
  });

  async function setup(): Promise<{ model: () => Model; real: () => Real }> {
    const clock = { now: Date.parse("2026-11-23T10:00:00.000Z") };
    const now = () => clock.now;
    const prefix = `model${crypto.randomUUID().slice(0, 8)}`;
    const memoryHooks = new MemoryWebhookStore(now);
    const hooks: WebhookStore = redis ? new RedisWebhookStore(redis, prefix) : memoryHooks;
    const crash: Real["crash"] = { at: null, happened: false };
    // Each sequence's Redis is a prefix of its own; its history starts empty too (one account for all).
    await db?.query("TRUNCATE sessions, usage_counts, usage_moves");
    const history = db
      ? {
          sessions: new PostgresSessionHistory(db, {
            retentionMs: D.retention * 1000,
            maxLifeMs: (D.join + D.maxDuration + D.departure) * 1000,
            now,
          }),
          usage: new PostgresUsageHistory(db),
        }
      : undefined;
    const store: SessionStore = redis
      ? new RedisSessionStore(redis, {
          prefix,
          ...(history ? { history } : {}),
          afterStep: (step) => {
            if (step !== crash.at) return;
            crash.at = null;
            crash.happened = true;
            throw new Crash(`the replica died after ${step}`);
          },
        })
      : new MemorySessionStore(now, memoryHooks);
    await hooks.createEndpoint(
      {
        id: "we_000000000000000000000001",
        accountId: principal.accountId,
        url: "https://example.test/hooks",
        eventTypes: ["*"],
        description: null,
        status: "enabled",
        disabledReason: null,
        createdAtMs: clock.now,
        secrets: [{ secret: "whsec_model", expiresAtMs: null }],
        failingSinceMs: null,
      },
      10,
    );
    const rooms = new FakeRooms(clock);
    // The model's own durations (D), spelled out: the reference computes its deadlines from them.
    const durations = {
      joinTimeoutS: D.join,
      digitalHumanJoinTimeoutS: D.digitalHuman,
      maxDurationS: D.maxDuration,
      departureTimeoutS: D.departure,
      redispatchS: D.redispatch,
      retentionS: D.retention,
    };
    const catalog = new DigitalHumanCatalog([{ id: "6f1c2d0e-8b7a-4c55-9a9e-2f3b1d4c5e6f", name: "Ava", agent_name: "ava" }], VOICES);
    const service = new SessionService({
      store,
      rooms: rooms as never,
      tokens: { mint: async ({ identity }) => `token-for-${identity}` },
      accounts: new AccountLimits(1000),
      catalog,
      personas: stockPersonas(catalog),
      settings: sessionSettings({ durations }),
      now: () => new Date(clock.now),
    });
    // No digital human posts segments here: the transcript of every ended session is complete (empty)
    // once the grace after its end passed, and session.transcript_ready is sent then, once.
    const transcripts = new TranscriptService({
      sessions: store,
      transcripts: redis ? new RedisTranscriptStore(redis, prefix) : new MemoryTranscriptStore(now),
      durations,
      graceMs: D.transcriptGrace * 1000,
      eventRetainMs: 86_400_000,
      now: () => new Date(clock.now),
    });
    const sweeper = new TimerSweeper(
      store,
      sessionTimers(service, {
        transcript_ready: (accountId, sessionId) => transcripts.settle(accountId, sessionId),
        // No session of this model is driven, so none has a conversation timer (conversation-delivery.test.ts models those).
        conversation: () => Promise.reject(new Error("no session of this model has a conversation")),
        // Nor an analysis: the model's digital humans ask for none (test/api/analysis.test.ts tests those).
        analysis: () => Promise.reject(new Error("no session of this model has an analysis")),
        // Nor a recording (test/api/recordings.test.ts).
        recording: () => Promise.reject(new Error("no session of this model is recorded")),
      }),
      {
        intervalMs: 1000,
        leaseMs: 30_000,
        batch: 100,
        now,
        // A timer whose effects need LiveKit fails while it is down, and is tried again later; one whose
        // replica died after storing the change it made is left to its obligations.
        onError: (error) => {
          if (isCrash(error)) return;
          if (!(rooms.down && error instanceof DependencyUnavailableError)) throw error;
        },
      },
    );
    const { session } = await service.create(principal, crypto.randomUUID(), { participant_identity: PARTICIPANT });
    const real: Real = {
      service,
      sweeper,
      store,
      rooms,
      clock,
      session,
      endedAt: null,
      lastEvent: undefined,
      events: 0,
      hooks,
      delivered: [],
      crash,
      prefix,
      ...(history && db
        ? {
            history: {
              writer: new HistoryWriter(
                {
                  ...history,
                  queue: (store as RedisSessionStore).historyQueue,
                  usageMoves: (store as RedisSessionStore).usageMoves,
                  leases: store,
                },
                {
                  intervalMs: 60_000,
                  leaseMs: 30_000,
                  batch: 100,
                  keepMs: KEEP_MS,
                  holder: "model",
                  // The queue is scored by the store's own clock, not the model's.
                },
              ),
              db,
            },
          }
        : {}),
    };
    const model = new Model(clock.now);
    return { model: () => model, real: () => real };
  }

  /**
   * After a sequence: LiveKit is back, and within the longest wait between two tries of a room's
   * deletion (5 minutes) a terminal session's room is deleted, however long LiveKit was down, and every
   * deletion it owed is settled (noTimersLeft then finds none).
   */
  async function eventuallyNoRoom(real: Real, model: Model): Promise<void> {
    if (!model.terminal) return;
    real.rooms.down = false;
    for (let minute = 0; minute < 6; minute++) {
      real.clock.now += 60_000;
      await real.sweeper.sweep();
    }
    expect(real.rooms.room.open, "the room of a terminal session was never deleted").toBe(false);
  }

  /** After a sequence: the account agrees with its session, whatever replica died on the way. */
  async function accountAgrees(real: Real, model: Model): Promise<void> {
    if (model.terminal) {
      real.clock.now += 60 * 60_000;
      await real.sweeper.sweep();
    }
    await expectAccountAgrees(model, real);
  }

  /** After a sequence: an ended session's transcript was announced exactly once; an open one's never. */
  async function transcriptReadyOnce(real: Real, model: Model): Promise<void> {
    if (model.terminal) {
      real.clock.now += (D.transcriptGrace + 1) * 1000;
      await real.sweeper.sweep();
      await real.sweeper.sweep();
    }
    await drainEvents(real);
    expect(real.delivered.filter((e) => e.type === "session.transcript_ready")).toHaveLength(model.terminal ? 1 : 0);
  }

  /**
   * After a sequence: a terminal session has no timer left at all; nothing of it stays in the shared
   * timer sets (it expires with its retention by itself).
   */
  async function noTimersLeft(real: Real, model: Model): Promise<void> {
    if (!model.terminal) return;
    const left = await real.store.claimDueTimers(Number.MAX_SAFE_INTEGER - 60_000, 1, 1000);
    expect(left.filter((t) => t.sessionId === real.session.id).map((t) => t.timer)).toEqual([]);
  }

  const property = fc.asyncProperty(fc.commands(commands, { maxCommands: MAX_COMMANDS, size: "max" }), async (cmds) => {
    const { model, real } = await setup();
    await fc.asyncModelRun(() => ({ model: model(), real: real() }), cmds);
    await eventuallyNoRoom(real(), model());
    await accountAgrees(real(), model());
    await transcriptReadyOnce(real(), model());
    await noTimersLeft(real(), model());
  });

  it(
    `holds over ${RUNS} sequences of up to ${MAX_COMMANDS} steps (fixed seed ${FIXED_SEED})`,
    async () => {
      stepsRun = 0;
      forgotten = 0;
      await fc.assert(property, { numRuns: RUNS, seed: FIXED_SEED });
      console.log(
        `model-based lifecycle test (${STORE}): fixed seed ${FIXED_SEED}, ${RUNS} sequences, ${stepsRun} steps${reportForgotten()}`,
      );
    },
    MODEL_TIMEOUT_MS,
  );

  const freshSeed = Number(process.env.MODEL_SEED ?? Date.now() % 2 ** 31);
  it(
    `holds over ${RUNS} sequences of up to ${MAX_COMMANDS} steps (fresh seed ${freshSeed}; replay with MODEL_SEED=${freshSeed})`,
    async () => {
      stepsRun = 0;
      forgotten = 0;
      console.log(`model-based lifecycle test (${STORE}): fresh seed ${freshSeed} (replay with MODEL_SEED=${freshSeed})`);
      await fc.assert(property, { numRuns: RUNS, seed: freshSeed });
      console.log(
        `model-based lifecycle test (${STORE}): fresh seed ${freshSeed}, ${RUNS} sequences, ${stepsRun} steps${reportForgotten()}`,
      );
    },
    MODEL_TIMEOUT_MS,
  );
});
