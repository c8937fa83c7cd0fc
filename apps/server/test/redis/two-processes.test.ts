/**
 * Two server processes (the built dist/main.js) on one Redis, as replicas behind a load balancer:
 * concurrent creates with shared Idempotency-Keys, alternating between the processes, make exactly one
 * session per key, and each process serves the sessions the other created.
 */

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FakeLiveKit } from "@dhs/testkit";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { hashApiKey } from "../../src/domain/accounts/api-keys.js";
import { useServiceDatabase } from "../support/database.js";
import { killServerProcesses, startServerProcess } from "../support/server-process.js";

const KEY = "dhs_test_two_processes";
const urls: string[] = [];
let livekit: FakeLiveKit;

const database = useServiceDatabase();
beforeAll(async () => {
  livekit = await new FakeLiveKit().start();
  livekit.delayMs = 50;
  const dir = mkdtempSync(join(tmpdir(), "dhs-two-"));
  const apiKeysFile = join(dir, "keys.json");
  writeFileSync(
    apiKeysFile,
    JSON.stringify({
      keys: [{ id: "key_p", account_id: "acct_p", scopes: ["sessions:read", "sessions:write"], sha256: hashApiKey(KEY).toString("hex") }],
    }),
  );
  const env = {
    LOG_LEVEL: "info",
    REDIS_URL: inject("redisUrl"),
    DATABASE_URL: database.url(),
    REDIS_MODE: inject("redisMode"),
    API_KEYS_FILE: apiKeysFile,
    LIVEKIT_API_URL: livekit.url,
  };
  const processes = [startServerProcess(env), startServerProcess(env)];
  urls.push(...(await Promise.all(processes.map(async (p) => (await p.listening).url))));
});

afterAll(async () => {
  killServerProcesses();
  await livekit?.stop();
});

describe("two processes sharing one Redis", () => {
  it("make exactly one session per key under concurrent creates with shared keys", async () => {
    const keys = Array.from({ length: 10 }, () => crypto.randomUUID());
    const requests = keys.flatMap((idempotencyKey, k) =>
      Array.from({ length: 10 }, (_, i) =>
        fetch(`${urls[(k + i) % 2]}/v1/sessions`, {
          method: "POST",
          headers: { Authorization: `Bearer ${KEY}`, "Idempotency-Key": idempotencyKey, "Content-Type": "application/json" },
          body: JSON.stringify({ participant_identity: `p-${k}` }),
        }).then(async (res) => ({ key: idempotencyKey, status: res.status, body: (await res.json()) as Record<string, any> })),
      ),
    );
    const results = await Promise.all(requests);
    expect(results.every((r) => r.status === 201 || (r.status === 409 && r.body.code === "idempotency_request_in_progress"))).toBe(true);
    for (const key of keys) {
      const ids = new Set(results.filter((r) => r.key === key && r.status === 201).map((r) => r.body.id));
      expect(ids.size, `sessions for key ${key}`).toBe(1);
    }
    expect(livekit.callsOf("CreateRoom")).toHaveLength(keys.length);

    // Either process serves a session the other created.
    const someId = results.find((r) => r.status === 201)?.body.id;
    for (const url of urls) {
      const res = await fetch(`${url}/v1/sessions/${someId}`, { headers: { Authorization: `Bearer ${KEY}` } });
      expect(res.status).toBe(200);
    }
  });
});
