/**
 * "At most once" (contract guide, "Tools"; runToolCall), whatever happens, against a small model, over
 * generated sequences of what a session's digital humans and the service's replicas do to its tool
 * calls: a new call of its webhook tool or its client tool (the session possibly ending as it is made);
 * the same call id again, on either replica, while the first request still runs or after it (its
 * arguments' keys in another order, a client call with another outcome); the same id with other
 * arguments or another name; the customer's endpoint answering (a result, an error, HTTP 500, a network
 * failure, a timeout), late or never; a replica dying (between steps, right after it claimed a call, right
 * after it recorded an answer); the clock passing a call's timeout and lease; the session ending; and
 * listSessionToolCalls.
 *
 * A replica is a ToolCallService over the one memory store; it dies by never hearing back from anything
 * again (its store, its sender, its session records), so whatever it had in flight is abandoned, and a
 * fresh one takes its place. The model is written from the contract: a webhook call's outcome is its
 * endpoint's answer if the answer is recorded before the call's lease (timeout + LEASE_MARGIN_MS) passes,
 * and `failed` (RUNNER_LOST) from then on, whoever notices; a client call's is the outcome its first request
 * brought. What must hold after every step and at the end:
 *
 * - the customer's endpoint is posted each call id at most once (once if its runner lived to post it);
 * - every answer for a call id (first request, repeats, any replica) and listSessionToolCalls show the
 *   model's outcome once it has one: the same one, every time;
 * - listSessionToolCalls shows each call once, in the order they were made, none running past its lease;
 * - each call ends with exactly one `session.tool_called` event (read from the memory webhook queue) and
 *   one onSettled (the metric of calls that ended), none if the replica that ended it died right after;
 * - the same id with other arguments is refused `tool_call_id_reused`, a new call on an ended session
 *   `session_ended`.
 *
 * MODEL_SEED replays a run; MODEL_RUNS changes how many sequences are tried. The last tests are the
 * shortest sequences the model found that the service failed before it was mended (see each).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { ClientTool, ToolCall, ToolCallPayload, ToolCallRun, WebhookTool } from "@dhs/contract";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DURATIONS, persona, sessionRecord } from "../../../test/support/session-fixtures.js";
import { MemoryConversationStore } from "../../store/memory/conversation-store.js";
import { MemoryWebhookStore } from "../../store/memory/customer-webhook-store.js";
import { MemorySessionState } from "../../store/memory/sessions/state.js";
import type { Principal } from "../accounts/api-keys.js";
import { ConversationChanges } from "../conversation/conversation-changes.js";
import type { ConversationStore } from "../conversation/ports.js";
import { type SessionRecord, TERMINAL } from "../sessions/session.js";
import type { ToolCallSender, ToolCallSendResult } from "./ports.js";
import { LEASE_MARGIN_MS, RUNNER_LOST, type StoredToolCall, toolCallField } from "./tool-call.js";
import { ToolCallService } from "./tool-call-service.js";
import { toolCallEventId } from "./tool-call-webhook.js";

const RUNS = Number(process.env.MODEL_RUNS ?? 100);
const MAX_STEPS = 25;
const T0 = Date.parse("2026-11-27T10:00:00.000Z");
const TIMEOUT_MS = 1_000;
const LEASE_MS = TIMEOUT_MS + LEASE_MARGIN_MS;
const ENDPOINT_ID = "we_5f2b9c1e7a3d4f60b8e1c2d3";
const JOB = "agent-AJ_3x9QkLm2";

const WEBHOOK: WebhookTool = {
  type: "webhook",
  name: "order_status",
  description: "Looks an order up.",
  parameters: { type: "object", properties: { order_id: { type: "string" }, with_items: { type: "boolean" } } },
  timeout_ms: TIMEOUT_MS,
  endpoint_id: ENDPOINT_ID,
};
const CLIENT: ClientTool = {
  type: "client",
  name: "show_room",
  description: "Shows a room on the participant's page.",
  parameters: { type: "object", properties: { room_type: { type: "string" }, floor: { type: "integer" } } },
  timeout_ms: TIMEOUT_MS,
};
const PERSONA = persona({ tools: [WEBHOOK, CLIENT] });

type Outcome = NonNullable<ToolCallRun["outcome"]>;
type Answer = "result" | "error" | "http500" | "network" | "timeout";

type Step =
  | {
      kind: "call";
      replica: number;
      tool: "webhook" | "client";
      outcome: Outcome;
      /** Sent to both replicas at once (a job dispatched again while the first still asks). */
      twin: boolean;
      diesAfterClaim: boolean;
      sessionEndsAtOnce: boolean;
    }
  | { kind: "repeat"; replica: number; of: number; reordered: boolean; outcome: Outcome }
  | { kind: "reuse"; replica: number; of: number; what: "arguments" | "name" }
  | { kind: "answer"; of: number; answer: Answer; diesAfterRecord: boolean }
  | { kind: "time"; ms: number }
  | { kind: "replicaDies"; replica: number }
  | { kind: "endSession" }
  | { kind: "list" };

