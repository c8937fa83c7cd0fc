/**
 * Transcripts: the digital human posts segments with a LiveKit token bound to its session's room (raw
 * requests, as its worker sends them: the client is for API keys); API keys read and delete them through
 * the client, with the session's isolation and scopes; `session.transcript_ready` is sent once, when the
 * session has ended and the transcript is complete.
 */
import { createHmac } from "node:crypto";
import { WebhookReceiver } from "@dhs/testkit";
import { AccessToken } from "livekit-server-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postSegments, type Segment, segment, workerToken } from "../support/digital-human-posts.js";
import { expectApiError, expectData, KEYS, LIVEKIT, newSession, until, useHarness } from "../support/harness.js";

const GRACE_S = 2;
const h = useHarness({ TRANSCRIPT_GRACE_S: String(GRACE_S), SWEEP_INTERVAL_MS: "100", TEST_MAX_OPEN_SESSIONS: "100" });

const post = (session: { id: string; room_name: string }, body: unknown, authorization?: string | null) =>
  postSegments(h, session, body, authorization);
const read = (id: string, query: { limit?: number; cursor?: string } = {}, key: string = KEYS.a) =>
  h.client(key).getSessionTranscript(id, query);
const erase = (id: string, key: string = KEYS.a) => h.client(key).deleteSessionTranscript(id);

