/**
 * Slow and idle clients cannot hold the process: a bounded number of loopback connections trickle
 * headers, trickle a body, or stay open after a refusal, while ordinary requests go on beside them. Each
 * slow connection must be closed within its limit (HEADERS_TIMEOUT_S, REQUEST_TIMEOUT_S, or at once
 * after a 401/403), and every ordinary request must succeed meanwhile. Beyond MAX_CONNECTIONS, a new
 * connection is closed at accept.
 *
 * Each bound on when a connection closes sits far below the time it would close if the behaviour under
 * test were missing (the rest of a trickle to arrive, a 30 s request limit, the 65 s keep-alive), not
 * just above the limit: a loaded machine delays the server's 1 s check by seconds, which says nothing
 * about which timer closed the connection.
 */
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type Harness, KEYS, signWebhook, useHarness } from "../support/harness.js";

// SLOW_CONNECTIONS=2000 measures more than the suite needs.
const SLOW = Number(process.env.SLOW_CONNECTIONS ?? 60);
/** Only the header limit is short: a 30 s request limit cannot be what closed a connection within SLACK_MS. */
const HEADERS_ONLY = { HEADERS_TIMEOUT_S: "1", REQUEST_TIMEOUT_S: "30" };
/** How late past its limit a connection may close on a loaded machine; every alternative is ≥ 20 s later. */
const SLACK_MS = 8000;

interface Watched {
  socket: Socket;
  /** Milliseconds from connect to the server closing the connection. */
  closed: Promise<{ afterMs: number; answer: string }>;
}

const sockets = new Set<Socket>();
afterEach(() => {
  for (const socket of sockets) socket.destroy();
  sockets.clear();
});

function open(url: string): Promise<Watched> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect(Number(port), hostname);
    sockets.add(socket);
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk.toString("latin1")));
    const closed = new Promise<{ afterMs: number; answer: string }>((done) =>
      socket.on("close", () => done({ afterMs: performance.now() - started, answer })),
    );
    socket.once("error", () => undefined);
    socket.once("connect", () => resolve({ socket, closed }));
    socket.once("error", reject);
  });
}

/** Writes `text` one byte every `everyMs` while the socket is open. */
function trickle(socket: Socket, text: string, everyMs: number): void {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || i >= text.length) return clearInterval(timer);
    socket.write(text[i++] as string);
  }, everyMs);
  socket.once("close", () => clearInterval(timer));
}

/**
 * Ordinary requests, one every 20 ms (within the key's rate limit), until `done` settles: how many,
 * every one that did not answer 200, and the slowest.
 */
