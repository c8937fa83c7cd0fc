/**
 * A create and an end step across Redis slots (store/redis/sessions/idempotent-creates.ts and
 * session-records.ts): this stops a replica for good between each two of its steps, as a crash would (the
 * request never answers, nothing after the step runs), and checks what another replica of the same
 * deployment, sharing its Redis and its LiveKit, then makes of it: the retry with the same
 * Idempotency-Key finishes the create with the same session (and the same room), or, without a retry,
 * the crashed create's place under the cap is given back; an end stored but not followed up has its
 * place given back and its usage counted once.
 */
import { Redis } from "ioredis";
import { afterEach, describe, expect, inject, it } from "vitest";
import { RedisSessionStore, type StoreStep } from "../../src/store/redis/session-store.js";
import { type Harness, KEYS, startHarness } from "../support/harness.js";

const LOCK_TTL_MS = 1000;
// The grace after which a create's expired claim is taken for dead, short for the test.
const CLAIM_GRACE_MS = 200;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const started: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of started.splice(0)) await s.close();
});

/**
 * Two replicas of one deployment: `crashing` stops for good after `step` (the request that reaches it
 * never answers), `survivor` carries on. Account A may have `cap` sessions open.
 */
async function replicas(step: StoreStep, cap: number): Promise<{ crashing: Harness; survivor: Harness }> {
  const prefix = `crash${crypto.randomUUID().slice(0, 8)}`;
  const env = {
    REDIS_KEY_PREFIX: prefix,
    IDEMPOTENCY_LOCK_TTL_S: String(LOCK_TTL_MS / 1000),
    LIVEKIT_TIMEOUT_MS: "200",
    REDIS_COMMAND_TIMEOUT_MS: "200",
    ACCOUNT_MAX_OPEN_SESSIONS: String(cap),
  };
  const storeOf = (afterStep?: (at: StoreStep) => Promise<void>) => {
    const redis = new Redis(inject("redisUrl"));
    return new RedisSessionStore(redis, { prefix, claimGraceMs: CLAIM_GRACE_MS, repairIntervalMs: 0, ...(afterStep ? { afterStep } : {}) });
  };
  const crashing = await startHarness(env, { store: storeOf(async (at) => (at === step ? new Promise(() => {}) : undefined)) });
  started.push(crashing);
  // The survivor talks to the same LiveKit: the rooms the crashed replica made are there.
  // And the same database, which the crashing one drops when it closes, after the survivor.
  const survivor = await startHarness(
    { ...env, LIVEKIT_API_URL: crashing.livekit.url, DATABASE_URL: crashing.databaseUrl as string },
    { store: storeOf() },
  );
  started.unshift(survivor);
  return { crashing, survivor };
}

/** Sends a request to the crashing replica and gives up on its answer, which never comes. */
async function untilCrashed(send: (signal: AbortSignal) => Promise<Response>): Promise<void> {
  await expect(send(AbortSignal.timeout(1500))).rejects.toThrow();
}

const createOn = (h: Harness, idempotencyKey: string, signal?: AbortSignal) =>
  fetch(`${h.url}/v1/sessions`, {
    method: "POST",
    headers: { Authorization: `Bearer ${KEYS.a}`, "Content-Type": "application/json", "Idempotency-Key": idempotencyKey },
    body: JSON.stringify({ participant_identity: "crash-user" }),
    ...(signal ? { signal } : {}),
  });

async function listed(h: Harness): Promise<{ id: string; status: string; room_name: string }[]> {
  return (
    (await (await h.request("GET", "/v1/sessions?limit=100")).json()) as { data: { id: string; status: string; room_name: string }[] }
  ).data;
}

const openSessions = async (h: Harness) =>
  ((await (await h.request("GET", "/v1/me")).json()) as { usage: { open_sessions: number } }).usage.open_sessions;

async function usageToday(h: Harness): Promise<{ sessions_created: number; sessions_ended: Record<string, number> }> {
  const body = (await (await h.request("GET", "/v1/usage")).json()) as {
    totals: { sessions_created: number; sessions_ended: Record<string, number> };
  };
  return body.totals;
}