describe("POST /v1/sessions/{id}/transcript/segments, with the digital human's token", () => {
  it("stores the segments, and GET answers them in spoken order with the transcript in progress", async () => {
    const session = await newSession(h);
    const res = await post(session, { segments: [segment("p-1", 5, "what are your hours", "participant"), segment("dh-1", 0)] });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toEqual({ accepted: 2, duplicates: 0, segment_count: 2 });
    const transcript = expectData(await read(session.id));
    expect(transcript).toEqual({
      session_id: session.id,
      status: "in_progress",
      segment_count: 2,
      segments: [segment("dh-1", 0), segment("p-1", 5, "what are your hours", "participant")],
      next_cursor: null,
      deleted_at: null,
    });
  });

  it("stores a retried post once: its segments count as duplicates, their first text stays", async () => {
    const session = await newSession(h);
    await post(session, { segments: [segment("dh-1", 0, "first")] });
    const retried = await post(session, { segments: [segment("dh-1", 0, "changed"), segment("dh-2", 3)] });
    expect(await retried.json()).toEqual({ accepted: 1, duplicates: 1, segment_count: 2 });
    const { segments } = expectData(await read(session.id));
    expect(segments.map((s: Segment) => s.text)).toEqual(["first", "line dh-2"]);
  });

  it("answers 401 without a token, with an API key, a participant's token, another room's, another secret's, an expired one or another algorithm's, and stores nothing", async () => {
    const session = await newSession(h);
    const other = await newSession(h);
    const body = { segments: [segment("x-1", 0)] };
    const hs512 = new AccessToken(LIVEKIT.apiKey, LIVEKIT.apiSecret, { identity: "dh", ttl: 300 });
    hs512.addGrant({ room: session.room_name, agent: true });
    const refused = [
      null,
      `Bearer ${KEYS.a}`,
      `Bearer ${await workerToken(session.room_name, { agent: false })}`,
      `Bearer ${await workerToken(other.room_name)}`,
      `Bearer ${await workerToken(session.room_name, { secret: "another-secret-of-the-same-length" })}`,
      `Bearer ${await workerToken(session.room_name, { apiKey: "another-api-key" })}`,
      `Bearer ${await workerToken(session.room_name, { ttl: -60 })}`,
      `Bearer ${await new AccessToken(LIVEKIT.apiKey, LIVEKIT.apiSecret, { identity: "dh", ttl: 300 }).toJwt()}`,
      `Bearer ${(await hs512.toJwt()).replace(/^[^.]+/, Buffer.from('{"alg":"none","typ":"JWT"}').toString("base64url"))}`,
    ];
    for (const authorization of refused) {
      const res = await post(session, body, authorization);
      const error = await expectApiError(res, 401, "unauthorized");
      expect(error.detail).toMatch(/digital human token/);
    }
    expect(expectData(await read(session.id)).segment_count).toBe(0);
    // Each refusal is logged under the operation's route, with why, and never the token.
    const refusals = h.logs.filter(
      (line) => line.includes('"route":"/v1/sessions/{session_id}/transcript/segments"') && line.includes('"status":401'),
    );
    expect(refusals.length).toBeGreaterThanOrEqual(refused.length);
    expect(refusals.some((line) => line.includes("not an agent's"))).toBe(true);
  });

  it("answers 404 for a session that does not exist, with a token for its room", async () => {
    const id = crypto.randomUUID();
    await expectApiError(await post({ id, room_name: `dhs-${id}` }, { segments: [segment("a", 0)] }), 404, "not_found");
  });

  it("answers 422 for a segment too long, too many segments, one ending before it started, an id posted twice, or unknown fields", async () => {
    const session = await newSession(h);
    const cases: [unknown, string][] = [
      [{ segments: [segment("a", 0, "x".repeat(2001))] }, "segments.0.text"],
      [{ segments: Array.from({ length: 51 }, (_, i) => segment(`s${i}`, i)) }, "segments"],
      [{ segments: [{ ...segment("a", 5), ended_at: segment("a", 0).started_at }] }, "segments.0.ended_at"],
      [{ segments: [segment("a", 0), segment("a", 1)] }, "segments.1.id"],
      [{ segments: [segment("a", 0)], extra: true }, "extra"],
      [{ segments: [{ ...segment("a", 0), speaker: "narrator" }] }, "segments.0.speaker"],
      [{ segments: [segment("a", 0, "   ")] }, "segments.0.text"],
    ];
    for (const [body, path] of cases) {
      const error = await expectApiError(await post(session, body), 422, "validation_failed");
      expect(JSON.stringify(error.detail), JSON.stringify(body).slice(0, 80)).toContain(path);
    }
    expect(expectData(await read(session.id)).segment_count).toBe(0);
  });

  it("answers 413 for a body over 64 KiB", async () => {
    const session = await newSession(h);
    const body = JSON.stringify({ segments: [segment("a", 0)], pad: "x".repeat(70_000) });
    await expectApiError(await post(session, body), 413, "payload_too_large");
  });

  it("answers 409 transcript_limit_reached for the post that would pass 1 000 segments, and stores none of it", async () => {
    const session = await newSession(h);
    for (let batch = 0; batch < 20; batch++) {
      const segments = Array.from({ length: 50 }, (_, i) => segment(`s${batch * 50 + i}`, batch * 50 + i - 1, "ok"));
      if (batch === 19) segments.pop();
      expect((await post(session, { segments })).status).toBe(200);
    }
    const error = await expectApiError(
      await post(session, { segments: [segment("y", 2000), segment("z", 2001)] }),
      409,
      "transcript_limit_reached",
    );
    expect(error.detail).toEqual({ limit: 1000, segment_count: 999, posted: 2 });
    expect(await (await post(session, { segments: [segment("y", 2000)] })).json()).toMatchObject({ accepted: 1, segment_count: 1000 });
    // A page of 500, then the rest: 1 000 in spoken order, each once.
    const first = expectData(await read(session.id, { limit: 500 }));
    const second = expectData(await read(session.id, { limit: 500, cursor: first.next_cursor as string }));
    expect(second.next_cursor).toBeNull();
    const ids = [...first.segments, ...second.segments].map((s: Segment) => s.id);
    expect(new Set(ids).size).toBe(1000);
    expect(ids[0]).toBe("s0");
    expect(ids.at(-1)).toBe("y");
  });
});

/** An HS256 JWT signed by hand, for claims no SDK would write (an expiry beyond any date). */
function handSigned(claims: Record<string, unknown>, secret = LIVEKIT.apiSecret): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const unsigned = `${part({ alg: "HS256", typ: "JWT" })}.${part(claims)}`;
  return `${unsigned}.${createHmac("sha256", secret).update(unsigned).digest("base64url")}`;
}

