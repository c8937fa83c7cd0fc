import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { components } from "@dhs/contract";
import { until } from "@dhs/testkit";
import { TokenVerifier } from "livekit-server-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { type ConversationItem, ConversationQueue, type Delivery } from "./conversation-queue.js";
import { ServiceClient } from "./service-client.js";

type PullRequest = components["schemas"]["ConversationPullRequest"];
const SESSION = "3fa85f64-5717-4562-b3fc-2c963f66afa6";

const stops: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

/**
 * The service's pullConversation over a queue the test fills: answers what is after `after`, the
 * latest interruption and whether turn events are wanted; `statuses` answer the next pulls first, and a
 * pull waits while `held` is set.
 */
async function service() {
  const state = {
    items: [] as ConversationItem[],
    interruptSeq: 0,
    turnEvents: true,
    statuses: [] as number[],
    held: undefined as Promise<void> | undefined,
  };
  const pulls: { body: PullRequest; authorization: string; url: string }[] = [];
  const server: Server = createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => {
      raw += chunk;
    });
    req.on("end", async () => {
      const body = JSON.parse(raw) as PullRequest;
      pulls.push({ body, authorization: req.headers.authorization ?? "", url: req.url ?? "" });
      await state.held;
      const status = state.statuses.shift() ?? 200;
      if (status !== 200) return void res.writeHead(status).end("{}");
      const queue = {
        items: state.items.filter((i) => i.seq > body.after),
        interrupt_seq: state.interruptSeq,
        turn_events: state.turnEvents,
      };
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(queue));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  stops.push(() => void server.close());
  const api = new ServiceClient(
    {
      serviceUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      sessionId: SESSION,
      roomName: `dhs-${SESSION}`,
      apiKey: "devkey",
      apiSecret: "secret",
    },
    () => "dh-test",
  );
  return { api, state, pulls };
}

async function pulling(options: { fallbackMs?: number } = {}) {
  const s = await service();
  const deliveries: Delivery[] = [];
  const logs: string[] = [];
  const queue = new ConversationQueue({
    api: s.api,
    identity: () => "agent-AJ_1",
    deliver: (d) => void deliveries.push(d),
    log: (_, message) => logs.push(message),
    retryBaseMs: 1,
    ...options,
  });
  stops.push(() => queue.stop());
  return { ...s, queue, deliveries, logs };
}

const say = (seq: number): ConversationItem => ({ seq, type: "say", id: `utt_${seq}`, text: `Line ${seq}.`, interrupt: false });

/** The testkit's until, polling often: the tests count what happened by the moment it holds. */
const soon = (check: () => boolean) => until(check, { everyMs: 5, timeoutMs: 5000 });

describe("ConversationQueue", () => {
  it("pulls first with after 0 and the job's identity, then after the greatest seq it saw, handing each item on once", async () => {
    const { queue, state, pulls, deliveries } = await pulling();
    state.items = [say(1), say(2)];
    queue.start();
    await soon(() => deliveries.length === 1);
    expect(pulls[0]?.body).toEqual({ after: 0, participant_identity: "agent-AJ_1" });
    expect(pulls[0]?.url).toBe(`/v1/sessions/${SESSION}/conversation/pull`);
    const claims = await new TokenVerifier("devkey", "secret").verify(pulls[0]?.authorization.replace("Bearer ", "") ?? "");
    expect(claims.video).toMatchObject({ agent: true, room: `dhs-${SESSION}` });
    expect(deliveries[0]?.items.map((i) => i.seq)).toEqual([1, 2]);
    expect(deliveries[0]?.turnEvents).toBe(true);

    state.items.push(say(3));
    state.interruptSeq = 5;
    state.turnEvents = false;
    queue.nudge();
    await soon(() => deliveries.length === 2);
    expect(pulls[1]?.body.after).toBe(2);
    expect(deliveries[1]).toMatchObject({ interruptSeq: 5, interrupted: true, turnEvents: false });
    expect(deliveries[1]?.items.map((i) => i.seq)).toEqual([3]);
    queue.nudge();
    await soon(() => deliveries.length === 3);
    // The interruption counts as seen: the cursor is past it.
    expect(pulls[2]?.body.after).toBe(5);
    expect(deliveries[2]).toMatchObject({ items: [], interrupted: false });
  });

  it("remembers an interruption its first pull finds without taking it as new", async () => {
    const { queue, state, deliveries } = await pulling();
    state.interruptSeq = 4;
    state.items = [say(5)];
    queue.start();
    await soon(() => deliveries.length === 1);
    expect(deliveries[0]).toMatchObject({ interruptSeq: 4, interrupted: false });
  });

  it("pulls one at a time: nudges during a pull make one more pull after it", async () => {
    const { queue, state, pulls, deliveries } = await pulling();
    let release: () => void = () => undefined;
    state.held = new Promise((resolve) => {
      release = resolve;
    });
    queue.start();
    await soon(() => pulls.length === 1);
    queue.nudge();
    queue.nudge();
    queue.nudge();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pulls).toHaveLength(1);
    release();
    await soon(() => deliveries.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pulls).toHaveLength(2);
  });

  it("pulls on its own every so often, in case a nudge was lost", async () => {
    const { queue, pulls } = await pulling({ fallbackMs: 30 });
    queue.start();
    await soon(() => pulls.length >= 3);
  });

  it("tries a failed pull again, and stops pulling for good when the session is not the job's (404)", async () => {
    const { queue, state, pulls, deliveries, logs } = await pulling();
    state.statuses = [503, 429];
    state.items = [say(1)];
    queue.start();
    await soon(() => deliveries.length === 1);
    expect(pulls.map((p) => p.body.after)).toEqual([0, 0, 0]);
    state.statuses = [404];
    queue.nudge();
    await soon(() => logs.length === 1);
    queue.nudge();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pulls).toHaveLength(4);
    expect(logs[0]).toMatch(/refused/);
  });
});
