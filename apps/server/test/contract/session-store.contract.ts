/**
 * What every adapter of the session store's ports must do (domain/sessions/ports.ts), one suite per port,
 * run against the memory store (its unit test) and against Redis and Redis Cluster (test/store). Time is
 * real: TTLs are short and the suites wait them out, so both adapters are held to the same clock.
 */
import { describe, expect, it } from "vitest";
import type { SessionChange, SessionSnapshot, SessionStore } from "../../src/domain/sessions/ports.js";
import { roomNameFor, type SessionRecord } from "../../src/domain/sessions/session.js";
import { persona, sessionRecord } from "../support/session-fixtures.js";

export interface StoreUnderTest {
  store: SessionStore;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const DAY_MS = 86_400_000;

/** A new session of `accountId`, created `agoMs` before now. */
export function fresh(accountId: string, agoMs = 0, overrides: Partial<SessionRecord> = {}): SessionRecord {
  const id = crypto.randomUUID();
  return sessionRecord({ id, account_id: accountId, created_at: new Date(Date.now() - agoMs).toISOString(), ...overrides });
}

export const listQuery = (
  overrides: { status?: SessionRecord["status"]; limit?: number; after?: { createdAtMs: number; id: string } | undefined } = {},
) => ({
  limit: 50,
  oldestCreatedMs: Date.now() - 40 * DAY_MS,
  ...overrides,
});

/** What a completion in these tests adds to its claim: its key kept a minute, no events, no usage. */
const QUIET = { keyTtlMs: 60_000, events: [], usage: undefined, persona: persona(), personaTtlMs: 60_000 };

/** Claims an Idempotency-Key for a create, with a lock of `lockTtlMs` and a cap of `maxOpen`. */
const begin = (store: SessionStore, account: string, key: string, print: string, lockTtlMs = 10_000, maxOpen = 100) =>
  store.beginCreate(account, key, print, { lockTtlMs, keyTtlMs: 60_000, maxOpen, createdAtMs: Date.now() });

/** Creates a session through the store's create steps (claim, then complete). */
export async function created(store: SessionStore, record: SessionRecord): Promise<SessionRecord> {
  const key = crypto.randomUUID();
  const claim = { lockTtlMs: 10_000, keyTtlMs: 60_000, maxOpen: 1000, createdAtMs: Date.parse(record.created_at) };
  const begun = await store.beginCreate(record.account_id, key, "print", claim);
  if (begun.kind !== "acquired") throw new Error(`expected an acquisition, got ${begun.kind}`);
  const session = { ...record, id: begun.sessionId, room_name: roomNameFor(begun.sessionId) };
  expect(await store.completeCreate({ session, idempotencyKey: key, fingerprint: "print", lock: begun.lock, ...QUIET })).toBe(true);
  return session;
}

/** Moves a stored session to `changes` (compare-and-set from what is stored now). */
export async function changed(
  store: SessionStore,
  record: SessionRecord,
  changes: Partial<SessionRecord>,
  expiresAtMs?: number,
): Promise<SessionRecord> {
  const current = await store.readForChange(record.account_id, record.id);
  if (!current) throw new Error("no such session");
  const next = { ...current.record, ...changes };
  expect(await store.replaceSession(change(current, next, { expiresAtMs }))).toBe(true);
  return next;
}

/** A change of what `read` found to `next`: no events, no usage, no timers unless given. */
const change = (read: SessionSnapshot, next: SessionRecord, more: Partial<SessionChange> = {}): SessionChange => ({
  record: next,
  version: read.version,
  previousStatus: read.record.status,
  events: [],
  usage: undefined,
  expiresAtMs: undefined,
  timers: { schedule: [], cancel: [] },
  ...more,
});

export function sessionStoreContract(adapter: string, make: () => Promise<StoreUnderTest>): void {
  const withStore = (test: (store: SessionStore, account: string) => Promise<void>) => async () => {
    const { store, close } = await make();
    try {
      await test(store, `acct_${crypto.randomUUID().slice(0, 8)}`);
    } finally {
      await close();
    }
  };

  describe(`${adapter}: idempotent creates`, () => {
    it(
      "claims a new key for a session the store names; the same body meanwhile is in progress, another body a reuse",
      withStore(async (store, account) => {
        expect(await begin(store, account, "k", "f")).toMatchObject({ kind: "acquired", sessionId: expect.any(String) });
        expect(await begin(store, account, "k", "f")).toEqual({ kind: "in_progress" });
        expect(await begin(store, account, "k", "other")).toEqual({ kind: "reused" });
        // Keys are the account's: another account's same key is another key.
        expect(await begin(store, `${account}_other`, "k", "f")).toMatchObject({ kind: "acquired" });
      }),
    );

    it(
      "lets a crashed create's lock expire after its TTL, and no later; the retry continues its session",
      withStore(async (store, account) => {
        const crashed = await begin(store, account, "k", "f", 300);
        if (crashed.kind !== "acquired") throw new Error("expected an acquisition");
        await sleep(100);
        expect(await begin(store, account, "k", "f", 300)).toEqual({ kind: "in_progress" });
        await sleep(300);
        expect(await begin(store, account, "k", "f", 300)).toMatchObject({ kind: "acquired", sessionId: crashed.sessionId });
      }),
    );

    it(
      "stores the session and marks its key done: the key then replays that session",
      withStore(async (store, account) => {
        const session = await created(store, fresh(account));
        expect(await store.getSession(account, session.id)).toEqual(session);
        const key = crypto.randomUUID();
        const begun = await begin(store, account, key, "f");
        if (begun.kind !== "acquired") throw new Error("expected an acquisition");
        const second = fresh(account, 0, { id: begun.sessionId, room_name: roomNameFor(begun.sessionId) });
        expect(await store.completeCreate({ session: second, idempotencyKey: key, fingerprint: "f", lock: begun.lock, ...QUIET })).toBe(
          true,
        );
        expect(await begin(store, account, key, "f")).toEqual({ kind: "replay", sessionId: second.id });
      }),
    );

    it(
      "keeps a failed create's session id for a retry with the same body; another body starts its own",
      withStore(async (store, account) => {
        const first = await begin(store, account, "k", "f");
        if (first.kind !== "acquired") throw new Error("expected an acquisition");
        await store.abandonCreate({
          accountId: account,
          idempotencyKey: "k",
          fingerprint: "f",
          lock: first.lock,
          sessionId: first.sessionId,
          keepMs: 60_000,
        });
        expect(await begin(store, account, "k", "f")).toMatchObject({ kind: "acquired", sessionId: first.sessionId });
        const again = await begin(store, account, "k2", "f");
        if (again.kind !== "acquired") throw new Error("expected an acquisition");
        await store.abandonCreate({
          accountId: account,
          idempotencyKey: "k2",
          fingerprint: "f",
          lock: again.lock,
          sessionId: again.sessionId,
          keepMs: 60_000,
        });
        const another = await begin(store, account, "k2", "another");
        expect(another).toMatchObject({ kind: "acquired" });
        expect(another.kind === "acquired" && another.sessionId).not.toBe(again.sessionId);
      }),
    );

    it(
      "never lets a stale lock holder complete or release a key another request holds now",
      withStore(async (store, account) => {
        const stale = await begin(store, account, "k", "f", 200);
        await sleep(250);
        const current = await begin(store, account, "k", "f");
        if (stale.kind !== "acquired" || current.kind !== "acquired") throw new Error("expected two acquisitions");
        expect(current.sessionId).toBe(stale.sessionId);
        const id = stale.sessionId;
        expect(
          await store.completeCreate({
            session: fresh(account, 0, { id }),
            idempotencyKey: "k",
            fingerprint: "f",
            lock: stale.lock,
            ...QUIET,
          }),
        ).toBe(false);
        expect(await store.getSession(account, id)).toBeUndefined();
        await store.abandonCreate({
          accountId: account,
          idempotencyKey: "k",
          fingerprint: "f",
          lock: stale.lock,
          sessionId: id,
          keepMs: 60_000,
        });
        expect(await begin(store, account, "k", "f")).toEqual({ kind: "in_progress" });
        // The stale holder gave back nothing of the current one's: its place is still held.
        expect(await store.openSessions(account)).toBe(1);
        expect(
          await store.completeCreate({
            session: fresh(account, 0, { id }),
            idempotencyKey: "k",
            fingerprint: "f",
            lock: current.lock,
            ...QUIET,
          }),
        ).toBe(true);
      }),
    );

    it(
      "lets no create complete once its own lock has expired, even when nobody took the key over",
      withStore(async (store, account) => {
        const slow = await begin(store, account, "k", "f", 200);
        if (slow.kind !== "acquired") throw new Error("expected an acquisition");
        await sleep(250);
        expect(
          await store.completeCreate({
            session: fresh(account, 0, { id: slow.sessionId }),
            idempotencyKey: "k",
            fingerprint: "f",
            lock: slow.lock,
            ...QUIET,
          }),
        ).toBe(false);
        expect(await store.getSession(account, slow.sessionId)).toBeUndefined();
      }),
    );

    it(
      "refuses a new create at the account's cap, counting creates in flight; a released claim frees its place",
      withStore(async (store, account) => {
        await created(store, fresh(account));
        const inFlight = await begin(store, account, "k1", "f", 10_000, 2);
        if (inFlight.kind !== "acquired") throw new Error("expected an acquisition");
        expect(await begin(store, account, "k2", "f", 10_000, 2)).toEqual({ kind: "limit", open: 2 });
        expect(await store.openSessions(account)).toBe(2);
        await store.abandonCreate({
          accountId: account,
          idempotencyKey: "k1",
          fingerprint: "f",
          lock: inFlight.lock,
          sessionId: inFlight.sessionId,
          keepMs: 60_000,
        });
        expect(await begin(store, account, "k2", "f", 10_000, 2)).toMatchObject({ kind: "acquired" });
      }),
    );

    it(
      "frees the place of an ended session at once",
      withStore(async (store, account) => {
        const session = await created(store, fresh(account));
        expect(await begin(store, account, "k1", "f", 10_000, 1)).toEqual({ kind: "limit", open: 1 });
        await changed(
          store,
          session,
          { status: "cancelled", end_reason: "user_ended", ended_at: new Date().toISOString() },
          Date.now() + DAY_MS,
        );
        expect(await store.openSessions(account)).toBe(0);
        expect(await begin(store, account, "k1", "f", 10_000, 1)).toMatchObject({ kind: "acquired" });
      }),
    );
  });

  describe(`${adapter}: session records`, () => {
    it(
      "keeps the persona a session was created with, as given, for its TTL only; a session not created has none",
      withStore(async (store, account) => {
        const key = crypto.randomUUID();
        const begun = await begin(store, account, key, "print");
        if (begun.kind !== "acquired") throw new Error("expected an acquisition");
        const own = persona({
          id: crypto.randomUUID(),
          name: "Maya",
          instructions: "Be brief.\nBe kind.",
          llm: { model: "m", temperature: 0.5 },
        });
        const session = fresh(account, 0, { id: begun.sessionId, room_name: roomNameFor(begun.sessionId) });
        const completion = {
          session,
          idempotencyKey: key,
          fingerprint: "print",
          lock: begun.lock,
          ...QUIET,
          persona: own,
          personaTtlMs: 400,
        };
        expect(await store.completeCreate(completion)).toBe(true);
        expect(await store.sessionPersona(session.id)).toEqual(own);
        expect(await store.sessionPersona(crypto.randomUUID())).toBeUndefined();
        await sleep(450);
        expect(await store.sessionPersona(session.id)).toBeUndefined();
        expect(await store.getSession(account, session.id)).toEqual(session);
      }),
    );

    it(
      "forgets a session's persona once the session has ended",
      withStore(async (store, account) => {
        const session = await created(store, fresh(account));
        expect(await store.sessionPersona(session.id)).toEqual(persona());
        const active = await changed(store, session, { status: "active", started_at: new Date().toISOString() });
        expect(await store.sessionPersona(session.id)).toEqual(persona());
        const endedAt = new Date().toISOString();
        await changed(store, active, { status: "completed", ended_at: endedAt, end_reason: "user_ended" }, Date.now() + 60_000);
        expect(await store.sessionPersona(session.id)).toBeUndefined();
      }),
    );

    it(
      "never shows one account's session to another, whatever the id",
      withStore(async (store, account) => {
        const session = await created(store, fresh(account));
        expect(await store.getSession(`${account}_other`, session.id)).toBeUndefined();
        expect(await store.readForChange(`${account}_other`, session.id)).toBeUndefined();
        expect(await store.listSessions(`${account}_other`, listQuery())).toEqual([]);
      }),
    );

    it(
      "replaces a session only at the version it was read at",
      withStore(async (store, account) => {
        const session = await created(store, fresh(account));
        const read = await store.readForChange(account, session.id);
        if (!read) throw new Error("no session");
        const active = { ...read.record, status: "active" as const, started_at: new Date().toISOString() };
        expect(await store.replaceSession(change(read, active))).toBe(true);
        const lost = {
          ...read.record,
          status: "cancelled" as const,
          ended_at: new Date().toISOString(),
          end_reason: "user_ended" as const,
        };
        // What a lost compare-and-set would have changed with the session does not change either.
        const refused = change(read, lost, {
          expiresAtMs: Date.now() + DAY_MS,
          timers: { schedule: [{ timer: "room_deletion", atMs: Date.now() - 10 }], cancel: [] },
          livekitEvent: { id: "EV_lost", ttlMs: 10_000 },
        });
        expect(await store.replaceSession(refused)).toBe(false);
        expect(await store.getSession(account, session.id)).toEqual(active);
        expect(await store.claimDueTimers(Date.now(), 1000, 10)).toEqual([]);
        expect((await store.readForChange(account, session.id, "EV_lost"))?.eventApplied).toBe(false);
      }),
    );

    it(
      "changes a session's timers with it: the cancelled go, the scheduled come or move",
      withStore(async (store, account) => {
        const session = await created(store, fresh(account));
        const past = Date.now() - 10;
        await store.scheduleTimers(account, session.id, [
          { timer: "join_timeout", atMs: past },
          { timer: "dispatch_check", atMs: Date.now() + 60_000 },
        ]);
        const read = await store.readForChange(account, session.id);
        if (!read) throw new Error("no session");
        const timers = {
          schedule: [
            { timer: "dispatch_check" as const, atMs: past },
            { timer: "max_duration" as const, atMs: past },
          ],
          cancel: ["join_timeout" as const],
        };
        expect(await store.replaceSession(change(read, { ...read.record, status: "active" }, { timers }))).toBe(true);
        const due = await store.claimDueTimers(Date.now(), 1000, 10);
        expect(due.map((t) => [t.sessionId, t.timer]).sort()).toEqual([
          [session.id, "dispatch_check"],
          [session.id, "max_duration"],
        ]);
      }),
    );

    it(
      "remembers a LiveKit event that reached a session, with its change or alone, for that session, within its window",
      withStore(async (store, account) => {
        const [session, other] = [await created(store, fresh(account)), await created(store, fresh(account))];
        const read = await store.readForChange(account, session.id, "EV_1");
        expect(read?.eventApplied).toBe(false);
        if (!read) throw new Error("no session");
        const livekitEvent = { id: "EV_1", ttlMs: 300 };
        expect(await store.replaceSession(change(read, { ...read.record, status: "active" }, { livekitEvent }))).toBe(true);
        expect((await store.readForChange(account, session.id, "EV_1"))?.eventApplied).toBe(true);
        expect((await store.readForChange(account, session.id, "EV_2"))?.eventApplied).toBe(false);
        expect((await store.readForChange(account, other.id, "EV_1"))?.eventApplied).toBe(false);
        // One that changed nothing is remembered alone.
        await store.rememberEvent(other.id, "EV_3", 300);
        expect((await store.readForChange(account, other.id, "EV_3"))?.eventApplied).toBe(true);
        await sleep(350);
        expect((await store.readForChange(account, session.id, "EV_1"))?.eventApplied).toBe(false);
        expect((await store.readForChange(account, other.id, "EV_3"))?.eventApplied).toBe(false);
      }),
    );

    it(
      "lists newest first, by status, in pages that neither skip nor repeat",
      withStore(async (store, account) => {
        const sessions: SessionRecord[] = [];
        for (let i = 0; i < 7; i++) sessions.push(await created(store, fresh(account, (7 - i) * 1000)));
        // Ended ones, one of them created days ago.
        const old = await created(store, fresh(account, 3 * DAY_MS));
        for (const ended of [sessions[1], sessions[4], old] as SessionRecord[]) {
          const at = new Date().toISOString();
          await changed(store, ended, { status: "cancelled", end_reason: "user_ended", ended_at: at }, Date.now() + DAY_MS);
        }
        const newestFirst = [...sessions].reverse().map((s) => s.id);
        const all = await store.listSessions(account, listQuery());
        expect(all.map((s) => s.id)).toEqual([...newestFirst, old.id]);
        expect((await store.listSessions(account, listQuery({ status: "cancelled" }))).map((s) => s.id)).toEqual(
          [sessions[4], sessions[1], old].map((s) => (s as SessionRecord).id),
        );
        expect((await store.listSessions(account, listQuery({ status: "created" }))).map((s) => s.status)).toEqual(
          new Array(5).fill("created"),
        );
        const paged: string[] = [];
        let after: { createdAtMs: number; id: string } | undefined;
        for (;;) {
          const page = await store.listSessions(account, listQuery({ limit: 3, after }));
          paged.push(...page.slice(0, 3).map((s) => s.id));
          if (page.length <= 3) break;
          const last = page[2] as SessionRecord;
          after = { createdAtMs: Date.parse(last.created_at), id: last.id };
        }
        expect(paged).toEqual([...newestFirst, old.id]);
      }),
    );

    it(
      "forgets an ended session when its retention ends, from reads and lists alike, and keeps the open ones",
      withStore(async (store, account) => {
        const open = await created(store, fresh(account, 2000));
        const ended = await created(store, fresh(account, 1000));
        await changed(
          store,
          ended,
          { status: "cancelled", end_reason: "user_ended", ended_at: new Date().toISOString() },
          Date.now() + 300,
        );
        expect(await store.getSession(account, ended.id)).toBeDefined();
        await sleep(400);
        expect(await store.getSession(account, ended.id)).toBeUndefined();
        expect(await store.readForChange(account, ended.id)).toBeUndefined();
        expect((await store.listSessions(account, listQuery())).map((s) => s.id)).toEqual([open.id]);
        expect(await store.listSessions(account, listQuery({ status: "cancelled" }))).toEqual([]);
        expect(await store.openSessions(account)).toBe(1);
      }),
    );
  });

  describe(`${adapter}: timer queue`, () => {
    it(
      "hands each due timer to one claim while its lease lasts, and again once it has run out",
      withStore(async (store, account) => {
        const now = Date.now();
        await store.scheduleTimers(account, "s-1", [
          { timer: "join_timeout", atMs: now - 10 },
          { timer: "dispatch_check", atMs: now + 60_000 },
        ]);
        const first = await store.claimDueTimers(now, 300, 10);
        expect(first.map((t) => [t.accountId, t.sessionId, t.timer])).toEqual([[account, "s-1", "join_timeout"]]);
        expect(await store.claimDueTimers(now + 100, 300, 10)).toEqual([]);
        expect((await store.claimDueTimers(now + 301, 300, 10)).map((t) => t.timer)).toEqual(["join_timeout"]);
      }),
    );

    it(
      "removes a fired timer when told it is done, but not one scheduled again while it fired",
      withStore(async (store, account) => {
        const now = Date.now();
        await store.scheduleTimers(account, "s-1", [
          { timer: "join_timeout", atMs: now - 10 },
          { timer: "dispatch_check", atMs: now - 10 },
        ]);
        const due = await store.claimDueTimers(now, 1000, 10);
        expect(due).toHaveLength(2);
        await store.scheduleTimers(account, "s-1", [{ timer: "dispatch_check", atMs: now + 5000 }]);
        for (const timer of due) await store.completeTimer(timer);
        expect((await store.claimDueTimers(now + 10_000, 1000, 10)).map((t) => t.timer)).toEqual(["dispatch_check"]);
      }),
    );

    it(
      "cancels one timer, or every timer of a session's life but its room's deletion",
      withStore(async (store, account) => {
        const at = Date.now() - 10;
        await store.scheduleTimers(account, "s-1", [
          { timer: "join_timeout", atMs: at },
          { timer: "max_duration", atMs: at },
          { timer: "room_deletion", atMs: at },
        ]);
        await store.scheduleTimers(account, "s-2", [{ timer: "departure_timeout", atMs: at }]);
        await store.cancelTimers(account, "s-1");
        await store.cancelTimer(account, "s-2", "departure_timeout");
        expect((await store.claimDueTimers(Date.now(), 1000, 10)).map((t) => [t.sessionId, t.timer])).toEqual([["s-1", "room_deletion"]]);
      }),
    );
  });

  describe(`${adapter}: ending marks, leases`, () => {
    it(
      "reads an ending mark with its session until it expires or is cleared",
      withStore(async (store, account) => {
        const [one, two, three] = [
          await created(store, fresh(account)),
          await created(store, fresh(account)),
          await created(store, fresh(account)),
        ];
        const ending = async (session: SessionRecord) => (await store.readForChange(account, session.id))?.ending;
        await store.markEnding(account, one.id, 300);
        await store.markEnding(account, two.id, 10_000);
        expect([await ending(one), await ending(two), await ending(three)]).toEqual([true, true, false]);
        await store.clearEnding(account, two.id);
        await sleep(350);
        expect([await ending(one), await ending(two)]).toEqual([false, false]);
      }),
    );

    it(
      "gives a lease to one holder at a time, renewed by its holder, free once it runs out",
      withStore(async (store) => {
        const name = `lease-${crypto.randomUUID()}`;
        expect(await store.acquireLease(name, "r1", 300)).toBe(true);
        expect(await store.acquireLease(name, "r2", 300)).toBe(false);
        expect(await store.acquireLease(name, "r1", 300)).toBe(true);
        await sleep(350);
        expect(await store.acquireLease(name, "r2", 300)).toBe(true);
      }),
    );
  });
}