/** Rare things come last, so a counterexample shrinks towards the plain case. */
const rarely = fc.constantFrom(false, false, false, false, true);
const seldom = fc.constantFrom(false, false, false, false, false, false, false, false, false, true);
const replicaIndex = fc.constantFrom(0, 1);
const outcome: fc.Arbitrary<Outcome> = fc.oneof(
  fc.record({
    status: fc.constant("succeeded" as const),
    result: fc.constantFrom<unknown>("shown", { room: 12 }, null),
    duration_ms: fc.nat(2_000),
  }),
  fc.record(
    {
      status: fc.constantFrom("failed" as const, "timed_out" as const),
      error: fc.constant("The page did not answer."),
      duration_ms: fc.nat(2_000),
    },
    { requiredKeys: ["status", "duration_ms"] },
  ),
);
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant("call" as const),
      replica: replicaIndex,
      tool: fc.constantFrom("webhook" as const, "webhook" as const, "client" as const),
      outcome,
      twin: rarely,
      diesAfterClaim: rarely,
      sessionEndsAtOnce: seldom,
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant("repeat" as const), replica: replicaIndex, of: fc.nat(), reordered: fc.boolean(), outcome }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("reuse" as const),
      replica: replicaIndex,
      of: fc.nat(),
      what: fc.constantFrom("arguments" as const, "name" as const),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("answer" as const),
      of: fc.nat(),
      answer: fc.constantFrom<Answer>("result", "error", "http500", "network", "timeout"),
      diesAfterRecord: rarely,
    }),
  },
  // The timeout, the lease and their edges.
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("time" as const),
      ms: fc.constantFrom(1, 400, TIMEOUT_MS, LEASE_MARGIN_MS, LEASE_MS - 1, LEASE_MS),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("replicaDies" as const), replica: replicaIndex }) },
  { weight: 1, arbitrary: fc.constant({ kind: "endSession" as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: "list" as const }) },
);

/** What a call came to, as the model says. */
interface Settled {
  status: ToolCall["status"];
  result: unknown;
  error: string | null;
  durationMs: number;
}

const RUNNER_LOST_OUTCOME: Settled = { status: "failed", result: null, error: RUNNER_LOST, durationMs: LEASE_MS };

interface Call {
  id: string;
  tool: WebhookTool | ClientTool;
  arguments: Record<string, unknown>;
  /** A client call's outcome as its first request brought it. */
  outcome: Outcome | undefined;
  startedAtMs: number;
  leaseUntilMs: number;
  recorded: boolean;
  settled: Settled | undefined;
  /** Whether its runner lived to post it to the endpoint: how many posts it must have had, 1 or 0. */
  posted: boolean;
}

interface Replica {
  alive: boolean;
  service: ToolCallService;
}

/** One runToolCall request, on one replica. */
interface Run {
  call: Call;
  replica: Replica;
  /** The refusal it must get; null: it is answered the call. */
  refusal: string | null;
  /** Its replica dies right after this request's next write (the answer is lost). */
  dieAfterWrite: boolean;
  /** It claimed a webhook call (recorded it running): it is the call's runner. */
  claimedRunning: boolean;
  send: Send | undefined;
  done: boolean;
  checked: boolean;
  value?: ToolCall;
  error?: unknown;
}

/** One post to the customer's endpoint, waiting for the answer a step gives it. */
interface Send {
  call: Call;
  run: Run | undefined;
  replica: Replica;
  startedAtMs: number;
  answered: boolean;
  resolve: (result: ToolCallSendResult) => void;
}

/**
 * Which request a store write or a post belongs to, across its awaits and timers. One for all sequences:
 * every AsyncLocalStorage in use slows every async step after it.
 */
