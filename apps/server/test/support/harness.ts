/**
 * Boots the real service in-process (configuration, composition, Express on port 0) against the store
 * the project names (DHS_TEST_STORE: redis or cluster, each with a PostgreSQL database of its own, or
 * memory) and a FakeLiveKit, with API keys of two accounts (the testkit's fixtures). Tests of behaviour call it through @dhs/client (`h.client(key)`,
 * never retrying behind the test's back); tests of HTTP itself send what they like with `h.request`.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, type DhsClient, type ListSessionsQuery, type Session, type SessionSummary } from "@dhs/client";
import { FakeLiveKit, type Fixtures, KEYS, LIVEKIT, signLiveKitWebhook, writeOperatorFiles } from "@dhs/testkit";
import { TokenVerifier } from "livekit-server-sdk";
import { pino } from "pino";

export { DIGITAL_HUMANS, type Fixtures, KEYS, LIVEKIT, signLiveKitWebhook as signWebhook, until } from "@dhs/testkit";

import { afterAll, beforeAll, beforeEach, expect, inject } from "vitest";
import { type Composed, type ComposeOverrides, compose } from "../../src/compose.js";
import { loadConfig } from "../../src/config.js";
import { metricsListener } from "../../src/http/metrics-server.js";
import { type RunningServer, startWebServer } from "../../src/http/server.js";
import { databaseFrom } from "./database.js";
import { logSink } from "./log-sink.js";

/** Every operation on one webhook endpoint, by the client's name, called with the endpoint's id. */
export const ENDPOINT_OPERATIONS: readonly [string, (client: DhsClient, id: string) => Promise<ClientResult>][] = [
  ["getWebhookEndpoint", (client, id) => client.getWebhookEndpoint(id)],
  ["deleteWebhookEndpoint", (client, id) => client.deleteWebhookEndpoint(id)],
  ["rotateWebhookEndpointSecret", (client, id) => client.rotateWebhookEndpointSecret(id)],
  ["enableWebhookEndpoint", (client, id) => client.enableWebhookEndpoint(id)],
  ["testWebhookEndpoint", (client, id) => client.testWebhookEndpoint(id)],
  ["listWebhookDeliveries", (client, id) => client.listWebhookDeliveries(id)],
];

/** memory; or redis or cluster, each with PostgreSQL (a database of the harness's own). */
export const STORE = (process.env.DHS_TEST_STORE ?? "memory") as "redis" | "cluster" | "memory";

export interface Harness {
  url: string;
  /** The metrics port's base URL (GET /metrics there). */
  metricsUrl: string;
  livekit: FakeLiveKit;
  composed: Composed;
  logs: string[];
  /** The harness's own key prefix on the run's Redis (memory: none). */
  redisPrefix: string | undefined;
  /** Its own PostgreSQL database (on Redis and Redis Cluster; none in memory). */
  databaseUrl: string | undefined;
  /** The typed client, as a customer's backend calls the API, with `key` (account A's read-write key by default) and no retries. */
  client(key?: string): DhsClient;
  /**
   * The typed client as a customer's backend keeps it, retrying a 503 (the same Idempotency-Key) with
   * backoff: for bursts whose outcome, not their first answers, is what a test is about. A starved test
   * machine answers some of a burst 503 (a Redis reply read after its command timed out), as a busy
   * replica would, and a customer's client retries those.
   */
  retryingClient(key?: string): DhsClient;
  /** key: the API key to send (account A's read-write key when undefined, none when null). */
  request(
    method: string,
    path: string,
    init?: { key?: string | null | undefined; body?: unknown; raw?: string; headers?: Record<string, string> },
  ): Promise<Response>;
  create(body?: unknown, options?: { key?: string; idempotencyKey?: string }): Promise<Response>;
  /** Posts a LiveKit webhook event, signed as LiveKit signs it (unless a signature is given). */
  webhook(event: Record<string, unknown>, options?: { authorization?: string | null; raw?: string }): Promise<Response>;
  /** Reads a session as its owner (account A) sees it, through the client (200 expected). */
  session(id: string): Promise<Session>;
  close(): Promise<void>;
}

/** How a harness reaches its history database: directly, or through a port of the test's (a TcpGate). */
export interface DatabaseRoute {
  databasePort?: () => number;
}