describe("what an attacker's probe sent the transcript (issue 39)", () => {
  it("keeps a leap second (23:59:60Z) as the last millisecond of its minute, in spoken order, on every store", async () => {
    const session = await newSession(h);
    const leap = {
      id: "leap",
      speaker: "digital_human",
      text: "a leap",
      started_at: "2026-12-31T23:59:60Z",
      ended_at: "2026-12-31T23:59:60.5Z",
    };
    const after = { ...leap, id: "after", text: "next year", started_at: "2027-01-01T00:00:00Z", ended_at: "2027-01-01T00:00:01Z" };
    const endsLeaping = { ...leap, id: "ends", text: "ends on it", started_at: "2026-12-31T23:59:59Z", ended_at: "2026-12-31T23:59:60Z" };
    const res = await post(session, { segments: [after, leap, endsLeaping] });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toEqual({ accepted: 3, duplicates: 0, segment_count: 3 });
    const read1 = expectData(await read(session.id));
    expect(read1.segments.map((s) => [s.id, s.started_at, s.ended_at])).toEqual([
      ["ends", "2026-12-31T23:59:59.000Z", "2026-12-31T23:59:59.999Z"],
      ["leap", "2026-12-31T23:59:59.999Z", "2026-12-31T23:59:59.999Z"],
      ["after", "2027-01-01T00:00:00.000Z", "2027-01-01T00:00:01.000Z"],
    ]);
  });

  it("refuses text with a control character, a bidirectional override or nothing visible, naming the segment, and stores none of the post", async () => {
    const session = await newSession(h);
    const refused = [
      "nul\u0000here",
      "bell\u0007",
      "\u001b[31mred\u001b[0m",
      "cr\r",
      "c1\u0085",
      "abc\u202edcba",
      "\u2066isolated\u2069",
      "\u200b\u200b",
      "\u200d",
      " \t\n",
      "\u0301",
    ];
    for (const text of refused) {
      const error = await expectApiError(
        await post(session, { segments: [segment("ok", 0), segment("bad", 1, text)] }),
        422,
        "validation_failed",
      );
      expect(error.detail, JSON.stringify(text)).toEqual([{ location: "body", path: "segments.1.text", message: expect.any(String) }]);
    }
    expect(expectData(await read(session.id)).segment_count).toBe(0);
    // Tabs, line breaks, other scripts and emoji are text.
    const fine = ["two\tcolumns", "two\nlines", "مرحبا", "שלום", "こんにちは", "👋🏽 hi", "é"];
    const res = await post(session, { segments: fine.map((text, i) => segment(`fine-${i}`, i, text)) });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(expectData(await read(session.id)).segments.map((s) => s.text)).toEqual(fine);
  });

  it("refuses a token that lives longer than an hour (a century, 1e300), and takes one of 59 minutes", async () => {
    const session = await newSession(h);
    const now = Math.floor(Date.now() / 1000);
    const claims = (exp: number) => ({
      iss: LIVEKIT.apiKey,
      sub: "dh-worker",
      nbf: now - 5,
      exp,
      video: { agent: true, room: session.room_name },
    });
    for (const token of [
      await workerToken(session.room_name, { ttl: "36500d" }),
      handSigned(claims(1e300)),
      handSigned(claims(now + 7200)),
    ]) {
      const error = await expectApiError(await post(session, { segments: [segment("long", 0)] }, `Bearer ${token}`), 401, "unauthorized");
      expect(error.detail).toMatch(/digital human token/);
    }
    expect(h.logs.some((line) => line.includes("lives longer than 3600 s"))).toBe(true);
    expect((await post(session, { segments: [segment("ok", 0)] }, `Bearer ${handSigned(claims(now + 59 * 60))}`)).status).toBe(200);
  });

  it("refuses a token in any encoding but its canonical one (padding, + and / for - and _)", async () => {
    const session = await newSession(h);
    let token = await workerToken(session.room_name);
    // A signature with - or _ in it, so that it can be spelled with + or /.
    for (let i = 0; i < 50 && !/[-_]/.test(token.split(".")[2] as string); i++)
      token = await workerToken(session.room_name, { ttl: 300 + i });
    const [header, payload, signature] = token.split(".") as [string, string, string];
    expect(signature).toMatch(/[-_]/);
    for (const variant of [
      `${header}.${payload}.${signature.replaceAll("-", "+").replaceAll("_", "/")}`,
      `${header}.${payload}.${signature}=`,
      `${header}.${payload}.${signature}==`,
      `${header}==.${payload}.${signature}`,
    ]) {
      await expectApiError(await post(session, { segments: [segment("x", 0)] }, `Bearer ${variant}`), 401, "unauthorized");
    }
    expect((await post(session, { segments: [segment("x", 0)] }, `Bearer ${token}`)).status).toBe(200);
  });
});