const current = new AsyncLocalStorage<Run>();
const hang = <T>(): Promise<T> => new Promise<T>(() => {});
const iso = (ms: number) => new Date(ms).toISOString();
const pick = <T>(list: readonly T[], n: number): T | undefined => (list.length === 0 ? undefined : list[n % list.length]);
const codeOf = (error: unknown) => (error as { code?: string } | undefined)?.code ?? String(error);

/**
 * What the sender gives back for an answer, and what the call comes to. A sender bounds the whole post by
 * the tool's timeout, so an answer that comes after it is a timeout.
 */
function answerOf(answer: Answer, elapsedMs: number): [ToolCallSendResult, Settled] {
  if (answer === "timeout" || elapsedMs > TIMEOUT_MS) {
    return [
      { kind: "failed", error: "timeout", durationMs: TIMEOUT_MS },
      { status: "timed_out", result: null, error: `The tool did not answer within ${TIMEOUT_MS} ms.`, durationMs: TIMEOUT_MS },
    ];
  }
  const failed = (error: string): Settled => ({ status: "failed", result: null, error, durationMs: elapsedMs });
  switch (answer) {
    case "result":
      return [
        { kind: "answered", status: 200, body: JSON.stringify({ result: { status: "shipped" } }), durationMs: elapsedMs },
        { status: "succeeded", result: { status: "shipped" }, error: null, durationMs: elapsedMs },
      ];
    case "error":
      return [
        { kind: "answered", status: 200, body: JSON.stringify({ error: "No such order." }), durationMs: elapsedMs },
        failed("No such order."),
      ];
    case "http500":
      return [
        { kind: "answered", status: 500, body: "oops", durationMs: elapsedMs },
        failed("The tool's endpoint answered HTTP 500, not 200."),
      ];
    case "network":
      return [
        { kind: "failed", error: "connection_failed", durationMs: elapsedMs },
        failed("The tool could not be called: the endpoint could not be reached."),
      ];
  }
}

function outcomeSettled(outcome: Outcome): Settled {
  if (outcome.status === "succeeded")
    return { status: "succeeded", result: outcome.result ?? null, error: null, durationMs: outcome.duration_ms };
  const fallback = outcome.status === "failed" ? "The tool failed." : "The tool timed out.";
  return { status: outcome.status, result: null, error: outcome.error ?? fallback, durationMs: outcome.duration_ms };
}

function view(call: Call): ToolCall {
  const settled = call.settled;
  if (!settled) throw new Error(`${call.id} has no outcome yet`);
  return {
    id: call.id,
    name: call.tool.name,
    type: call.tool.type,
    arguments: call.arguments,
    status: settled.status,
    result: settled.status === "succeeded" ? (settled.result ?? null) : null,
    error: settled.error,
    started_at: iso(call.startedAtMs),
    duration_ms: settled.durationMs,
  };
}

class World {
  clock = T0;
  session: SessionRecord = sessionRecord({ status: "active", created_at: iso(T0 - 60_000), started_at: iso(T0 - 30_000) });
  readonly hooks = new MemoryWebhookStore(() => this.clock);
  readonly state = new MemorySessionState(() => this.clock, this.hooks);
  readonly memory = new MemoryConversationStore(this.hooks, this.state, () => this.clock);
  readonly calls: Call[] = [];
  readonly runs: Run[] = [];
  readonly sends: Send[] = [];
  readonly posts: { id: string; eventId: string; timeoutMs: number }[] = [];
  readonly settledHook: string[] = [];
  readonly unmetered = new Set<string>();
  endSessionCalls = 0;
  private replicaCount = 0;
  readonly replicas: Replica[] = [this.replica(), this.replica()];

  get principal(): Principal {
    const accountId = this.session.account_id;
    return { keyId: "key_1", accountId, account: accountId, mode: "live", scopes: new Set() };
  }

  get deaths(): number {
    return this.replicaCount - 2;
  }

  get open(): boolean {
    return !TERMINAL.has(this.session.status);
  }

  async init(): Promise<void> {
    this.state.store(this.session, undefined);
    await this.hooks.createEndpoint(
      {
        id: ENDPOINT_ID,
        accountId: this.session.account_id,
        url: "https://hooks.example.test/tools",
        eventTypes: ["session.tool_called"],
        description: null,
        status: "enabled",
        disabledReason: null,
        createdAtMs: T0,
        secrets: [{ secret: "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0", expiresAtMs: null }],
        failingSinceMs: null,
      },
      10,
    );
  }

