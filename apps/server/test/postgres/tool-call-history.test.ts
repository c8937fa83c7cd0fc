/**
 * Tool calls in the PostgreSQL history: written with their session once it ended, and listed the same
 * once Redis has lost them.
 */
import { digitalHumanToken, WebhookReceiver } from "@dhs/testkit";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { flushPrefix } from "../support/database.js";
import { DIGITAL_HUMANS, expectData, KEYS, until, useHarness } from "../support/harness.js";

const h = useHarness({});
const receiver = new WebhookReceiver({ answer: () => ({ status: 200, body: JSON.stringify({ result: { nights: 2 } }) }) });
let redis: Redis;
beforeAll(async () => {
  redis = new Redis(inject("redisUrl"));
  await receiver.start();
});
afterAll(async () => {
  redis?.disconnect();
  await receiver.stop();
});

async function rows(sessionId: string): Promise<number> {
  const client = new pg.Client({ connectionString: h.databaseUrl });
  await client.connect();
  try {
    return (
      (await client.query<{ n: number }>("SELECT count(*)::int AS n FROM tool_calls WHERE session_id = $1", [sessionId])).rows[0]?.n ?? 0
    );
  } finally {
    await client.end();
  }
}

async function run(session: { id: string; room_name: string }, body: Record<string, unknown>): Promise<void> {
  const token = await digitalHumanToken(session.room_name, { identity: "agent-one" });
  const res = await fetch(`${h.url}/v1/sessions/${session.id}/conversation/tool-calls`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({ participant_identity: "agent-one", ...body }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

describe("tool calls in the PostgreSQL history", () => {
  it("are written with their session, in the order they started, and listed the same once Redis lost them", async () => {
    const endpoint = expectData(await h.client(KEYS.aHooks).createWebhookEndpoint({ url: receiver.url }), 201);
    const dh = expectData(
      await h.client(KEYS.aPersonas).createDigitalHuman({
        name: "Maya",
        appearance: DIGITAL_HUMANS[0].id,
        tools: [
          { type: "webhook", name: "booking", description: "Finds a booking.", endpoint_id: endpoint.id },
          { type: "client", name: "show", description: "Shows it." },
        ],
      }),
      201,
    );
    const session = expectData(await h.client().createSession({ digital_human_id: dh.id }), 201);
    await run(session, { tool_call_id: "call_1", name: "booking", arguments: { reference: "HB1" } });
    await run(session, {
      tool_call_id: "call_2",
      name: "show",
      arguments: {},
      outcome: { status: "failed", error: "No page.", duration_ms: 4 },
    });
    expectData(await h.client().endSession(session.id));
    await until(async () => ((await rows(session.id)) === 2 ? true : undefined), { timeoutMs: 15_000 });
    const before = expectData(await h.client().listSessionToolCalls(session.id)).data;
    expect(before.map((c) => [c.id, c.status])).toEqual([
      ["call_1", "succeeded"],
      ["call_2", "failed"],
    ]);
    await flushPrefix(redis, h.redisPrefix);
    expect(expectData(await h.client().listSessionToolCalls(session.id)).data).toEqual(before);
    const other = await h.request("GET", `/v1/sessions/${session.id}/tool-calls`, { key: KEYS.b });
    expect(other.status).toBe(404);
  });
});
