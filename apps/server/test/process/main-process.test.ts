/**
 * The built server as an operator runs it (`pnpm start` runs dist/main.js): it serves on PORT, refuses
 * bad configuration with one line (wrong LiveKit credentials included, in production), and exits 0 on
 * SIGTERM.
 */

import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scopeValues } from "@dhs/contract";
import { FakeLiveKit, freePort, startRedis, type TestDatabase } from "@dhs/testkit";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { hashApiKey } from "../../src/domain/accounts/api-keys.js";
import { LAYOUT_VERSION } from "../../src/store/redis/keys.js";
import { migratedDatabase, useServiceDatabase } from "../support/database.js";
import { killServerProcesses, startServerProcess as start } from "../support/server-process.js";

afterEach(killServerProcesses);
// Redis runs with PostgreSQL, always: one database for the starts on Redis below.
const history = useServiceDatabase();

describe("dist/main.js", () => {
  it("runs on its embedded defaults: the development key works and the memory store is named", async () => {
    // Blank is unset: the product's own limit of open sessions, not the test helper's.
    const proc = start({ ACCOUNT_MAX_OPEN_SESSIONS: "" });
    const listening = (await proc.listening) as { url: string; store?: string; livekit?: string };
    expect(listening).toMatchObject({ store: "memory", livekit: "ws://localhost:7880" });
    expect((await fetch(`${listening.url}/healthz`)).status).toBe(200);
    const me = await fetch(`${listening.url}/v1/me`, { headers: { Authorization: "Bearer dhs_dev_insecure_local_key" } });
    expect(await me.json()).toMatchObject({
      key_id: "key_dev",
      account_id: "acct_dev",
      scopes: [...scopeValues],
      limits: { open_sessions: 20, requests_per_second: 100, burst: 200 },
      usage: { open_sessions: 0 },
    });
    proc.child.kill("SIGTERM");
    await proc.exited;
  });

  it("refuses to run in production on development defaults", async () => {
    const proc = start({ NODE_ENV: "production" });
    const [code] = await proc.exited;
    expect(code).toBe(1);
    expect(proc.output().stderr).toBe(
      "configuration error: REDIS_URL must be set in production (the in-memory store is for development only)\n",
    );
  });

  it("refuses to run in production on Redis alone, naming DATABASE_URL", async () => {
    const proc = start({ NODE_ENV: "production", REDIS_URL: "redis://127.0.0.1:1" });
    const [code] = await proc.exited;
    expect(code).toBe(1);
    expect(proc.output().stderr).toBe(
      "configuration error: DATABASE_URL must be set in production (production's record of history, configuration and knowledge is PostgreSQL)\n",
    );
  });

  it("refuses Redis without PostgreSQL in development too, naming DATABASE_URL", async () => {
    const proc = start({ REDIS_URL: "redis://127.0.0.1:1" });
    const [code] = await proc.exited;
    expect(code).toBe(1);
    expect(proc.output().stderr).toBe(
      "configuration error: REDIS_URL needs DATABASE_URL: PostgreSQL is the record of the digital humans, webhook endpoints, memories, documents and ended sessions\n",
    );
  });

  it("exits 0 on SIGTERM after finishing", async () => {
    const proc = start({});
    await proc.listening;
    proc.child.kill("SIGTERM");
    const [code] = await proc.exited;
    expect(code).toBe(0);
    expect(proc.output().stdout).toContain('"msg":"stopped"');
  });

  it("on SIGTERM finishes the request in flight, then exits 0", async () => {
    const livekit = await new FakeLiveKit().start();
    livekit.delayMs = 400;
    try {
      const proc = start({ LIVEKIT_API_URL: livekit.url });
      const { url } = await proc.listening;
      const inFlight = fetch(`${url}/v1/sessions`, {
        method: "POST",
        headers: { Authorization: "Bearer dhs_dev_insecure_local_key", "Idempotency-Key": crypto.randomUUID() },
      });
      while (livekit.arrived.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      proc.child.kill("SIGTERM");
      expect((await inFlight).status).toBe(201);
      const [code] = await proc.exited;
      expect(code).toBe(0);
    } finally {
      await livekit.stop();
    }
  });

  it("starts while Redis is down, unready until Redis comes, then ready without a restart", async () => {
    const port = await freePort();
    const proc = start({ REDIS_URL: `redis://127.0.0.1:${port}`, DATABASE_URL: history.url() });
    const { url } = await proc.listening;
    expect(proc.output().stdout).toContain("session store not reachable yet");
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/readyz`)).status).toBe(503);
    const redis = await startRedis({ port });
    try {
      let status = 0;
      for (let i = 0; i < 100 && status !== 200; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        status = (await fetch(`${url}/readyz`)).status;
      }
      expect(status).toBe(200);
    } finally {
      proc.child.kill("SIGTERM");
      await proc.exited;
      await redis.stop();
    }
  });

  it("refuses bad configuration with one line naming the variable and exit code 1", async () => {
    const proc = start({ PORT: "eighty" });
    const [code] = await proc.exited;
    expect(code).toBe(1);
    expect(proc.output().stderr).toBe('configuration error: PORT must be an integer from 0 to 65535 (got "eighty")\n');
  });

  describe("in production, LiveKit's credentials checked at start", () => {
    const keysFile = join(tmpdir(), `dhs-keys-${crypto.randomUUID()}.json`);
    writeFileSync(
      keysFile,
      JSON.stringify({
        keys: [
          { id: "key_p", account_id: "acct_p", scopes: ["sessions:read"], sha256: hashApiKey("dhs_production_test_key").toString("hex") },
        ],
      }),
    );
    // Production's record is PostgreSQL: one migrated database for these starts (none of them writes to it).
    let database: TestDatabase;
    beforeAll(async () => {
      database = await migratedDatabase();
    });
    afterAll(() => database?.drop());
    const production = (redisUrl: string, livekitApiUrl: string) => ({
      NODE_ENV: "production",
      REDIS_URL: redisUrl,
      DATABASE_URL: database.url,
      API_KEYS_FILE: keysFile,
      LIVEKIT_URL: "wss://livekit.example.net",
      LIVEKIT_API_URL: livekitApiUrl,
      LIVEKIT_API_KEY: "APIproduction",
      LIVEKIT_API_SECRET: "the-production-secret-of-32-chars!",
    });

    it("refused credentials stop the start with one line naming the variables and exit code 1", async () => {
      const redis = await startRedis();
      const livekit = await new FakeLiveKit("APIproduction", "another-secret-that-livekit-knows").start();
      try {
        const proc = start(production(redis.url, livekit.url));
        const [code] = await proc.exited;
        expect(code).toBe(1);
        expect(proc.output().stderr).toBe(
          "configuration error: LiveKit refused LIVEKIT_API_KEY and LIVEKIT_API_SECRET (401 or 403 from LIVEKIT_API_URL)\n",
        );
      } finally {
        await livekit.stop();
        await redis.stop();
      }
    });

    it("LiveKit unreachable still starts, unready until LiveKit answers, then ready without a restart", async () => {
      const redis = await startRedis();
      const port = await freePort();
      const proc = start(production(redis.url, `http://127.0.0.1:${port}`));
      let livekit: FakeLiveKit | undefined;
      try {
        const { url } = await proc.listening;
        expect(proc.output().stdout).toContain("LiveKit not reachable yet");
        expect((await fetch(`${url}/readyz`)).status).toBe(503);
        livekit = await new FakeLiveKit("APIproduction", "the-production-secret-of-32-chars!").start(port);
        let status = 0;
        for (let i = 0; i < 100 && status !== 200; i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          status = (await fetch(`${url}/readyz`)).status;
        }
        expect(status).toBe(200);
      } finally {
        proc.child.kill("SIGTERM");
        await proc.exited;
        await livekit?.stop();
        await redis.stop();
      }
    });
  });

  describe("the key layout Redis holds", () => {
    const refusal = (found: string) =>
      `configuration error: Redis holds key layout ${found} under REDIS_KEY_PREFIX "dhs"; this server reads and writes layout ${LAYOUT_VERSION}. ` +
      "Run the server version that wrote it, or give this one an empty Redis or another REDIS_KEY_PREFIX (see docs/operators.md, Upgrades)\n";

    /** A Redis prepared by `write`, and a client of it. */
    async function redisWith(write: (client: Redis) => Promise<unknown>, port?: number) {
      const redis = await startRedis(port === undefined ? {} : { port });
      const client = new Redis(redis.url);
      await write(client);
      return {
        url: redis.url,
        client,
        stop: async () => {
          client.disconnect();
          await redis.stop();
        },
      };
    }

    it("is claimed on an empty Redis, and a second server starts on it too", async () => {
      const redis = await redisWith(async () => undefined);
      try {
        for (const _ of [1, 2]) {
          const proc = start({ REDIS_URL: redis.url, DATABASE_URL: history.url() });
          await proc.listening;
          proc.child.kill("SIGTERM");
          expect((await proc.exited)[0]).toBe(0);
        }
        expect(await redis.client.get("dhs:layout")).toBe(String(LAYOUT_VERSION));
      } finally {
        await redis.stop();
      }
    });

    it.each([
      ["layout 2's, from before sessions spread by shard", "2", (c: Redis) => c.set("dhs:layout", "2")],
      ["a newer version's", "4", (c: Redis) => c.set("dhs:layout", "4")],
      ["layout 1's (from before the version key)", "1", (c: Redis) => c.zadd("dhs:{timers}:due", 1, "acct|s|join_timeout")],
    ])("stops the start with one line and exit code 1 when it is %s, and writes nothing", async (_name, found, write) => {
      const redis = await redisWith(write);
      try {
        const before = (await redis.client.keys("*")).sort();
        const proc = start({ REDIS_URL: redis.url, DATABASE_URL: history.url() });
        const [code] = await proc.exited;
        expect(code).toBe(1);
        expect(proc.output().stderr).toBe(refusal(found));
        expect((await redis.client.keys("*")).sort()).toEqual(before);
      } finally {
        await redis.stop();
      }
    });

    it("stops a server that started while Redis was down once Redis answers with another layout", async () => {
      const port = await freePort();
      const proc = start({ REDIS_URL: `redis://127.0.0.1:${port}`, DATABASE_URL: history.url() });
      await proc.listening;
      const redis = await redisWith((c) => c.set("dhs:layout", "4"), port);
      try {
        const [code] = await proc.exited;
        expect(code).toBe(1);
        expect(proc.output().stderr).toBe(refusal("4"));
      } finally {
        await redis.stop();
      }
    });
  });
});
