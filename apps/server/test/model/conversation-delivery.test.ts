/**
 * Delivery of what a backend queues for a session's digital human, over generated sequences: says
 * (some cutting in), notes, interruptions, digital humans joining, pulling, starting and ending what they
 * hold, leaving the room (cutting off what they say, as a job does when its room closes) or crashing, and
 * being dispatched again while their predecessor may still talk, the clock moving so
 * the conversation's timer fires, the session ending, and replicas dying right after a write (the
 * backend then retries with the same Idempotency-Key). What must hold, checked on what the store queued
 * for the webhooks and what the jobs saw:
 *
 * - an utterance is started at most once (by one job), and utterances start in the order they were queued;
 * - a job is handed each item once, in `seq` order;
 * - an utterance is never started after its expiry; each ends once (one `session.utterance_ended`), and
 *   once the session is over and the timers ran, every one has ended: spoken or interrupted if it was
 *   started, interrupted or expired if not;
 * - a retried say with its key is the same utterance, never a second one;
 * - once the session ended, its jobs are handed nothing and their reports are refused (`session_ended`).
 *
 * Runs on the store of the project (memory, or a real Redis or Cluster). MODEL_SEED replays a run.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Principal } from "../../src/domain/accounts/api-keys.js";
import { LONGEST_UTTERANCE_MS } from "../../src/domain/conversation/conversation.js";
import { ConversationService } from "../../src/domain/conversation/conversation-service.js";
import type { ConversationStore, ConversationWrite } from "../../src/domain/conversation/ports.js";
import type { TimerQueue } from "../../src/domain/sessions/ports.js";
import type { SessionRecord } from "../../src/domain/sessions/session.js";
import { MemoryConversationStore } from "../../src/store/memory/conversation-store.js";
import { MemoryWebhookStore } from "../../src/store/memory/customer-webhook-store.js";
import { MemorySessionStore } from "../../src/store/memory/session-store.js";
import { connectRedis } from "../../src/store/redis/client.js";
import { RedisConversationStore } from "../../src/store/redis/conversation-store.js";
import { RedisSessionStore } from "../../src/store/redis/session-store.js";
import { DURATIONS, sessionRecord } from "../support/session-fixtures.js";

const STORE = (process.env.DHS_TEST_STORE ?? "memory") as "memory" | "redis" | "cluster";
const RUNS = Number(process.env.MODEL_RUNS ?? { memory: 400, redis: 150, cluster: 60 }[STORE]);
const TTL_MS = 30_000;
const LEASE_MS = 30_000;
const LIMITS = { maxQueued: 6, charactersPerMinute: 100_000, sayTtlMs: TTL_MS, maxNotes: 10 };
const T0 = Date.parse("2026-11-27T10:00:00.000Z");

type Command =
  | { kind: "say"; interrupt: boolean; retryOf: number | null }
  | { kind: "context"; respond: boolean }
  | { kind: "interrupt" }
  | { kind: "join" }
  | { kind: "pull"; job: number }
  | { kind: "start"; job: number }
  | { kind: "end"; job: number; interrupted: boolean }
  | { kind: "leave" }
  | { kind: "crash" }
  | { kind: "replicaDies" }
  | { kind: "time"; ms: number }
  | { kind: "endSession" };

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant("say" as const),
      interrupt: fc.constantFrom(false, false, false, true),
      retryOf: fc.option(fc.nat(5), { freq: 4 }),
    }),
    weight: 10,
  },
  { arbitrary: fc.record({ kind: fc.constant("context" as const), respond: fc.boolean() }), weight: 2 },
  { arbitrary: fc.constant({ kind: "interrupt" as const }), weight: 2 },
  { arbitrary: fc.constant({ kind: "join" as const }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant("pull" as const), job: fc.nat(2) }), weight: 10 },
  { arbitrary: fc.record({ kind: fc.constant("start" as const), job: fc.nat(2) }), weight: 10 },
  { arbitrary: fc.record({ kind: fc.constant("end" as const), job: fc.nat(2), interrupted: fc.boolean() }), weight: 6 },
  { arbitrary: fc.constant({ kind: "leave" as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: "crash" as const }), weight: 2 },
  { arbitrary: fc.constant({ kind: "replicaDies" as const }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("time" as const), ms: fc.integer({ min: 200, max: 6_000 }) }), weight: 5 },
  { arbitrary: fc.constant({ kind: "endSession" as const }), weight: 1 },
);

interface Job {
  identity: string;
  cursor: number;
  first: boolean;
  seenInterrupt: number;
  holds: { id: string; seq: number }[];
  speaking: string | null;
  delivered: string[];
  alive: boolean;
}

describe(`the delivery of a session's conversation (${STORE})`, () => {
  let redis: ReturnType<typeof connectRedis> | undefined;
  beforeAll(async () => {
    if (STORE === "memory") return;
    redis = connectRedis({ url: inject("redisUrl"), mode: inject("redisMode"), commandTimeoutMs: 2000 });
    if (redis.status !== "ready") await new Promise((resolve) => redis?.once("ready", resolve));
  });
  afterAll(async () => {
    await redis?.quit();
  });

  function world() {
    let now = T0;
    let session: SessionRecord = sessionRecord({ created_at: new Date(T0).toISOString() });
    const prefix = `model${crypto.randomUUID().slice(0, 8)}`;
    let conversations: ConversationStore;
    let timers: TimerQueue;
    if (redis) {
      conversations = new RedisConversationStore(redis, prefix);
      timers = new RedisSessionStore(redis, { prefix });
    } else {
      const hooks = new MemoryWebhookStore(() => now);
      const sessions = new MemorySessionStore(() => now, hooks);
      conversations = new MemoryConversationStore(hooks, sessions.state, () => now);
      timers = sessions;
    }
    const writes: ConversationWrite[] = [];
    let dies = false;
    // A replica that stores the change and dies before it answers: the caller sees an error.
    const store: ConversationStore = {
      readConversation: (a, s, f) => conversations.readConversation(a, s, f),
      readConversationFields: (s, f) => conversations.readConversationFields(s, f),
      writeConversation: async (write) => {
        const written = await conversations.writeConversation(write);
        if (written) writes.push(write);
        if (written && dies) {
          dies = false;
          throw new Error("the replica died after the write");
        }
        return written;
      },
    };
    const service = new ConversationService({
      sessions: { getSession: async () => session, findSession: async () => session },
      store,
      nudger: undefined,
      limits: LIMITS,
      durations: DURATIONS,
      eventRetainMs: 3_600_000,
      now: () => new Date(now),
    });
    return {
      service,
      timers,
      writes,
      principal: { accountId: session.account_id, mode: "live" } as unknown as Principal,
      get session() {
        return session;
      },
      get now() {
        return now;
      },
      advance: (ms: number) => {
        now += ms;
      },
      end: () => {
        session = { ...session, status: "completed", ended_at: new Date(now).toISOString() };
      },
      dieAfterNextWrite: () => {
        dies = true;
      },
    };
  }

  async function run(commands: Command[]): Promise<void> {
    const w = world();
    const jobs: Job[] = [];
    const keys: { key: string; interrupt: boolean; id: string | null }[] = [];
    const startedBy = new Map<string, string>();
    const starts: { id: string; seq: number; atMs: number }[] = [];
    const seqOf = new Map<string, number>();
    const sid = w.session.id;
    // A job whose call's answer was lost (the replica died after the write) makes the same call again.
    const retrying = async <T>(call: () => Promise<T>): Promise<T> => {
      try {
        return await call();
      } catch (error) {
        if (!String(error).includes("replica died")) throw error;
        return call();
      }
    };
    // Once the session is over, its job is handed nothing and its reports are refused: the end settled
    // every utterance (the timer, below).
    const whileOpen = async <T>(call: () => Promise<T>, refused: T): Promise<T> => {
      if (w.session.status === "created" || w.session.status === "active") return call();
      await expect(call(), "nothing of an ended session's conversation is handed or taken").rejects.toMatchObject({
        code: "session_ended",
      });
      return refused;
    };
    const report = (job: Job, reports: unknown[]) =>
      whileOpen(
        () =>
          retrying(() => w.service.job.report(sid, { participant_identity: job.identity, reports: reports as never })).then((r) =>
            r.results.map((x) => x.accepted),
          ),
        reports.map(() => false),
      );
    // As the sweeper: a timer whose replica died is left claimed, and fires again once its lease ran out.
    const fire = async () => {
      for (const due of await w.timers.claimDueTimers(w.now, LEASE_MS, 100)) {
        if (due.timer !== "conversation") continue;
        try {
          await w.service.onTimer(due.accountId, due.sessionId);
          await w.timers.completeTimer(due);
        } catch (error) {
          if (!String(error).includes("replica died")) throw error;
        }
      }
    };
    const tolerate = async (call: () => Promise<unknown>) => {
      try {
        await call();
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (
          !["session_ended", "conversation_queue_full", "conversation_notes_limit_reached"].includes(code ?? "") &&
          !String(error).includes("replica died")
        )
          throw error;
      }
    };
    const stopSpeaking = async (job: Job, interrupted: boolean) => {
      if (!job.speaking) return;
      await report(job, [{ type: "utterance_ended", id: job.speaking, say: true, ended_at: new Date(w.now).toISOString(), interrupted }]);
      job.speaking = null;
    };

    for (const c of commands) {
      // The newest jobs: the one dispatched last and its predecessors, which may still be alive.
      const job =
        c.kind === "pull" || c.kind === "start" || c.kind === "end" ? jobs[jobs.length - 1 - Math.min(c.job, jobs.length - 1)] : undefined;
      switch (c.kind) {
        case "say": {
          const retry = c.retryOf === null ? undefined : keys[c.retryOf];
          // A retry sends what the first request sent.
          const entry = retry ?? { key: crypto.randomUUID(), interrupt: c.interrupt, id: null };
          if (!retry) keys.push(entry);
          await tolerate(async () => {
            const { utterance } = await w.service.say(w.principal, sid, entry.key, {
              text: `line ${keys.indexOf(entry)}`,
              interrupt: entry.interrupt,
            });
            if (entry.id !== null) expect(utterance.id, "a retried key is the same utterance").toBe(entry.id);
            entry.id = utterance.id;
          });
          break;
        }
        case "context":
          await tolerate(() => w.service.addContext(w.principal, sid, crypto.randomUUID(), { text: "a note", respond: c.respond }));
          break;
        case "interrupt":
          await tolerate(() => w.service.interrupt(w.principal, sid));
          break;
        case "join":
          jobs.push({
            identity: `agent-${jobs.length}`,
            cursor: 0,
            first: true,
            seenInterrupt: 0,
            holds: [],
            speaking: null,
            delivered: [],
            alive: true,
          });
          break;
        case "pull": {
          if (!job?.alive) break;
          const queue = await whileOpen(
            () => retrying(() => w.service.job.pull(sid, { after: job.cursor, participant_identity: job.identity })),
            { items: [], interrupt_seq: job.seenInterrupt, turn_events: false },
          );
          const seqs = queue.items.map((item) => item.seq);
          expect(seqs, "items in seq order").toEqual([...seqs].sort((a, b) => a - b));
          for (const item of queue.items) {
            if (item.type !== "say") continue;
            expect(item.seq, "only what the job does not hold").toBeGreaterThan(job.cursor);
            expect(job.delivered, "each item handed to a job once").not.toContain(item.id);
            job.delivered.push(item.id);
            seqOf.set(item.id, item.seq);
          }
          const cut = job.first ? 0 : queue.interrupt_seq > job.seenInterrupt ? queue.interrupt_seq : 0;
          job.seenInterrupt = queue.interrupt_seq;
          const cutIn = queue.items.filter((item) => item.type === "say" && item.interrupt).at(-1)?.seq ?? 0;
          const dropBelow = Math.max(cut, cutIn);
          if (dropBelow > 0 && !job.first) await stopSpeaking(job, true);
          job.holds = [...job.holds, ...queue.items.filter((item) => item.type === "say").map(({ id, seq }) => ({ id, seq }))].filter(
            (held) => held.seq >= dropBelow,
          );
          job.cursor = Math.max(job.cursor, queue.interrupt_seq, ...seqs);
          job.first = false;
          break;
        }
        case "start": {
          if (!job?.alive || job.speaking || job.holds.length === 0) break;
          const next = job.holds.shift() as { id: string; seq: number };
          const [ok] = await report(job, [
            { type: "utterance_started", id: next.id, say: true, text: "x", started_at: new Date(w.now).toISOString() },
          ]);
          if (!ok) break;
          expect(startedBy.get(next.id) ?? job.identity, "started by one job at most").toBe(job.identity);
          if (!startedBy.has(next.id)) starts.push({ id: next.id, seq: next.seq, atMs: w.now });
          startedBy.set(next.id, job.identity);
          job.speaking = next.id;
          break;
        }
        case "end":
          if (job?.alive) await stopSpeaking(job, c.interrupted);
          break;
        case "leave": {
          // The newest job leaves the room: what it says is cut off and reported so; what it holds is
          // left for the next one (it never started it).
          const leaving = jobs.at(-1);
          if (!leaving?.alive) break;
          await stopSpeaking(leaving, true);
          leaving.alive = false;
          break;
        }
        case "crash":
          if (jobs.at(-1)) (jobs.at(-1) as Job).alive = false;
          break;
        case "replicaDies":
          w.dieAfterNextWrite();
          break;
        case "time":
          w.advance(c.ms);
          await fire();
          break;
        case "endSession":
          w.end();
          break;
      }
    }
    // The session ends, and time passes for every timer to fire.
    w.end();
    w.advance(TTL_MS + LONGEST_UTTERANCE_MS + 1000);
    await fire();
    w.advance(LEASE_MS + 1000);
    await fire();

    const ended = new Map<string, string[]>();
    const startedEvents = new Map<string, number>();
    for (const write of w.writes) {
      for (const event of write.events) {
        const data = JSON.parse(event.body).data as { utterance_id: string; status: string };
        if (event.type === "session.utterance_ended") ended.set(data.utterance_id, [...(ended.get(data.utterance_id) ?? []), data.status]);
        if (event.type === "session.utterance_started")
          startedEvents.set(data.utterance_id, (startedEvents.get(data.utterance_id) ?? 0) + 1);
      }
    }
    expect(
      starts.map((s) => s.seq),
      "utterances start in the order they were queued",
    ).toEqual([...starts.map((s) => s.seq)].sort((a, b) => a - b));
    for (const start of starts) {
      // Its say's answer may have been lost (the replica died): the utterance itself says when it was queued.
      const created = Date.parse((await w.service.getUtterance(w.principal, sid, start.id)).created_at);
      expect(start.atMs, "never started after its expiry").toBeLessThan(created + TTL_MS);
    }
    for (const { id } of keys) {
      if (id === null) continue;
      const statuses = ended.get(id) ?? [];
      expect(statuses, `${id} ends once`).toHaveLength(1);
      expect(startedEvents.get(id) ?? 0).toBe(startedBy.has(id) ? 1 : 0);
      expect(startedBy.has(id) ? ["spoken", "interrupted"] : ["interrupted", "expired"]).toContain(statuses[0]);
      const shown = await w.service.getUtterance(w.principal, sid, id);
      expect(shown.status).toBe(statuses[0]);
    }
  }

  it("holds for generated sequences", async () => {
    const seed = Number(process.env.MODEL_SEED ?? Date.now() % 2 ** 31);
    console.log(`conversation model seed ${seed} (${STORE}, ${RUNS} runs)`);
    await fc.assert(
      fc.asyncProperty(fc.array(command, { maxLength: 40 }), (commands) => run(commands)),
      {
        numRuns: RUNS,
        seed,
        // A job dispatched again while its predecessor still holds what it was handed: only one may say it.
        examples: [
          [
            [
              { kind: "join" },
              { kind: "say", interrupt: false, retryOf: null },
              { kind: "pull", job: 0 },
              { kind: "join" },
              { kind: "pull", job: 0 },
              { kind: "start", job: 0 },
              { kind: "start", job: 1 },
            ],
          ],
        ],
      },
    );
  }, 240_000);
});