  private replica(): Replica {
    this.replicaCount++;
    const replica = { alive: true } as Replica;
    // A dead replica hears back from nothing: what it awaited is abandoned, as a process gone is.
    const guarded = <T>(f: () => Promise<T>): Promise<T> => (replica.alive ? f().then((v) => (replica.alive ? v : hang<T>())) : hang<T>());
    const store: ConversationStore = {
      readConversation: (a, s, f) => guarded(() => this.memory.readConversation(a, s, f)),
      readConversationFields: (s, f) => guarded(() => this.memory.readConversationFields(s, f)),
      writeConversation: (write) =>
        guarded(async () => {
          const written = await this.memory.writeConversation(write);
          const run = current.getStore();
          if (written === true && run) {
            const calls = Object.values(write.fields).map((json) => JSON.parse(json) as StoredToolCall);
            if (calls.some((call) => call.status === "running")) run.claimedRunning = true;
            if (run.dieAfterWrite) {
              replica.alive = false;
              // A process that died right after recording the end of a call never told its metrics.
              for (const call of calls) if (call.status !== "running") this.unmetered.add(call.id);
            }
          }
          return written;
        }),
    };
    const sessions = {
      getSession: (accountId: string, id: string) =>
        guarded(async () => (accountId === this.session.account_id && id === this.session.id ? this.session : undefined)),
      findSession: (id: string) => guarded(async () => (id === this.session.id ? this.session : undefined)),
      // As the stores do: a session keeps its persona only while it is open.
      sessionPersona: () => guarded(async () => (this.open ? PERSONA : undefined)),
    };
    const sender: ToolCallSender = {
      call: (request) => {
        const { data } = JSON.parse(request.body) as ToolCallPayload;
        this.posts.push({ id: data.tool_call_id, eventId: request.eventId, timeoutMs: request.timeoutMs });
        const call = this.calls.find((c) => c.id === data.tool_call_id);
        const run = current.getStore();
        if (!call || !replica.alive) return hang();
        return new Promise((resolve) => {
          const send: Send = { call, run, replica, startedAtMs: this.clock, answered: false, resolve };
          this.sends.push(send);
          if (run) run.send = send;
        });
      },
    };
    replica.service = new ToolCallService({
      sessions,
      store,
      changes: new ConversationChanges({
        sessions,
        store,
        nudger: undefined,
        limits: { maxQueued: 10, charactersPerMinute: 100_000, sayTtlMs: 30_000, maxNotes: 10 },
        durations: DURATIONS,
        eventRetainMs: 86_400_000,
        now: () => new Date(this.clock),
      }),
      endpoints: { getEndpoint: (a, e) => guarded(() => this.hooks.getEndpoint(a, e)) },
      sender,
      endSession: async () => {
        this.endSessionCalls++;
      },
      onSettled: (call) => this.settledHook.push(call.id),
      pollMs: 1,
    });
    return replica;
  }

