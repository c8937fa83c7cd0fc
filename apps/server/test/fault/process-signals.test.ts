/**
 * The server process stopped in the middle of work. SIGKILL (a crash, an OOM kill) mid-create leaves
 * pending idempotency locks behind: a replacement process answers those keys 409 in_progress, and no
 * longer than the lock timeout, after which every key creates (or replays) exactly one session. SIGTERM
 * under load (a deploy) lets every request in flight finish and exits 0. An error nobody handled (a
 * rejected promise no code waits on) stops it the same way, said at `fatal`, and exits 1 to be restarted.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { FakeLiveKit, type RedisServer, startRedis } from "@dhs/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { useServiceDatabase } from "../support/database.js";
import { startLoad } from "../support/load.js";
import { killServerProcesses, startServerProcess } from "../support/server-process.js";
import { createSession, DEV_KEY, ms, report, sleep } from "./support.js";

// Long enough that the replacement process is up before the locks expire, even on a busy machine.
const LOCK_TTL_S = 5;
let redis: RedisServer;
let livekit: FakeLiveKit;

const database = useServiceDatabase();
beforeAll(async () => {
  redis = await startRedis();
  livekit = await new FakeLiveKit().start();
});
afterEach(() => {
  killServerProcesses();
  livekit.reset();
});
afterAll(async () => {
  await redis?.stop();
  await livekit?.stop();
});

function serverEnv(): Record<string, string> {
  return {
    REDIS_URL: redis.url,
    DATABASE_URL: database.url(),
    REDIS_KEY_PREFIX: `f${crypto.randomUUID().slice(0, 8)}`,
    LIVEKIT_API_URL: livekit.url,
    // Short, but longer than a create can take (LiveKit 1 s + two Redis calls), as the config insists.
    IDEMPOTENCY_LOCK_TTL_S: String(LOCK_TTL_S),
    LIVEKIT_TIMEOUT_MS: "1000",
    REDIS_COMMAND_TIMEOUT_MS: "200",
    RATE_LIMIT_PER_SECOND: "100000",
    RATE_LIMIT_BURST: "100000",
  };
}

describe("a server process killed with SIGKILL in the middle of creates", () => {
  it("leaves no Idempotency-Key wedged beyond the lock timeout", async () => {
    livekit.delayMs = 300;
    const env = serverEnv();
    const first = startServerProcess(env);
    const firstUrl = (await first.listening).url;
    const keys = Array.from({ length: 30 }, () => crypto.randomUUID());
    // Spread over time so that at the kill some are done, some wait on LiveKit, some have not started.
    let done = 0;
    const pending = keys.map(async (key, i) => {
      await sleep(i * 25);
      return createSession(firstUrl, key).then(
        (res) => {
          done++;
          return res.status;
        },
        () => "no answer",
      );
    });
    while (done < 5 || livekit.roomsAsked.length - done < 5) await sleep(2);
    first.child.kill("SIGKILL");
    const killedAt = performance.now();
    const [, signal] = await first.exited;
    expect(signal).toBe("SIGKILL");
    const firstAnswers = await Promise.all(pending);
    expect(firstAnswers).toContain("no answer");
    expect(firstAnswers).toContain(201);

    // A replacement starts at once, as an orchestrator would restart it.
    livekit.delayMs = 0;
    const second = startServerProcess(env);
    const url = (await second.listening).url;
    const early = await Promise.all(keys.map(async (key) => ({ key, res: await createSession(url, key) })));
    const wedged = early.filter(({ res }) => res.status === 409);
    for (const { res } of wedged) {
      expect(((await res.json()) as { code: string }).code).toBe("idempotency_request_in_progress");
      expect(Number(res.headers.get("Retry-After"))).toBeLessThanOrEqual(LOCK_TTL_S);
    }
    expect(early.filter(({ res }) => res.status !== 201 && res.status !== 409)).toEqual([]);
    expect(wedged.length).toBeGreaterThan(0);

    // Once the lock timeout has passed since the kill, no key is blocked: each makes one session.
    const waitMs = LOCK_TTL_S * 1000 - (performance.now() - killedAt);
    await sleep(Math.max(waitMs, 0) + 50);
    const sessionIds = new Map<string, string>();
    for (const key of keys) {
      const res = await createSession(url, key);
      expect({ key, status: res.status }).toEqual({ key, status: 201 });
      sessionIds.set(key, ((await res.json()) as { id: string }).id);
      // And it stays one session: a second try replays it.
      const again = await createSession(url, key);
      expect(((await again.json()) as { id: string }).id).toBe(sessionIds.get(key));
    }
    const listed = (await (await fetch(`${url}/v1/sessions?limit=100`, { headers: { Authorization: `Bearer ${DEV_KEY}` } })).json()) as {
      data: { id: string }[];
    };
    expect(listed.data.map((s) => s.id).sort()).toEqual([...sessionIds.values()].sort());

    report("SIGKILL in the middle of creates", {
      "creates sent to the killed process": keys.length,
      "answered 201 before the kill": firstAnswers.filter((a) => a === 201).length,
      "left without an answer": firstAnswers.filter((a) => a === "no answer").length,
      "keys answered 409 in_progress right after restart": wedged.length,
      "lock timeout (s)": LOCK_TTL_S,
      "keys creating one session after the lock timeout": sessionIds.size,
    });
  });
});

describe("a server process sent SIGTERM under steady create load", () => {
  it("finishes every request in flight and exits 0", async () => {
    livekit.delayMs = 300;
    const server = startServerProcess({ ...serverEnv(), SHUTDOWN_GRACE_MS: "30000" });
    const url = (await server.listening).url;
    const load = startLoad((tag, signal) => createSession(url, tag, signal), { concurrency: 8, timeoutMs: 10_000 });
    await sleep(1200);
    // The requests the server was working on at the signal: LiveKit had been asked for their rooms.
    const inFlightRooms = new Set(livekit.roomsAsked);
    const sigtermAt = performance.now();
    server.child.kill("SIGTERM");
    const [code] = await server.exited;
    const exitedAt = performance.now();
    const samples = await load.stop();

    expect(code).toBe(0);
    // It exits when the last request is answered, not when the grace period ends: kept-alive
    // connections of finished requests do not hold it.
    expect(exitedAt - sigtermAt).toBeLessThan(15_000);
    const answered = samples.filter((s) => s.status !== undefined);
    // Whatever got an answer got a good one; the others found the port closed.
    expect(answered.filter((s) => s.status !== 201)).toEqual([]);
    const unanswered = samples.filter((s) => s.status === undefined);
    for (const s of unanswered)
      expect(s.sentAt, `a request sent ${ms(sigtermAt - s.sentAt)} ms before SIGTERM got no answer (${s.failure})`).toBeGreaterThan(
        sigtermAt - 50,
      );
    // Every room asked for before the signal belongs to a session that was answered 201.
    const answeredRooms = new Set(answered.map((s) => s.body.room_name as string));
    const lost = [...inFlightRooms].filter((room) => !answeredRooms.has(room));
    expect(lost).toEqual([]);
    const inFlightAtSignal = samples.filter((s) => s.sentAt < sigtermAt && s.endedAt > sigtermAt);
    expect(inFlightAtSignal.length).toBeGreaterThan(0);
    expect(inFlightAtSignal.every((s) => s.status === 201)).toBe(true);

    report("SIGTERM under load (8 concurrent creators, LiveKit 300 ms)", {
      "requests answered 201": answered.length,
      "in flight at SIGTERM, all finished 201": inFlightAtSignal.length,
      "refused after SIGTERM (port closed)": unanswered.length,
      "SIGTERM to exit (ms)": ms(exitedAt - sigtermAt),
      "exit code": String(code),
    });
  });
});

describe("a server process hit by an error nobody handled, under steady create load", () => {
  it("says so at fatal, finishes every request in flight and exits 1", async () => {
    // The fault comes from outside the service's code, as a library's stray rejection would: a module
    // preloaded into the real process rejects a promise nobody waits on when it gets SIGUSR2.
    const preload = join(mkdtempSync(join(tmpdir(), "dhs-fault-")), "stray-rejection.mjs");
    writeFileSync(preload, 'process.on("SIGUSR2", () => { Promise.reject(new Error("injected stray rejection")); });\n');
    livekit.delayMs = 300;
    const server = startServerProcess({
      ...serverEnv(),
      SHUTDOWN_GRACE_MS: "30000",
      NODE_OPTIONS: `--import=${pathToFileURL(preload).href}`,
    });
    const url = (await server.listening).url;
    const load = startLoad((tag, signal) => createSession(url, tag, signal), { concurrency: 8, timeoutMs: 10_000 });
    await sleep(1200);
    const faultAt = performance.now();
    server.child.kill("SIGUSR2");
    const [code] = await server.exited;
    const exitedAt = performance.now();
    const samples = await load.stop();

    expect(code).toBe(1);
    const fatal = server
      .output()
      .stdout.split("\n")
      .filter((line) => line.includes('"level":60'))
      .map((line) => JSON.parse(line) as { origin: string; err: { message: string }; msg: string });
    expect(fatal).toEqual([
      expect.objectContaining({ origin: "unhandledRejection", err: expect.objectContaining({ message: "injected stray rejection" }) }),
    ]);
    const answered = samples.filter((s) => s.status !== undefined);
    expect(answered.filter((s) => s.status !== 201)).toEqual([]);
    const inFlightAtFault = samples.filter((s) => s.sentAt < faultAt && s.endedAt > faultAt);
    expect(inFlightAtFault.length).toBeGreaterThan(0);
    expect(inFlightAtFault.every((s) => s.status === 201)).toBe(true);

    report("an error nobody handled under load (8 concurrent creators, LiveKit 300 ms)", {
      "requests answered 201": answered.length,
      "in flight at the fault, all finished 201": inFlightAtFault.length,
      "fault to exit (ms)": ms(exitedAt - faultAt),
      "exit code": String(code),
    });
  });
});