const CREATE_STEPS: StoreStep[] = ["create:claimed", "create:completing", "create:stored"];

describe("a create whose replica dies after a step", () => {
  it.each(CREATE_STEPS)("after %s, is finished by the retry with its key: one session, its room, counted once", async (step) => {
    const { crashing, survivor } = await replicas(step, 1);
    const key = crypto.randomUUID();
    await untilCrashed((signal) => createOn(crashing, key, signal));
    // Until the crashed create's lock expires the key is in progress (or done, if it got that far).
    await sleep(LOCK_TTL_MS + 50);

    const retried = await createOn(survivor, key);
    expect(retried.status).toBe(201);
    const session = (await retried.json()) as { id: string; room_name: string };
    const again = await createOn(survivor, key);
    expect(again.status).toBe(201);
    expect(((await again.json()) as { id: string }).id).toBe(session.id);

    expect((await listed(survivor)).map((s) => s.id)).toEqual([session.id]);
    // The cap is 1: the one session holds the only place, the crashed create none of its own.
    expect(await openSessions(survivor)).toBe(1);
    // One room, the session's: the retry continued the crashed create's session, and its room.
    expect([...crashing.livekit.rooms]).toEqual([session.room_name]);
    await sleep(CLAIM_GRACE_MS);
    expect(await openSessions(survivor)).toBe(1);
    expect((await usageToday(survivor)).sessions_created).toBe(1);
  });

  it.each(CREATE_STEPS)("after %s, with no retry, gives its place back once its claim has expired", async (step) => {
    const { crashing, survivor } = await replicas(step, 1);
    await untilCrashed((signal) => createOn(crashing, crypto.randomUUID(), signal));
    await sleep(LOCK_TTL_MS + CLAIM_GRACE_MS + 50);

    // The place is the cap's only one: a new create gets it (the crashed one is found dead, or stored).
    const sessions = await listed(survivor);
    const res = await createOn(survivor, crypto.randomUUID());
    if (step === "create:stored") {
      // Its session was stored with its key: it holds the place, and the new create is refused.
      expect(sessions).toHaveLength(1);
      expect(res.status).toBe(429);
      expect(await openSessions(survivor)).toBe(1);
      expect((await usageToday(survivor)).sessions_created).toBe(1);
    } else {
      expect(sessions).toEqual([]);
      expect(res.status).toBe(201);
      const session = (await res.json()) as { room_name: string };
      expect(await openSessions(survivor)).toBe(1);
      // A room the crashed create made has no session: the reconciler deletes such a room after its grace.
      const orphans = [...crashing.livekit.rooms].filter((room) => room !== session.room_name);
      expect(orphans.length).toBe(step === "create:completing" ? 1 : 0);
      expect((await usageToday(survivor)).sessions_created).toBe(1);
    }
  });
});

describe("an end whose replica dies after storing it", () => {
  it("leaves the session ended and listed once; its place is given back and its end counted once", async () => {
    const { crashing, survivor } = await replicas("end:replaced", 1);
    const created = await createOn(survivor, crypto.randomUUID());
    expect(created.status).toBe(201);
    const session = (await created.json()) as { id: string };
    await untilCrashed((signal) =>
      fetch(`${crashing.url}/v1/sessions/${session.id}/end`, { method: "POST", headers: { Authorization: `Bearer ${KEYS.a}` }, signal }),
    );

    const seen = await listed(survivor);
    expect(seen.map((s) => [s.id, s.status])).toEqual([[session.id, "cancelled"]]);
    // The place is free for a new create: the create at the cap repairs the account.
    const next = await createOn(survivor, crypto.randomUUID());
    expect(next.status).toBe(201);
    expect(await openSessions(survivor)).toBe(1);
    const usage = await usageToday(survivor);
    expect(usage.sessions_created).toBe(2);
    expect(usage.sessions_ended.cancelled).toBe(1);
    expect((await listed(survivor)).filter((s) => s.id === session.id)).toHaveLength(1);
  });
});
