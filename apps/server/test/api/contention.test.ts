/**
 * Ordinary concurrency on one thing (contract guide, "Errors": `concurrent_changes`): many backends
 * saying something to one session while its digital human pulls, many edits of one digital human. Each
 * change either goes through (a lost compare-and-set is tried again after a random wait) or is answered
 * `429 concurrent_changes` with Retry-After, which @dhs/client sends again: never a 500, and nothing lost.
 */
import { randomUUID } from "node:crypto";
import { createClient } from "@dhs/client";
import { describe, expect, it } from "vitest";
import { workerToken } from "../support/digital-human-posts.js";
import { expectData, KEYS, newSession, useHarness } from "../support/harness.js";

const h = useHarness({ CONVERSATION_QUEUE_MAX: "50", CONVERSATION_CHARACTERS_PER_MINUTE: "100000" });

/** A backend's client as a customer would configure it: retries on. */
const retrying = (key: string) => createClient({ baseUrl: h.url, apiKey: key, maxRetries: 5 });

/** Lines the service logged at error or worse. */
const errorLines = () => h.logs.map((line) => JSON.parse(line) as { level: number; msg?: string }).filter((line) => line.level >= 50);

describe("many requests changing one thing at once", () => {
  it("40 says to one session while its digital human pulls: every one queued once, none answered 500", async () => {
    const session = await newSession(h);
    const client = retrying(KEYS.a);
    const errorsBefore = errorLines().length;
    let pulling = true;
    const statuses: number[] = [];
    const job = (async () => {
      let after = 0;
      while (pulling) {
        const res = await fetch(`${h.url}/v1/sessions/${session.id}/conversation/pull`, {
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            Authorization: `Bearer ${await workerToken(session.room_name, { identity: "agent-AJ_busy" })}`,
          },
          body: JSON.stringify({ after, participant_identity: "agent-AJ_busy" }),
        });
        statuses.push(res.status);
        if (res.ok) after = Math.max(after, ...((await res.json()) as { items: { seq: number }[] }).items.map((i) => i.seq));
        else await res.body?.cancel();
      }
    })();
    const says = await Promise.all(
      Array.from({ length: 40 }, (_, i) => client.say(session.id, { text: `Line ${i}.` }, { idempotencyKey: randomUUID() })),
    );
    pulling = false;
    await job;
    expect(says.map((s) => s.response.status)).toEqual(Array(40).fill(202));
    expect(new Set(says.map((s) => s.data?.id)).size).toBe(40);
    // The job's pulls contended too: each answered, or told to come back.
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(errorLines().slice(errorsBefore)).toEqual([]);
  });

  it("30 edits of one digital human at once: every one answered 200, none 500, the last one written stands", async () => {
    const personas = retrying(KEYS.aPersonas);
    const maya = expectData(await personas.createDigitalHuman({ name: "Maya" }, { idempotencyKey: randomUUID() }), 201);
    const errorsBefore = errorLines().length;
    const edits = await Promise.all(
      Array.from({ length: 30 }, (_, i) => personas.updateDigitalHuman(maya.id, { description: `Edit ${i}` })),
    );
    expect(edits.map((e) => e.response.status)).toEqual(Array(30).fill(200));
    const stored = expectData(await personas.getDigitalHuman(maya.id));
    expect(edits.map((e) => e.data?.description)).toContain(stored.description);
    expect(errorLines().slice(errorsBefore)).toEqual([]);
  });
});
