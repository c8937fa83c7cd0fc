/**
 * The lists' cursors are sealed (contract guide, "Pagination"): a cursor is taken only by the list that
 * issued it, for a key of the same account and mode, and for the same session or endpoint; a tampered,
 * forged or borrowed one is a 422 at `cursor`, never a 500 and never a page of someone else's list. The
 * cursors an outside probe forged against the old format (times beyond JavaScript's, a log entry 0-0, a
 * segment that does not exist) are among them.
 */
import { WebhookReceiver } from "@dhs/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workerToken } from "../support/digital-human-posts.js";
import { expectApiError, expectData, KEYS, newSession, until, useHarness } from "../support/harness.js";

const h = useHarness({ TEST_MAX_OPEN_SESSIONS: "100" });
const receiver = new WebhookReceiver();
beforeAll(() => receiver.start());
afterAll(() => receiver.stop());

/** What the API handed out before cursors were sealed: base64url JSON, which anyone can write. */
const unsealed = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** The same cursor with one character of its tag or payload changed. */
function tampered(cursor: string, at: number): string {
  const c = cursor[at] === "A" ? "B" : "A";
  return `${cursor.slice(0, at)}${c}${cursor.slice(at + 1)}`;
}

async function sessionsCursor(key: string): Promise<string> {
  await newSession(h);
  await newSession(h);
  const page = expectData(await h.client(key).listSessions({ limit: 1 }));
  if (page.next_cursor === null) throw new Error("expected a second page");
  return page.next_cursor;
}

async function transcriptCursor(session: { id: string; room_name: string }): Promise<string> {
  const token = await workerToken(session.room_name);
  const at = (s: number) => new Date(Date.parse("2026-11-22T09:00:00.000Z") + s * 1000).toISOString();
  const segments = [0, 1, 2].map((i) => ({
    id: `dh-${i}`,
    speaker: "digital_human",
    text: `line ${i}`,
    started_at: at(i),
    ended_at: at(i),
  }));
  const posted = await fetch(`${h.url}/v1/sessions/${session.id}/transcript/segments`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({ segments }),
  });
  expect(posted.status).toBe(200);
  const page = expectData(await h.client(KEYS.a).getSessionTranscript(session.id, { limit: 1 }));
  if (page.next_cursor === null) throw new Error("expected a second page");
  return page.next_cursor;
}

describe("listSessions' cursor", () => {
  it("pages with the cursor it issued, and refuses it tampered, forged in the old format, or beyond any time, with 422 at cursor", async () => {
    const cursor = await sessionsCursor(KEYS.a);
    expect((await h.client(KEYS.a).listSessions({ limit: 1, cursor })).response.status).toBe(200);
    for (const bad of [
      tampered(cursor, 3),
      tampered(cursor, cursor.length - 2),
      unsealed([9007199254740991, "x"]),
      unsealed([Date.now(), crypto.randomUUID()]),
      `${cursor.slice(0, 22)}${unsealed([8.64e15 + 1, crypto.randomUUID()])}`,
    ]) {
      const refused = await expectApiError(await h.client(KEYS.a).listSessions({ cursor: bad }), 422, "validation_failed");
      expect(refused.detail).toEqual([{ location: "query", path: "cursor", message: expect.stringContaining("not a cursor issued") }]);
    }
    // Padding is not in the contract's alphabet: the contract's validation refuses it first.
    await expectApiError(await h.client(KEYS.a).listSessions({ cursor: `${cursor}==` }), 422, "validation_failed");
  });

  it("is refused for another account, the other mode and another list", async () => {
    const cursor = await sessionsCursor(KEYS.a);
    await expectApiError(await h.client(KEYS.b).listSessions({ cursor }), 422, "validation_failed");
    await expectApiError(await h.client(KEYS.aTest).listSessions({ cursor }), 422, "validation_failed");
    await expectApiError(await h.client(KEYS.a).listDigitalHumans({ cursor }), 422, "validation_failed");
    const session = await newSession(h);
    await expectApiError(await h.client(KEYS.a).getSessionTranscript(session.id, { cursor }), 422, "validation_failed");
  });
});