async function trafficUntil(h: Harness, done: Promise<unknown>): Promise<{ count: number; failures: string[]; worstMs: number }> {
  let finished = false;
  void done.finally(() => (finished = true));
  const result = { count: 0, failures: [] as string[], worstMs: 0 };
  while (!finished) {
    const started = performance.now();
    try {
      const res = await h.request("GET", "/v1/me");
      await res.arrayBuffer();
      if (res.status !== 200) result.failures.push(String(res.status));
    } catch (error) {
      result.failures.push((error as Error).message);
    }
    result.worstMs = Math.max(result.worstMs, performance.now() - started);
    result.count++;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return result;
}

describe("slow connections", () => {
  const h = useHarness(HEADERS_ONLY);

  it("that trickle their headers are answered 408 and closed once HEADERS_TIMEOUT_S has passed, while other requests succeed", async () => {
    const slow = await Promise.all(Array.from({ length: SLOW }, () => open(h.url)));
    for (const { socket } of slow) trickle(socket, `GET /v1/me HTTP/1.1\r\nHost: x\r\nX-Slow: ${"a".repeat(300)}\r\n\r\n`, 100); // 33 s to arrive
    const closed = Promise.all(slow.map((s) => s.closed));
    const traffic = await trafficUntil(h, closed);
    const results = await closed;
    const first = Math.min(...results.map((r) => r.afterMs));
    const worst = Math.max(...results.map((r) => r.afterMs));
    console.log(
      `${SLOW} connections trickling headers: closed after ${Math.round(first)}-${Math.round(worst)} ms; meanwhile ${traffic.count} requests, ${traffic.failures.length} failed, worst ${Math.round(traffic.worstMs)} ms`,
    );
    expect(results.every((r) => /^HTTP\/1\.1 408 .*"code":"request_timeout"/s.test(r.answer))).toBe(true);
    expect(first).toBeGreaterThanOrEqual(1000);
    expect(worst).toBeLessThan(1000 + SLACK_MS);
    expect(traffic.failures).toEqual([]);
    expect(traffic.count).toBeGreaterThan(0);
  });

  it.each([
    [
      "a webhook without Authorization",
      "POST /livekit/webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/webhook+json\r\nContent-Length: 60000\r\n\r\n",
      401,
    ],
    [
      "a webhook with a forged signature",
      "POST /livekit/webhook HTTP/1.1\r\nHost: x\r\nAuthorization: eyJhbGciOiJIUzI1NiJ9.eyJzaGEyNTYiOiJ4In0.AAAA\r\nContent-Length: 60000\r\n\r\n",
      401,
    ],
    [
      "a create with an unknown key",
      "POST /v1/sessions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer dhs_nope\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n",
      401,
    ],
    [
      "a create with a read-only key",
      `POST /v1/sessions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEYS.aRead}\r\nIdempotency-Key: k\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n`,
      403,
    ],
  ])("sending %s with a 60 KB body to come are refused before the body is read, and closed", async (_name, head, status) => {
    const slow = await Promise.all(Array.from({ length: SLOW }, () => open(h.url)));
    for (const { socket } of slow) {
      socket.write(head);
      trickle(socket, "x".repeat(60_000), 50);
    }
    const results = await Promise.all(slow.map((s) => s.closed));
    const worst = Math.max(...results.map((r) => r.afterMs));
    console.log(`${SLOW} connections refused ${status} before their body: closed after up to ${Math.round(worst)} ms`);
    expect(results.every((r) => r.answer.startsWith(`HTTP/1.1 ${status} `) && /\r\nConnection: close\r\n/i.test(r.answer))).toBe(true);
    expect(worst).toBeLessThan(SLACK_MS); // else the 30 s request limit (the body would take 50 minutes)
  });

  it("that stay open after a 401 are closed by the server at once", async () => {
    const idle = await Promise.all(Array.from({ length: SLOW }, () => open(h.url)));
    for (const { socket } of idle) socket.write("GET /v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer dhs_nope\r\n\r\n");
    const results = await Promise.all(idle.map((s) => s.closed));
    expect(results.every((r) => r.answer.startsWith("HTTP/1.1 401 "))).toBe(true);
    expect(Math.max(...results.map((r) => r.afterMs))).toBeLessThan(SLACK_MS); // else the 65 s keep-alive
  });

  it("a keep-alive connection idle longer than HEADERS_TIMEOUT_S still serves its next request", async () => {
    const { socket, closed } = await open(h.url);
    const ask = () => socket.write(`GET /v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEYS.a}\r\n\r\n`);
    ask();
    await new Promise((resolve) => setTimeout(resolve, 2500));
    ask();
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.destroy();
    const { answer } = await closed;
    expect(answer.match(/HTTP\/1\.1 \d+/g)).toEqual(["HTTP/1.1 200", "HTTP/1.1 200"]);
  });
});

describe("slow bodies", () => {
  const h = useHarness({ HEADERS_TIMEOUT_S: "1", REQUEST_TIMEOUT_S: "2" });

  it("that trickle a signed webhook's body are answered 408 and closed once REQUEST_TIMEOUT_S has passed", async () => {
    const body = JSON.stringify({ event: "room_started", id: "EV_slow", padding: "x".repeat(2000) });
    const authorization = await signWebhook(body);
    const slow = await Promise.all(Array.from({ length: SLOW }, () => open(h.url)));
    for (const { socket } of slow) {
      socket.write(
        `POST /livekit/webhook HTTP/1.1\r\nHost: x\r\nAuthorization: ${authorization}\r\nContent-Type: application/webhook+json\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      trickle(socket, body, 100);
    }
    const closed = Promise.all(slow.map((s) => s.closed));
    const traffic = await trafficUntil(h, closed);
    const results = await closed;
    const worst = Math.max(...results.map((r) => r.afterMs));
    console.log(
      `${SLOW} connections trickling a webhook body: closed after up to ${Math.round(worst)} ms; meanwhile ${traffic.count} requests, ${traffic.failures.length} failed`,
    );
    expect(results.every((r) => /^HTTP\/1\.1 408 .*"code":"request_timeout"/s.test(r.answer))).toBe(true);
    // Not before the header limit; Node closed some as early as 1.24 s in one CI run (its check of a
    // request still arriving is not exact to REQUEST_TIMEOUT_S), which still stops a slow body.
    expect(Math.min(...results.map((r) => r.afterMs))).toBeGreaterThanOrEqual(1000);
    expect(worst).toBeLessThan(2000 + SLACK_MS); // the body would take 200 s to arrive
    expect(traffic.failures).toEqual([]);
  });
});

describe("MAX_CONNECTIONS", () => {
  const h = useHarness({ MAX_CONNECTIONS: "20", HEADERS_TIMEOUT_S: "30", REQUEST_TIMEOUT_S: "30" });

  it("closes a connection beyond the cap at accept, counts it, and serves again once connections close", async () => {
    const held = await Promise.all(Array.from({ length: 20 }, () => open(h.url)));
    const extra = await open(h.url);
    extra.socket.write(`GET /v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEYS.a}\r\n\r\n`);
    const refused = await extra.closed;
    expect(refused.answer).toBe("");
    expect(refused.afterMs).toBeLessThan(SLACK_MS); // served, it would stay open for the 65 s keep-alive

    for (const { socket } of held) socket.destroy();
    await Promise.all(held.map((s) => s.closed));
    // The server learns of the closes asynchronously.
    let status = 0;
    for (let i = 0; i < 20 && status !== 200; i++) {
      status = await h
        .request("GET", "/v1/me")
        .then((res) => res.status)
        .catch(() => 0);
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe(200);
    const metrics = await (await fetch(`${h.metricsUrl}/metrics`)).text();
    expect(metrics).toMatch(/^dhs_connections_dropped_total [1-9]/m);
  });
});