export async function startHarness(
  env: Record<string, string> = {},
  overrides: ComposeOverrides = {},
  files: Fixtures = {},
  route: DatabaseRoute = {},
): Promise<Harness> {
  const livekit = await new FakeLiveKit(LIVEKIT.apiKey, LIVEKIT.apiSecret).start();
  const fixtures = writeOperatorFiles(files);
  // A replica of another harness's deployment shares its database (env.DATABASE_URL): the other drops it.
  const database = STORE === "memory" || env.DATABASE_URL !== undefined ? undefined : await databaseFrom(inject("databaseTemplate"));
  const recordingDir = mkdtempSync(join(tmpdir(), "dhs-recordings-"));
  // A harness that fails to start (a composition that throws, a store that never answers) still
  // drops its database and stops its fake LiveKit: nothing of a failed start outlives the test run.
  try {
    const config = loadConfig({
      NODE_ENV: "test",
      API_KEYS_FILE: fixtures.apiKeysFile,
      DIGITAL_HUMANS_FILE: fixtures.digitalHumansFile,
      LIVEKIT_URL: LIVEKIT.url,
      LIVEKIT_API_URL: livekit.url,
      LIVEKIT_API_KEY: LIVEKIT.apiKey,
      LIVEKIT_API_SECRET: LIVEKIT.apiSecret,
      VALIDATE_RESPONSES: "true",
      // The tests' webhook receivers listen on loopback.
      WEBHOOK_ALLOW_PRIVATE_URLS: "true",
      // The default 500 ms is for a service with a core to itself; here dozens of test files share two
      // cores, and an event loop starved for half a second turns a command Redis answered into a 503
      // that tests nothing. The tests of a timing-out Redis set their own (idempotency, create-crash,
      // and the fault tier's server processes, which keep the default).
      REDIS_COMMAND_TIMEOUT_MS: "3000",
      // Suites create sessions by the hundred and leave them open; the cap's own tests set theirs.
      ACCOUNT_MAX_OPEN_SESSIONS: "100000",
      // Test files run in parallel on one Redis: each harness gets a keyspace of its own (its sessions,
      // and its timers, which no other harness's sweeper may fire), unless a test shares one on purpose.
      ...(STORE === "memory"
        ? {}
        : { REDIS_URL: inject("redisUrl"), REDIS_MODE: inject("redisMode"), REDIS_KEY_PREFIX: `t${crypto.randomUUID().slice(0, 8)}` }),
      ...(database ? { DATABASE_URL: routed(database.url, route) } : {}),
      // Each harness keeps its recordings apart (removed when it closes).
      RECORDING_DIR: recordingDir,
      ...env,
    });
    const logs: string[] = [];
    const sink = logSink("harness");
    const logger = pino(
      { level: config.logLevel },
      {
        write: (line: string) => {
          logs.push(line);
          sink.write(line);
        },
      },
    );
    const composed = compose(config, logger, overrides);
    if (!(await composed.waitForStore(10_000))) throw new Error("the test store did not answer");
    const limits = { ...config.connections, onDrop: composed.metrics.connectionDropped };
    const server: RunningServer = await startWebServer(composed.handler, 0, "127.0.0.1", limits);
    composed.recordings.listeningOn(server.port);
    const metricsServer: RunningServer = await startWebServer(metricsListener(composed.metrics), 0, "127.0.0.1", limits);
    composed.sweeper.start();
    composed.dispatcher.start();
    composed.historyWriter?.start();
    composed.documentProcessor.start();

    const request: Harness["request"] = (method, path, init = {}) => {
      const headers: Record<string, string> = { ...init.headers };
      const key = init.key === undefined ? KEYS.a : init.key;
      if (key !== null) headers.Authorization = `Bearer ${key}`;
      let body: string | undefined = init.raw;
      if (init.body !== undefined) body = JSON.stringify(init.body);
      if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === "content-type"))
        headers["Content-Type"] = "application/json";
      return fetch(`${server.url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
    };

    // One client per key, made once, with the retries a caller asked for.
    const clientsWith = (maxRetries: number) => {
      const made = new Map<string, DhsClient>();
      return (key: string = KEYS.a): DhsClient => {
        let client = made.get(key);
        if (!client) {
          client = createClient({ baseUrl: server.url, apiKey: key, maxRetries });
          made.set(key, client);
        }
        return client;
      };
    };
    const client: Harness["client"] = clientsWith(0);
    const retryingClient: Harness["retryingClient"] = clientsWith(8);

    return {
      url: server.url,
      metricsUrl: metricsServer.url,
      redisPrefix: config.redisUrl ? config.redisKeyPrefix : undefined,
      databaseUrl: database?.url ?? env.DATABASE_URL,
      livekit,
      composed,
      logs,
      client,
      retryingClient,
      request,
      create: (body = {}, options = {}) =>
        request("POST", "/v1/sessions", {
          key: options.key ?? KEYS.a,
          body,
          headers: { "Idempotency-Key": options.idempotencyKey ?? crypto.randomUUID() },
        }),
      webhook: async (event, options = {}) => {
        const body = options.raw ?? JSON.stringify(event);
        const authorization = options.authorization === undefined ? await signLiveKitWebhook(body) : options.authorization;
        return fetch(`${server.url}/livekit/webhook`, {
          method: "POST",
          headers: { "Content-Type": "application/webhook+json", ...(authorization === null ? {} : { Authorization: authorization }) },
          body,
        });
      },
      session: async (id) => expectData(await client().getSession(id)),
      close: async () => {
        await Promise.all([server.stop(1000), metricsServer.stop(1000)]);
        await composed.close();
        await database?.drop();
        await livekit.stop();
        rmSync(recordingDir, { recursive: true, force: true });
        await new Promise((resolve) => sink.end(resolve));
      },
    };
  } catch (error) {
    await database?.drop().catch(() => undefined);
    await livekit.stop();
    throw error;
  }
}

/**
 * A harness for the whole test file: started before its first test, closed after its last, and its fake
 * LiveKit reset before each test (so one test's calls and failure modes never leak into the next). The
 * returned object reads the started harness on each use, so it can be taken at the top of the file.
 */
export function useHarness(
  env: Record<string, string> = {},
  overrides: ComposeOverrides = {},
  files: Fixtures = {},
  route: DatabaseRoute = {},
): Harness {
  let started: Harness | undefined;
  beforeAll(async () => {
    started = await startHarness(env, overrides, files, route);
  });
  afterAll(async () => {
    await started?.close();
  });
  beforeEach(() => {
    started?.livekit.reset();
  });
  return new Proxy({} as Harness, {
    get(_target, property: keyof Harness) {
      if (!started) throw new Error("the harness is used before the file's beforeAll started it");
      return started[property];
    },
  });
}

function routed(url: string, route: DatabaseRoute): string {
  if (!route.databasePort) return url;
  const via = new URL(url);
  via.port = String(route.databasePort());
  return via.toString();
}

export const tokenVerifier = new TokenVerifier(LIVEKIT.apiKey, LIVEKIT.apiSecret);

/** A session created for account A with a participant identity of its own, and that identity. */
export async function newSession(h: Harness, identity = `u-${crypto.randomUUID().slice(0, 8)}`): Promise<Session & { identity: string }> {
  const { data, error } = await h.client().createSession({ participant_identity: identity });
  if (!data) throw new Error(`the session was not created: ${JSON.stringify(error)}`);
  return { ...data, identity };
}

/** Account A's sessions as its list shows them, through the client: the newest 100 unless the query says otherwise. */
export async function listed(h: Harness, query: ListSessionsQuery = {}): Promise<SessionSummary[]> {
  return expectData(await h.client().listSessions({ limit: 100, ...query })).data;
}

/** A client call's data, once its status is the one expected (undefined in its type no more). */
export function expectData<T>(result: { data?: T; response: Response }, status = 200): T {
  expect(result.response.status).toBe(status);
  return result.data as T;
}

/** What a client call resolves to: openapi-fetch's data or error, and the response they came in. */
export interface ClientResult {
  error?: unknown;
  response: Response;
}

/**
 * An ApiError answer: the status, the code, the JSON content type, and request_id equal to X-Request-ID.
 * Takes a raw Response (its body read here) or what a client call resolved to (its error already read).
 */
export async function expectApiError(
  answer: Response | ClientResult,
  status: number,
  code: string,
): Promise<{ code: string; detail: any; request_id: string }> {
  const res = answer instanceof Response ? answer : answer.response;
  const body = (answer instanceof Response ? await answer.json() : answer.error) as { code: string; detail: any; request_id: string };
  expect({ status: res.status, code: body?.code }).toEqual({ status, code });
  expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
  expect(body.request_id).toBe(res.headers.get("X-Request-ID"));
  expect(Object.keys(body).sort()).toEqual(["code", "detail", "request_id"]);
  return body;
}

let eventCounter = 0;

/** A LiveKit webhook event about a session's room, as LiveKit sends it (protobuf JSON). */
export function roomEvent(
  event: "participant_joined" | "participant_left" | "room_finished" | "room_started",
  session: { id: string; room_name: string },
  participant?: { identity: string; kind?: "STANDARD" | "AGENT"; sid?: string },
  accountId = "acct_a",
): Record<string, unknown> {
  return {
    event,
    id: `EV_${Date.now()}_${++eventCounter}`,
    createdAt: String(Math.floor(Date.now() / 1000)),
    room: { sid: `RM_${session.id}`, name: session.room_name, metadata: JSON.stringify({ session_id: session.id, account_id: accountId }) },
    ...(participant
      ? {
          participant: {
            sid: participant.sid ?? `PA_${participant.identity}`,
            identity: participant.identity,
            kind: participant.kind ?? "STANDARD",
          },
        }
      : {}),
  };
}