  async apply(s: Step): Promise<void> {
    switch (s.kind) {
      case "call": {
        const n = this.calls.length;
        const tool = s.tool === "webhook" ? WEBHOOK : CLIENT;
        const call: Call = {
          id: `call_${n}`,
          tool,
          arguments: tool.type === "webhook" ? { order_id: `A-${n}`, with_items: true } : { room_type: "sea view", floor: n },
          outcome: tool.type === "client" ? s.outcome : undefined,
          startedAtMs: this.clock,
          leaseUntilMs: this.clock + LEASE_MS,
          recorded: false,
          settled: undefined,
          posted: false,
        };
        this.calls.push(call);
        const open = this.open;
        const refusal = open ? null : "session_ended";
        const run = this.start(call, s.replica, this.body(call, false, s.outcome), refusal, s.diesAfterClaim);
        const twin = s.twin ? this.start(call, 1 - s.replica, this.body(call, true, s.outcome), refusal) : undefined;
        if (s.sessionEndsAtOnce && open) this.endSession();
        await this.settle();
        if (!open) break;
        call.recorded = (await this.stored(call)) !== undefined;
        // Ending as the call is made, the session may have ended first; otherwise a call on an open session is recorded.
        if (!call.recorded && s.sessionEndsAtOnce) {
          run.refusal = "session_ended";
          if (twin) twin.refusal = "session_ended";
        } else expect(call.recorded, `${call.id}, made while the session was open, is recorded`).toBe(true);
        if (call.recorded && tool.type === "client" && call.outcome) call.settled = outcomeSettled(call.outcome);
        // Of twins, either may claim it; the one that did posts it unless it died claiming it.
        const runner = [run, twin].find((r) => r?.claimedRunning);
        call.posted = runner !== undefined && !runner.dieAfterWrite;
        break;
      }
      case "repeat": {
        const call = pick(this.calls, s.of);
        if (!call) break;
        // Only a call refused for the session's end is not recorded.
        this.start(call, s.replica, this.body(call, s.reordered, s.outcome), call.recorded ? null : "session_ended");
        await this.settle();
        break;
      }
      case "reuse": {
        const call = pick(this.calls, s.of);
        if (!call) break;
        const body = this.body(call, false, call.outcome);
        if (s.what === "arguments") body.arguments = { ...call.arguments, other: true };
        else body.name = call.tool.name === WEBHOOK.name ? CLIENT.name : WEBHOOK.name;
        this.start(call, s.replica, body, call.recorded ? "tool_call_id_reused" : "session_ended");
        await this.settle();
        break;
      }
      case "answer": {
        const send = pick(
          this.sends.filter((x) => !x.answered && x.replica.alive),
          s.of,
        );
        if (!send) break;
        send.answered = true;
        const [result, settled] = answerOf(s.answer, this.clock - send.startedAtMs);
        send.call.settled ??= settled;
        if (send.run) send.run.dieAfterWrite = s.diesAfterRecord;
        send.resolve(result);
        await this.settle();
        break;
      }
      case "time":
        this.clock += s.ms;
        this.leasesPassed();
        await this.settle();
        break;
      case "replicaDies":
        (this.replicas[s.replica] as Replica).alive = false;
        break;
      case "endSession":
        if (this.open) this.endSession();
        await this.settle();
        break;
      case "list":
        await this.checkList();
        break;
    }
    for (const [i, replica] of this.replicas.entries()) if (!replica.alive) this.replicas[i] = this.replica();
    this.checkStep();
  }

  /** The end: every lease passes, every call is asked for again, every endpoint has answered (too late). */
  async finish(): Promise<void> {
    this.clock += LEASE_MS;
    this.leasesPassed();
    await this.settle();
    await this.checkList();
    for (const [i, call] of this.calls.entries()) {
      this.start(call, i % 2, this.body(call, false, call.outcome), call.recorded ? null : "session_ended");
    }
    await this.settle();
    for (const send of this.sends.filter((x) => !x.answered && x.replica.alive)) {
      send.answered = true;
      send.resolve(answerOf("timeout", TIMEOUT_MS)[0]);
    }
    await this.settle();
    this.checkStep();
    const hanging = this.runs.filter((run) => run.replica.alive && !run.done).map((run) => run.call.id);
    expect(hanging, "every request on a live replica is answered once the endpoints answered and the leases passed").toEqual([]);
    await this.checkList();
    const events = await this.drainEvents();
    for (const call of this.calls) {
      expect(this.posts.filter((p) => p.id === call.id).length, `${call.id}: posts to the customer's endpoint`).toBe(call.posted ? 1 : 0);
      const called = events.filter((e) => e.tool_call.id === call.id).map((e) => e.tool_call);
      expect(called, `${call.id}: its session.tool_called events`).toEqual(call.recorded ? [view(call)] : []);
      const metered = call.recorded && !this.unmetered.has(call.id);
      expect(this.settledHook.filter((id) => id === call.id).length, `${call.id}: onSettled calls`).toBe(metered ? 1 : 0);
    }
    expect(this.endSessionCalls, "no end_session tool, no end").toBe(0);
  }

  private body(call: Call, reordered: boolean, outcome: Outcome | undefined): ToolCallRun {
    // The same arguments, their keys in another order: the same call.
    const args = reordered ? Object.fromEntries(Object.entries(call.arguments).reverse()) : call.arguments;
    const body: ToolCallRun = { participant_identity: JOB, tool_call_id: call.id, name: call.tool.name, arguments: args };
    if (call.tool.type === "client" && outcome) body.outcome = outcome;
    return body;
  }