describe("a transcript's cursor", () => {
  it("pages its own session's transcript, and is refused for another session's, or when it names a segment the API never issued", async () => {
    const session = await newSession(h);
    const cursor = await transcriptCursor(session);
    const second = expectData(await h.client(KEYS.a).getSessionTranscript(session.id, { limit: 1, cursor }));
    expect(second.segments.map((s) => s.id)).toEqual(["dh-1"]);
    // The same session id spelled in capitals is the same session.
    expect((await h.client(KEYS.a).getSessionTranscript(session.id.toUpperCase(), { limit: 1, cursor })).response.status).toBe(200);
    const other = await newSession(h);
    await expectApiError(await h.client(KEYS.a).getSessionTranscript(other.id, { cursor }), 422, "validation_failed");
    for (const forged of [unsealed([Date.parse("2026-11-22T09:00:00.000Z"), "no-such-segment"]), tampered(cursor, 10)]) {
      await expectApiError(await h.client(KEYS.a).getSessionTranscript(session.id, { cursor: forged }), 422, "validation_failed");
    }
    await expectApiError(await h.client(KEYS.a).listSessions({ cursor }), 422, "validation_failed");
  });
});

describe("listWebhookDeliveries' cursor", () => {
  it("pages its own endpoint's log, and is refused for another endpoint's, and forged as the log entry 0-0", async () => {
    const hooks = h.client(KEYS.aHooks);
    const endpoint = expectData(await hooks.createWebhookEndpoint({ url: receiver.url }), 201);
    const other = expectData(await hooks.createWebhookEndpoint({ url: receiver.url }), 201);
    try {
      for (let i = 0; i < 2; i++) {
        const event = expectData(await hooks.testWebhookEndpoint(endpoint.id), 202);
        await until(() => receiver.received.some((r) => r.id === event.id));
      }
      const first = await until(async () => {
        const page = expectData(await hooks.listWebhookDeliveries(endpoint.id, { limit: 1 }));
        return page.next_cursor === null ? undefined : page;
      });
      const cursor = first.next_cursor as string;
      expect(expectData(await hooks.listWebhookDeliveries(endpoint.id, { limit: 1, cursor })).data).toHaveLength(1);
      await expectApiError(await hooks.listWebhookDeliveries(other.id, { cursor }), 422, "validation_failed");
      for (const forged of [unsealed(["0-0"]), unsealed([first.data[0]?.event_id]), tampered(cursor, 5)]) {
        await expectApiError(await hooks.listWebhookDeliveries(endpoint.id, { cursor: forged }), 422, "validation_failed");
      }
    } finally {
      await hooks.deleteWebhookEndpoint(endpoint.id);
      await hooks.deleteWebhookEndpoint(other.id);
    }
  });
});

describe("listDigitalHumans' cursor", () => {
  it("is refused for another account and in the old format", async () => {
    const made = expectData(await h.client(KEYS.aPersonas).createDigitalHuman({ name: "Cursor" }), 201);
    try {
      const page = expectData(await h.client(KEYS.aPersonas).listDigitalHumans({ limit: 1 }));
      const cursor = page.next_cursor as string;
      expect((await h.client(KEYS.aPersonas).listDigitalHumans({ limit: 1, cursor })).response.status).toBe(200);
      await expectApiError(await h.client(KEYS.bPersonas).listDigitalHumans({ cursor }), 422, "validation_failed");
      await expectApiError(
        await h.client(KEYS.aPersonas).listDigitalHumans({ cursor: unsealed(["c", 8.64e15, made.id]) }),
        422,
        "validation_failed",
      );
    } finally {
      await h.client(KEYS.aPersonas).deleteDigitalHuman(made.id);
    }
  });
});
