/**
 * Knowledge when its database fails, against a PostgreSQL server of the test's own (stopped here; the
 * machine's is never touched): a document added while PostgreSQL is down is answered 503 and nothing of
 * it is made (the same Idempotency-Key then makes it once); a document waiting to be processed while
 * PostgreSQL is down is processed once it is back, never left `processing`.
 */
import { createDatabase, FakeLiveKit, type PostgresServer, type RedisServer, startPostgres, startRedis, until } from "@dhs/testkit";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../support/database.js";
import { killServerProcesses, type ServerProcess, startServerProcess } from "../support/server-process.js";
import { DEV_KEY, sleep } from "./support.js";

let postgres: PostgresServer;
let redis: RedisServer;
let livekit: FakeLiveKit;

beforeAll(async () => {
  [postgres, redis, livekit] = await Promise.all([startPostgres(), startRedis(), new FakeLiveKit().start()]);
});
afterAll(async () => {
  killServerProcesses();
  await postgres?.destroy();
  await redis?.stop();
  await livekit?.stop();
});

const headers = { Authorization: `Bearer ${DEV_KEY}`, "Content-Type": "application/json" };

function replica(databaseUrl: string, prefix: string): ServerProcess {
  return startServerProcess({
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: prefix,
    DATABASE_URL: databaseUrl,
    LIVEKIT_API_URL: livekit.url,
    SWEEP_INTERVAL_MS: "100",
  });
}

function addDocument(url: string, key: string, name: string): Promise<Response> {
  return fetch(`${url}/v1/documents`, {
    method: "POST",
    headers: { ...headers, "Idempotency-Key": key },
    body: JSON.stringify({ name, format: "text", content: "Breakfast is served from seven." }),
    signal: AbortSignal.timeout(10_000),
  });
}

async function documentsNamed(url: string, name: string): Promise<{ id: string; status: string }[]> {
  const res = await fetch(`${url}/v1/documents?limit=100`, { headers });
  const body = (await res.json()) as { data: { id: string; name: string; status: string }[] };
  return body.data.filter((d) => d.name === name);
}

async function untilAnswers(url: string): Promise<void> {
  const answers = async () => (await fetch(`${url}/v1/documents?limit=1`, { headers }).catch(() => undefined))?.status === 200;
  await until(answers, { what: "the service to answer for documents again", timeoutMs: 20_000, everyMs: 100 });
}

describe("knowledge while PostgreSQL is down", () => {
  it("a document added is answered 503 and nothing of it is made; its Idempotency-Key makes it once PostgreSQL is back", {
    timeout: 90_000,
  }, async () => {
    const database = await createDatabase({ adminUrl: postgres.url, prefix: "upload" });
    await migrate(database.url);
    const proc = replica(database.url, "upload");
    const url = (await proc.listening).url as string;
    const key = crypto.randomUUID();
    await postgres.stop("immediate");
    try {
      const refused = await addDocument(url, key, "During the outage");
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { code: string }).code).toBe("service_unavailable");
      expect(refused.headers.get("Retry-After")).not.toBeNull();
    } finally {
      await postgres.start();
    }
    await untilAnswers(url);
    expect(await documentsNamed(url, "During the outage")).toEqual([]);
    const made = await addDocument(url, key, "During the outage");
    expect(made.status).toBe(201);
    const again = await addDocument(url, key, "During the outage");
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await documentsNamed(url, "During the outage")).toHaveLength(1);
    proc.child.kill("SIGTERM");
  });

  it("a document waiting to be processed while PostgreSQL is down is processed once it is back", { timeout: 90_000 }, async () => {
    const database = await createDatabase({ adminUrl: postgres.url, prefix: "processing" });
    await migrate(database.url);
    // Stored as a create stores it, by a replica that died before processing it (none runs yet).
    const id = `doc_${"5c".repeat(12)}`;
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query(
      `INSERT INTO documents (owner, id, name, format, language, config, status, size_bytes, content, created_at, updated_at)
       VALUES ('acct_dev', $1, 'Left behind', 'text', 'en', 'english', 'processing', 31, 'Breakfast is served from seven.', now(), now())`,
      [id],
    );
    await client.end();
    await postgres.stop("immediate");
    const proc = replica(database.url, "processing");
    const url = (await proc.listening).url as string;
    // Its processor's passes fail while the database is down (each logged, none fatal).
    await sleep(3000);
    await postgres.start();
    const processed = async () => {
      const res = await fetch(`${url}/v1/documents/${id}`, { headers }).catch(() => undefined);
      const doc = res?.status === 200 ? ((await res.json()) as { status: string; chunks: number }) : undefined;
      return doc?.status === "processing" ? undefined : doc;
    };
    const ready = await until(processed, { what: "the document processed after PostgreSQL came back", timeoutMs: 30_000, everyMs: 100 });
    expect(ready).toMatchObject({ status: "ready", chunks: 1 });
    proc.child.kill("SIGTERM");
  });
});