describe("GET /v1/sessions/{id}/transcript", () => {
  it("pages in spoken order with limit and next_cursor, ties by id", async () => {
    const session = await newSession(h);
    await post(session, { segments: [segment("b", 1), segment("a", 1), segment("c", 0), segment("d", 2)] });
    const pages: string[][] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = expectData(await read(session.id, cursor ? { limit: 3, cursor } : { limit: 3 }));
      pages.push(page.segments.map((s) => s.id));
      if (page.next_cursor === null) break;
      cursor = page.next_cursor;
    }
    expect(pages).toEqual([["c", "a", "b"], ["d"]]);
  });

  it("answers 422 for a cursor it did not issue, or a limit out of range", async () => {
    const session = await newSession(h);
    await expectApiError(await read(session.id, { cursor: "bm90LWEtY3Vyc29y" }), 422, "validation_failed");
    await expectApiError(await read(session.id, { limit: 501 }), 422, "validation_failed");
    await expectApiError(await read(session.id, { limit: 0 }), 422, "validation_failed");
  });

  it("is another account's, or the other mode's, like an unknown session: 404; a write-only key gets 403", async () => {
    const session = await newSession(h);
    await post(session, { segments: [segment("a", 0)] });
    await expectApiError(await read(session.id, {}, KEYS.b), 404, "not_found");
    await expectApiError(await read(session.id, {}, KEYS.aTest), 404, "not_found");
    await expectApiError(await erase(session.id, KEYS.b), 404, "not_found");
    await expectApiError(await read(session.id, {}, KEYS.aWrite), 403, "forbidden");
    await expectApiError(await erase(session.id, KEYS.aRead), 403, "forbidden");
    await expectApiError(await read(crypto.randomUUID()), 404, "not_found");
    expect((await read(session.id, {}, KEYS.aRead)).response.status).toBe(200);
  });
});

describe("DELETE /v1/sessions/{id}/transcript", () => {
  it("erases every segment at once, answers deleted, refuses later segments, and is safe to repeat", async () => {
    const session = await newSession(h);
    await post(session, { segments: [segment("a", 0), segment("b", 1)] });
    const deleted = expectData(await erase(session.id, KEYS.aWrite));
    expect(deleted).toMatchObject({ session_id: session.id, status: "deleted", segment_count: 0, segments: [], next_cursor: null });
    expect(Date.parse(deleted.deleted_at as string)).toBeGreaterThan(Date.now() - 10_000);
    expect(expectData(await read(session.id))).toEqual(deleted);
    await expectApiError(await post(session, { segments: [segment("a", 0)] }), 409, "transcript_closed");
    await expectApiError(await post(session, { segments: [], final: true }), 409, "transcript_closed");
    expect(expectData(await erase(session.id))).toEqual(deleted);
    // The session itself stays.
    expect((await h.session(session.id)).id).toBe(session.id);
  });
});