  private start(call: Call, replica: number, body: ToolCallRun, refusal: string | null, dieAfterWrite = false): Run {
    const on = this.replicas[replica] as Replica;
    const run: Run = { call, replica: on, refusal, dieAfterWrite, claimedRunning: false, send: undefined, done: false, checked: false };
    this.runs.push(run);
    void current
      .run(run, () => on.service.run(this.session.id, body))
      .then(
        (value) => {
          run.value = value;
        },
        (error: unknown) => {
          run.error = error;
        },
      )
      .finally(() => {
        run.done = true;
      });
    return run;
  }

  private endSession(): void {
    this.session = { ...this.session, status: "completed", end_reason: "user_ended", ended_at: iso(this.clock) };
    this.state.store(this.session, this.clock + DURATIONS.retentionS * 1000);
  }

  /** Past its lease, a webhook call nobody recorded an answer of is lost, whoever notices it first. */
  private leasesPassed(): void {
    for (const call of this.calls) {
      if (call.recorded && call.tool.type === "webhook" && !call.settled && this.clock >= call.leaseUntilMs)
        call.settled = RUNNER_LOST_OUTCOME;
    }
  }

  private async stored(call: Call): Promise<StoredToolCall | undefined> {
    const [json] = await this.memory.readConversationFields(this.session.id, [toolCallField(call.id)]);
    return json ? (JSON.parse(json) as StoredToolCall) : undefined;
  }

  /**
   * A request is at rest once it is answered, its replica is dead, it is a runner waiting for its
   * endpoint, or it waits for a call whose lease has not passed; nothing moves then until a step does.
   */
  private async atRest(run: Run): Promise<boolean> {
    if (run.done || !run.replica.alive) return true;
    if (run.refusal !== null) return false;
    if (run.claimedRunning) return run.send !== undefined && !run.send.answered;
    const stored = await this.stored(run.call);
    return stored?.status === "running" && stored.leaseUntilMs !== null && this.clock < stored.leaseUntilMs;
  }

  private async settle(): Promise<void> {
    const until = performance.now() + 5_000;
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      const rest = await Promise.all(this.runs.map((run) => this.atRest(run)));
      if (rest.every(Boolean)) return;
      if (performance.now() > until) {
        this.checkPosts();
        const moving = this.runs.filter((_, i) => !rest[i]).map((run) => run.call.id);
        throw new Error(`requests that never came to rest: ${moving.join(", ")}`);
      }
    }
  }

  private checkPosts(): void {
    for (const call of this.calls) {
      const posts = this.posts.filter((p) => p.id === call.id);
      expect(posts.length, `${call.id} was posted to the customer's endpoint more than once`).toBeLessThanOrEqual(1);
      for (const post of posts) {
        expect(post.eventId, "the post's webhook-id is the call's").toBe(toolCallEventId(this.session.id, call.id));
        expect(post.timeoutMs).toBe(TIMEOUT_MS);
      }
    }
  }

  private checkStep(): void {
    this.checkPosts();
    for (const run of this.runs) {
      if (!run.done || run.checked) continue;
      run.checked = true;
      if (run.refusal !== null) {
        expect(codeOf(run.error), `${run.call.id}: the refusal`).toBe(run.refusal);
        continue;
      }
      if (run.error !== undefined) throw run.error;
      expect(run.call.settled, `${run.call.id} answered ${run.value?.status} before it came to anything`).toBeDefined();
      expect(run.value, `${run.call.id} as answered`).toEqual(view(run.call));
    }
  }

  private async checkList(): Promise<void> {
    const listed: ToolCall[] = (await (this.replicas[0] as Replica).service.list(this.principal, this.session.id)).data;
    const recorded = this.calls.filter((call) => call.recorded);
    expect(
      listed.map((call) => call.id),
      "each call once, in the order made",
    ).toEqual(recorded.map((call) => call.id));
    for (const [i, call] of recorded.entries()) {
      if (call.settled) expect(listed[i], `${call.id} as listed`).toEqual(view(call));
      else expect(listed[i]?.status, `${call.id} as listed before its lease passed`).toBe("running");
    }
  }

  private async drainEvents(): Promise<{ tool_call: ToolCall }[]> {
    const far = Number.MAX_SAFE_INTEGER - 1e12;
    const data: { tool_call: ToolCall }[] = [];
    for (const account of await this.hooks.claimDueAccounts(far, 1, 100)) {
      for (const claim of await this.hooks.claimDeliveries(account, far, 1, { max: 1000, perEndpoint: 1000, busy: new Map() })) {
        const { body } = await this.hooks.loadDelivery(claim);
        const event = JSON.parse(body ?? "{}") as { type: string; data: { tool_call: ToolCall } };
        if (event.type === "session.tool_called") data.push(event.data);
      }
    }
    return data;
  }
}

