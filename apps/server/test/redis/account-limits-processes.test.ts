/**
 * Across processes, as replicas run: the limit of open sessions holds exactly when two server processes
 * on one Redis take 50 simultaneous creates for one account, and a key revoked in the API keys file of a
 * running process is refused within 5 s, under load, with no other request failing and no restart.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FakeLiveKit, sleep, until } from "@dhs/testkit";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { hashApiKey } from "../../src/domain/accounts/api-keys.js";
import { useServiceDatabase } from "../support/database.js";
import { killServerProcesses, type ServerProcess, startServerProcess } from "../support/server-process.js";

const [STAYS, REVOKED] = ["dhs_test_limits_stays_key", "dhs_test_limits_revoked_key"];
const RW = ["sessions:read", "sessions:write"];
const key = (id: string, secret: string) => ({ id, account_id: "acct_l", scopes: RW, sha256: hashApiKey(secret).toString("hex") });

let livekit: FakeLiveKit;
let keysFile: string;
let processes: ServerProcess[];
const urls: string[] = [];

const database = useServiceDatabase();
beforeAll(async () => {
  livekit = await new FakeLiveKit().start();
  livekit.delayMs = 20;
  keysFile = join(mkdtempSync(join(tmpdir(), "dhs-limits-")), "keys.json");
  writeFileSync(
    keysFile,
    JSON.stringify({ keys: [key("key_stays", STAYS), key("key_revoked", REVOKED)], accounts: [{ id: "acct_l", max_open_sessions: 5 }] }),
  );
  const env = {
    REDIS_URL: inject("redisUrl"),
    DATABASE_URL: database.url(),
    REDIS_MODE: inject("redisMode"),
    REDIS_KEY_PREFIX: `lim${crypto.randomUUID().slice(0, 6)}`,
    API_KEYS_FILE: keysFile,
    LIVEKIT_API_URL: livekit.url,
    RATE_LIMIT_PER_SECOND: "100000",
    RATE_LIMIT_BURST: "100000",
  };
  processes = [startServerProcess(env), startServerProcess(env)];
  urls.push(...(await Promise.all(processes.map(async (p) => (await p.listening).url))));
});

afterAll(async () => {
  killServerProcesses();
  await livekit?.stop();
});

const create = (url: string, secret: string) =>
  fetch(`${url}/v1/sessions`, {
    method: "POST",
    headers: { Authorization: `Bearer ${secret}`, "Idempotency-Key": crypto.randomUUID(), "Content-Type": "application/json" },
    body: "{}",
  });

describe("two processes on one Redis", () => {
  it("give exactly five 201s for 50 simultaneous creates with a limit of 5", async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => create(urls[i % 2] as string, STAYS)));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(45);
    const ids = await Promise.all(answers.filter((r) => r.status === 201).map(async (r) => ((await r.json()) as { id: string }).id));
    await Promise.all(
      ids.map((id) => fetch(`${urls[0]}/v1/sessions/${id}/end`, { method: "POST", headers: { Authorization: `Bearer ${STAYS}` } })),
    );
  });
});

describe("a key revoked in the file of running processes", () => {
  it("is refused within 5 s on every process, under load, with no other request failing", async () => {
    const me = (url: string, secret: string) => fetch(`${url}/v1/me`, { headers: { Authorization: `Bearer ${secret}` } });
    let stop = false;
    const failures: string[] = [];
    let served = 0;
    const load = Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        while (!stop) {
          const res = await me(urls[i % 2] as string, STAYS);
          served++;
          if (res.status !== 200) failures.push(`${res.status} ${await res.text()}`);
        }
      }),
    );
    await sleep(500);
    const revokedAt = Date.now();
    writeFileSync(keysFile, JSON.stringify({ keys: [key("key_stays", STAYS)], accounts: [{ id: "acct_l", max_open_sessions: 5 }] }));
    await Promise.all(
      urls.map((url) => until(async () => (await me(url, REVOKED)).status === 401, { timeoutMs: 5000, what: `401 on ${url}` })),
    );
    const tookMs = Date.now() - revokedAt;
    await sleep(500);
    stop = true;
    await load;
    expect(failures).toEqual([]);
    expect(served).toBeGreaterThan(100);
    expect(tookMs).toBeLessThan(5000);
    console.log(
      `key revoked in the file: refused on both processes after ${tookMs} ms; ${served} requests of another key meanwhile, 0 failed`,
    );
  });

  it("a file that does not pass is refused with one log line, and the keys in force stay", async () => {
    const before = readFileSync(keysFile, "utf8");
    writeFileSync(keysFile, "{ not json");
    await until(() => processes.every((p) => p.output().stdout.includes("operator files not reloaded")), { timeoutMs: 5000 });
    for (const url of urls) {
      expect((await fetch(`${url}/v1/me`, { headers: { Authorization: `Bearer ${STAYS}` } })).status).toBe(200);
    }
    writeFileSync(keysFile, before);
  });

  it("a hash listed twice, or an empty key list without allow_no_keys, is refused; allow_no_keys is logged loudly", async () => {
    const before = readFileSync(keysFile, "utf8");
    const me = (url: string) => fetch(`${url}/v1/me`, { headers: { Authorization: `Bearer ${STAYS}` } });
    // One secret's hash under a second account (upper-cased, as a hand edit might leave it): refused.
    const moved = { ...key("key_moved", STAYS), account_id: "acct_other" };
    writeFileSync(keysFile, JSON.stringify({ keys: [key("key_stays", STAYS), { ...moved, sha256: moved.sha256.toUpperCase() }] }));
    await until(() => processes.every((p) => p.output().stdout.includes("is the same key as keys[0]")), { timeoutMs: 5000 });
    for (const url of urls) expect(await (await me(url)).json()).toMatchObject({ account_id: "acct_l" });

    writeFileSync(keysFile, JSON.stringify({ keys: [] }));
    await until(() => processes.every((p) => p.output().stdout.includes("lists no keys, which would refuse every request")), {
      timeoutMs: 5000,
    });
    for (const url of urls) expect((await me(url)).status).toBe(200);

    writeFileSync(keysFile, JSON.stringify({ keys: [], allow_no_keys: true }));
    await Promise.all(urls.map((url) => until(async () => (await me(url)).status === 401, { timeoutMs: 5000, what: `401 on ${url}` })));
    // A process's stdout reaches this test through a pipe, which may lag behind its HTTP answers.
    await until(() => processes.every((p) => p.output().stdout.includes("every request is refused 401 until keys are added")), {
      timeoutMs: 5000,
      what: "the no-keys line on every process",
    });

    writeFileSync(keysFile, before);
    await Promise.all(urls.map((url) => until(async () => (await me(url)).status === 200, { timeoutMs: 5000, what: `200 on ${url}` })));
  });

  it("SIGHUP reloads the files too", async () => {
    const [first] = processes;
    const reloads = () => (first?.output().stdout.match(/operator files reloaded/g) ?? []).length;
    const before = reloads();
    first?.child.kill("SIGHUP");
    await until(() => reloads() > before, { timeoutMs: 5000 });
    expect(first?.child.exitCode).toBeNull();
  });
});