describe("the transcript's end", () => {
  const receiver = new WebhookReceiver();
  let endpointId = "";
  beforeAll(async () => {
    await receiver.start();
    const endpoint = expectData(
      await h.client(KEYS.aHooks).createWebhookEndpoint({ url: receiver.url, event_types: ["session.transcript_ready"] }),
      201,
    );
    endpointId = endpoint.id;
    receiver.secrets = [endpoint.secret as string];
  });
  afterAll(async () => {
    await h.client(KEYS.aHooks).deleteWebhookEndpoint(endpointId);
    await receiver.stop();
  });
  const readyFor = (id: string) => receiver.received.filter((r) => r.type === "session.transcript_ready" && r.body.data?.session_id === id);

  it("after the end, `final` completes it at once: one session.transcript_ready with the count; new segments are refused, a retried one is not", async () => {
    const session = await newSession(h);
    await post(session, { segments: [segment("a", 0), segment("b", 1)] });
    await h.client().endSession(session.id);
    expect(expectData(await read(session.id)).status).toBe("in_progress");
    expect((await post(session, { segments: [segment("c", 2)], final: true })).status).toBe(200);
    expect(expectData(await read(session.id)).status).toBe("complete");
    const [event] = await until(() => (readyFor(session.id).length > 0 ? readyFor(session.id) : undefined));
    expect(event?.body).toMatchObject({
      type: "session.transcript_ready",
      mode: "live",
      data: { session_id: session.id, segment_count: 3 },
    });
    await expectApiError(await post(session, { segments: [segment("d", 3)] }), 409, "transcript_closed");
    expect(await (await post(session, { segments: [segment("c", 2)], final: true })).json()).toEqual({
      accepted: 0,
      duplicates: 1,
      segment_count: 3,
    });
    // The grace timer that follows finds the event sent: still one.
    await new Promise((resolve) => setTimeout(resolve, GRACE_S * 1000 + 500));
    expect(readyFor(session.id)).toHaveLength(1);
  });

  it("`final` before the end completes it at the end, and the event follows at once", async () => {
    const session = await newSession(h);
    await post(session, { segments: [segment("a", 0)], final: true });
    expect(expectData(await read(session.id)).status).toBe("in_progress");
    await h.client().endSession(session.id);
    expect(expectData(await read(session.id)).status).toBe("complete");
    const [event] = await until(() => (readyFor(session.id).length === 1 ? readyFor(session.id) : undefined), {
      timeoutMs: (GRACE_S + 5) * 1000,
    });
    // Sent for the end itself, not for the grace period's end that followed it.
    const { ended_at } = await h.session(session.id);
    expect(Date.parse(event?.body.timestamp) - Date.parse(ended_at as string)).toBeLessThan(GRACE_S * 1000);
  });

  it("without `final`, it is complete once the grace after the end passed; segments are taken until then", async () => {
    const session = await newSession(h);
    await h.client().endSession(session.id);
    expect((await post(session, { segments: [segment("late", 0)] })).status).toBe(200);
    await until(() => readyFor(session.id).length === 1, { timeoutMs: (GRACE_S + 5) * 1000 });
    expect(readyFor(session.id)[0]?.body.data).toEqual({ session_id: session.id, segment_count: 1 });
    expect(expectData(await read(session.id)).status).toBe("complete");
    await expectApiError(await post(session, { segments: [segment("later", 1)] }), 409, "transcript_closed");
  });

  it("a transcript deleted before it was complete sends no session.transcript_ready", async () => {
    const session = await newSession(h);
    await post(session, { segments: [segment("a", 0)] });
    await erase(session.id);
    await h.client().endSession(session.id);
    await new Promise((resolve) => setTimeout(resolve, GRACE_S * 1000 + 1000));
    expect(readyFor(session.id)).toHaveLength(0);
    expect(expectData(await read(session.id)).status).toBe("deleted");
  });
});

describe("usage", () => {
  it("counts the segments stored today and their characters in code points, duplicates not counted, test mode apart", async () => {
    const day = new Date().toISOString().slice(0, 10);
    const usage = async (key: string) => expectData(await h.client(key).getUsage({ from: day, to: day })).totals;
    const before = await usage(KEYS.a);
    const beforeTest = await usage(KEYS.aTest);
    const session = await newSession(h);
    await post(session, { segments: [segment("a", 0, "héllo 👋"), segment("b", 1, "abc")] });
    await post(session, { segments: [segment("a", 0, "héllo 👋")] });
    const after = await usage(KEYS.a);
    expect((after.transcript_segments ?? 0) - (before.transcript_segments ?? 0)).toBe(2);
    expect((after.transcript_characters ?? 0) - (before.transcript_characters ?? 0)).toBe(10);
    expect(await usage(KEYS.aTest)).toEqual(beforeTest);
  });
});