/** What the sequences came to, printed so a run that exercised little shows. */
const seen = { sequences: 0, steps: 0, calls: 0, posts: 0, lost: 0, requests: 0, deaths: 0 };
async function holds(steps: Step[]): Promise<void> {
  const world = new World();
  await world.init();
  for (const s of steps) await world.apply(s);
  await world.finish();
  seen.sequences++;
  seen.steps += steps.length;
  seen.calls += world.calls.filter((call) => call.recorded).length;
  seen.posts += world.posts.length;
  seen.lost += world.calls.filter((call) => call.settled === RUNNER_LOST_OUTCOME).length;
  seen.requests += world.runs.length;
  seen.deaths += world.deaths;
}

const call = (over: Partial<Extract<Step, { kind: "call" }>> = {}): Step => ({
  kind: "call",
  replica: 0,
  tool: "webhook",
  outcome: { status: "succeeded", result: "shown", duration_ms: 84 },
  twin: false,
  diesAfterClaim: false,
  sessionEndsAtOnce: false,
  ...over,
});
const repeat = (replica: number, of = 0): Step => ({
  kind: "repeat",
  replica,
  of,
  reordered: false,
  outcome: { status: "failed", duration_ms: 1 },
});
const answer = (kind: Answer = "result"): Step => ({ kind: "answer", of: 0, answer: kind, diesAfterRecord: false });
const time = (ms: number): Step => ({ kind: "time", ms });

describe("ToolCallService", () => {
  it("calls the customer at most once per call id, whatever repeats, replica deaths, timeouts and session ends come between", async () => {
    const seed = Number(process.env.MODEL_SEED ?? Date.now() % 2 ** 31);
    console.log(`tool call model: seed ${seed}, ${RUNS} runs (replay with MODEL_SEED=${seed})`);
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: MAX_STEPS, size: "max" }), (steps) => holds(steps)),
      {
        numRuns: RUNS,
        seed,
        examples: [
          // A repeat while the first request waits for the endpoint, then the answer: both get it.
          [[call(), repeat(1), answer()]],
          // The runner's replica dies mid-call; past the lease, a repeat on the other settles it lost.
          [[call(), { kind: "replicaDies", replica: 0 }, time(LEASE_MS), repeat(1)]],
          // It dies right after claiming, before posting: never posted, lost once the lease passed.
          [[call({ diesAfterClaim: true }), repeat(1), time(LEASE_MS)]],
          // The same new call on both replicas at once: one claims and posts, the other waits for it.
          [[call({ twin: true }), answer()]],
          // It dies right after recording the answer: the job's retry gets it, and one event.
          [[call(), { kind: "answer", of: 0, answer: "http500", diesAfterRecord: true }, repeat(1)]],
          // The session ends mid-call: the answer is still recorded, repeats still answered, new calls refused.
          [[call(), { kind: "endSession" }, answer("error"), repeat(0), call({ tool: "client" })]],
          // Other arguments under a used id.
          [[call({ tool: "client" }), { kind: "reuse", replica: 1, of: 0, what: "arguments" }]],
        ],
      },
    );
    console.log(`tool call model: ${JSON.stringify(seen)}`);
  }, 60_000);

  // The sequences below are the shortest the model found for what it holds the service to and the
  // service does not do (yet); each reads as the behaviour it asks for.

  it("keeps a call failed once its lease passed, even when its slow runner records the endpoint's answer after that", async () => {
    // listSessionToolCalls shows it failed (RUNNER_LOST: "do not call it again") once the lease passed;
    // the runner's late recording must not turn it into another outcome afterwards.
    await holds([call(), time(LEASE_MS), { kind: "list" }, answer()]);
  });

  it("counts each call that ended once for the metrics, also when a repeat settled it lost before its runner recorded", async () => {
    await holds([call(), time(LEASE_MS), repeat(1), answer()]);
  });

  it("refuses a new call 409 session_ended when the session ends while the call is being made", async () => {
    await holds([call({ sessionEndsAtOnce: true })]);
  });
});
