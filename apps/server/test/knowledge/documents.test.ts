/**
 * Knowledge (contract guide, "Knowledge"): an account's documents, added once per Idempotency-Key,
 * processed into passages and answered ready (or failed, with the reason), listed, read and deleted in
 * the key's account and mode only; a digital human's knowledge.document_ids, checked like its tools'
 * endpoints; searchKnowledge, which answers what a turn would be given; the document events. Runs on the
 * stores that keep knowledge: memory, and Redis with PostgreSQL (test/redis/knowledge-not-configured.test.ts
 * has Redis without it).
 */
import { randomUUID } from "node:crypto";
import { WebhookReceiver } from "@dhs/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveriesSettled } from "../support/deliveries.js";
import { type Doc, settledDocument } from "../support/documents.js";
import { DIGITAL_HUMANS, expectApiError, expectData, KEYS, until, useHarness } from "../support/harness.js";

const h = useHarness({ SWEEP_INTERVAL_MS: "100" });
const [AVA] = DIGITAL_HUMANS;
const events = new WebhookReceiver();
beforeAll(() => events.start());
afterAll(() => events.stop());

const HOTEL = `# Breakfast
Breakfast is served from 7:00 to 10:30 in the Garden Room, on weekends until 11:00.

# Check-in and check-out
Check-in is from 15:00; check-out is until 11:00. Late check-out until 13:00 costs 30 euros.

# Parking
The garage under the hotel has 40 places at 25 euros a night; electric cars charge for free.

# Spa
The spa on the top floor opens at 9:00 and closes at 21:00; towels are in the rooms.`;

async function added(body: Record<string, unknown>, key: string = KEYS.aKnowledge): Promise<Doc> {
  return expectData(await h.client(key).createDocument(body as never), 201) as Doc;
}

const settled = (id: string, key: string = KEYS.aKnowledge): Promise<Doc> => settledDocument(h.client(key), id);

async function concierge(documentIds: string[], key: string = KEYS.aPersonas): Promise<string> {
  const made = expectData(
    await h.client(key).createDigitalHuman({ name: "Maya", appearance: AVA.id, knowledge: { document_ids: documentIds } }),
    201,
  );
  return made.id;
}

describe("a document", () => {
  it("is answered processing, then ready with its passages; its size is its content's UTF-8 bytes", async () => {
    const content = `${HOTEL}\n\nCafé au lait is 4 euros.`;
    const doc = await added({ name: "Harbour Hotel facts", format: "markdown", content });
    expect(doc).toMatchObject({ status: "processing", chunks: 0, error: null, size_bytes: Buffer.byteLength(content) });
    const ready = await settled(doc.id);
    expect(ready.status).toBe("ready");
    expect(ready.chunks).toBeGreaterThanOrEqual(4);
  });

  it("with no text once its markup is removed is failed with the reason", async () => {
    const doc = await added({ name: "Landing", format: "html", content: "<html><script>var a = 1;</script><p>  </p></html>" });
    const failed = await settled(doc.id);
    expect(failed).toMatchObject({ status: "failed", chunks: 0 });
    expect(failed.error).toMatch(/no text/);
  });

  it("is listed newest first, a page at a time, and deleted once (a second delete is 404)", async () => {
    const key = KEYS.bKnowledge;
    const first = await added({ name: "one", format: "text", content: "One." }, key);
    const second = await added({ name: "two", format: "text", content: "Two." }, key);
    const page1 = expectData(await h.client(key).listDocuments({ limit: 1 }));
    expect(page1.data.map((d) => d.id)).toEqual([second.id]);
    expect(page1.next_cursor).not.toBeNull();
    const page2 = expectData(await h.client(key).listDocuments({ limit: 1, cursor: page1.next_cursor as string }));
    expect(page2.data.map((d) => d.id)).toEqual([first.id]);
    expect(expectData(await h.client(key).deleteDocument(first.id))).toEqual({ id: first.id, deleted: true });
    await expectApiError(await h.client(key).deleteDocument(first.id), 404, "not_found");
    await expectApiError(await h.client(key).getDocument(first.id), 404, "not_found");
    const after = expectData(await h.client(key).listDocuments({}));
    expect(after.data.map((d) => d.id)).not.toContain(first.id);
  });

  it("is one per Idempotency-Key: the same body replays it, another body is 409, a replay after its deletion 404", async () => {
    const idempotencyKey = randomUUID();
    const body = { name: "Hours", format: "text" as const, content: "Open from 9 to 5." };
    const made = expectData(await h.client(KEYS.aKnowledge).createDocument(body, { idempotencyKey }), 201);
    const again = await h.client(KEYS.aKnowledge).createDocument(body, { idempotencyKey });
    expect(expectData(again, 201).id).toBe(made.id);
    expect(again.response.headers.get("Idempotent-Replayed")).toBe("true");
    await expectApiError(
      await h.client(KEYS.aKnowledge).createDocument({ ...body, content: "Closed." }, { idempotencyKey }),
      409,
      "idempotency_key_reused",
    );
    await h.client(KEYS.aKnowledge).deleteDocument(made.id);
    await expectApiError(await h.client(KEYS.aKnowledge).createDocument(body, { idempotencyKey }), 404, "not_found");
  });
});

describe("refusals", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["only white space", { name: "x", format: "text", content: " \n\t " }, "content"],
    ["a control character", { name: "x", format: "text", content: "a\u0007b" }, "content"],
    ["a control character in its name", { name: "a\u0001", format: "text", content: "ok" }, "name"],
    ["a language no index stems", { name: "x", format: "text", content: "ok", language: "xx" }, "language"],
    ["a format not offered", { name: "x", format: "pdf", content: "ok" }, "format"],
    ["a field not in the contract", { name: "x", format: "text", content: "ok", url: "https://example.com" }, "url"],
  ];
  it.each(cases)("%s is 422 naming the field", async (_name, body, path) => {
    const error = await expectApiError(
      await h.request("POST", "/v1/documents", { key: KEYS.aKnowledge, body, headers: { "Idempotency-Key": randomUUID() } }),
      422,
      "validation_failed",
    );
    expect(error.detail.map((issue: { path: string }) => issue.path)).toContain(path);
  });

  it("content of 1 MiB and one byte is 413 (counted in UTF-8 bytes, not characters), 1 MiB is taken", async () => {
    const mib = 1024 * 1024;
    const over = await h.request("POST", "/v1/documents", {
      key: KEYS.aKnowledge,
      body: { name: "big", format: "text", content: `${"é ".repeat(mib / 3)}${"a".repeat((mib % 3) + 1)}` },
      headers: { "Idempotency-Key": randomUUID() },
    });
    const error = await expectApiError(over, 413, "payload_too_large");
    expect(error.detail).toMatch(/1048577 bytes/);
    await added(
      {
        name: "big",
        format: "text",
        content: "word "
          .repeat(mib / 5)
          .slice(0, mib - 1)
          .concat("."),
      },
      KEYS.aTest,
    );
  });

  it("a body over 2 MiB is 413 before it is read whole", async () => {
    const raw = JSON.stringify({ name: "big", format: "text", content: "é".repeat(1024 * 1024 + 10) });
    await expectApiError(
      await h.request("POST", "/v1/documents", {
        key: KEYS.aKnowledge,
        raw,
        headers: { "Idempotency-Key": randomUUID(), "Content-Type": "application/json" },
      }),
      413,
      "payload_too_large",
    );
  });

  it("needs knowledge:write to add or delete, knowledge:read to read and search", async () => {
    const error = await expectApiError(
      await h.client(KEYS.a).createDocument({ name: "x", format: "text", content: "ok" }),
      403,
      "forbidden",
    );
    expect(error.detail).toEqual({ missing_scope: "knowledge:write" });
    await expectApiError(
      await h.client(KEYS.aKnowledgeRead).createDocument({ name: "x", format: "text", content: "ok" }),
      403,
      "forbidden",
    );
    const doc = await added({ name: "x", format: "text", content: "ok" });
    expectData(await h.client(KEYS.aKnowledgeRead).getDocument(doc.id));
    expectData(await h.client(KEYS.aKnowledgeRead).listDocuments({}));
    await expectApiError(await h.client(KEYS.aKnowledgeRead).deleteDocument(doc.id), 403, "forbidden");
    await expectApiError(await h.client(KEYS.a).getDocument(doc.id), 403, "forbidden");
  });

  it("a malformed id is 404 like an unknown one", async () => {
    await expectApiError(await h.client(KEYS.aKnowledge).getDocument("doc_nothex"), 404, "not_found");
    await expectApiError(await h.client(KEYS.aKnowledge).getDocument(`doc_${"0".repeat(24)}`), 404, "not_found");
  });
});

describe("isolation", () => {
  it("another account's or the other mode's document is 404, and as a digital human's knowledge 422 like an unknown id", async () => {
    const doc = await added({ name: "A's", format: "text", content: "A secret price list." });
    await expectApiError(await h.client(KEYS.bKnowledge).getDocument(doc.id), 404, "not_found");
    await expectApiError(await h.client(KEYS.bKnowledge).deleteDocument(doc.id), 404, "not_found");
    await expectApiError(await h.client(KEYS.aTest).getDocument(doc.id), 404, "not_found");
    expect(expectData(await h.client(KEYS.aTest).listDocuments({})).data.map((d) => d.id)).not.toContain(doc.id);
    const unknown = `doc_${"ab".repeat(12)}`;
    for (const [key, id] of [
      [KEYS.bPersonas, doc.id],
      [KEYS.aTest, doc.id],
      [KEYS.aPersonas, unknown],
    ] as const) {
      const error = await expectApiError(
        await h.client(key).createDigitalHuman({ name: "Maya", appearance: AVA.id, knowledge: { document_ids: [id] } }),
        422,
        "validation_failed",
      );
      expect(error.detail).toEqual([
        {
          location: "body",
          path: "knowledge.document_ids.0",
          message: expect.stringMatching(/is not a document of your account in (live|test) mode/),
        },
      ]);
    }
    expectData(await h.client(KEYS.aKnowledge).getDocument(doc.id));
  });
});

describe("a digital human's knowledge", () => {
  it("is answered, [] by default, and replaced whole by an update", async () => {
    const plain = expectData(await h.client(KEYS.aPersonas).createDigitalHuman({ name: "Sam" }), 201);
    expect(plain.knowledge).toEqual({ document_ids: [] });
    const doc = await added({ name: "x", format: "text", content: "ok" });
    const changed = expectData(await h.client(KEYS.aPersonas).updateDigitalHuman(plain.id, { knowledge: { document_ids: [doc.id] } }));
    expect(changed.knowledge).toEqual({ document_ids: [doc.id] });
    const cleared = expectData(await h.client(KEYS.aPersonas).updateDigitalHuman(plain.id, { knowledge: null }));
    expect(cleared.knowledge).toEqual({ document_ids: [] });
    const stock = expectData(await h.client(KEYS.aPersonas).getDigitalHuman(AVA.id));
    expect(stock.knowledge).toEqual({ document_ids: [] });
  });
});

describe("searchKnowledge", () => {
  it("answers the passage with the question's words (and their stems) first, from the digital human's ready documents only", async () => {
    const hotel = await added({ name: "Harbour Hotel facts", format: "markdown", content: HOTEL });
    const other = await added({ name: "Other", format: "text", content: "Breakfast at the other hotel is never served." });
    await settled(hotel.id);
    await settled(other.id);
    const dh = await concierge([hotel.id]);
    const found = expectData(await h.client(KEYS.aKnowledgeRead).searchKnowledge(dh, { query: "What time is breakfast?" }));
    expect(found.results.length).toBeGreaterThanOrEqual(1);
    expect(found.results[0]).toMatchObject({ document_id: hotel.id, document_name: "Harbour Hotel facts" });
    expect(found.results[0]?.text).toContain("Breakfast is served from 7:00 to 10:30");
    expect(found.results.every((r) => r.document_id === hotel.id && r.score > 0 && r.score <= 1)).toBe(true);
    const stems = expectData(await h.client(KEYS.aKnowledge).searchKnowledge(dh, { query: "when are breakfasts serving", limit: 1 }));
    expect(stems.results.map((r) => r.text.includes("Breakfast is served"))).toEqual([true]);
    const nothing = expectData(await h.client(KEYS.aKnowledge).searchKnowledge(dh, { query: "Is there a swimming pool with a sauna?" }));
    expect(nothing.results.every((r) => !r.text.includes("Breakfast"))).toBe(true);
  });

  it("never answers a deleted document's passages, and nothing for a digital human without documents or a stock one", async () => {
    const doc = await added({ name: "Menu", format: "text", content: "Breakfast is served at eight." });
    await settled(doc.id);
    const dh = await concierge([doc.id]);
    expect(expectData(await h.client(KEYS.aKnowledge).searchKnowledge(dh, { query: "breakfast" })).results).toHaveLength(1);
    await h.client(KEYS.aKnowledge).deleteDocument(doc.id);
    expect(expectData(await h.client(KEYS.aKnowledge).searchKnowledge(dh, { query: "breakfast" })).results).toEqual([]);
    expect(expectData(await h.client(KEYS.aKnowledge).searchKnowledge(await concierge([]), { query: "breakfast" })).results).toEqual([]);
    expect(expectData(await h.client(KEYS.aKnowledge).searchKnowledge(AVA.id, { query: "breakfast" })).results).toEqual([]);
  });

  it("is 404 for another account's or an unknown digital human, and 422 for an empty query", async () => {
    const dh = await concierge([]);
    await expectApiError(await h.client(KEYS.bKnowledge).searchKnowledge(dh, { query: "breakfast" }), 404, "not_found");
    await expectApiError(await h.client(KEYS.aKnowledge).searchKnowledge(randomUUID(), { query: "breakfast" }), 404, "not_found");
    await expectApiError(await h.client(KEYS.aKnowledge).searchKnowledge(dh, { query: "   " }), 422, "validation_failed");
    await expectApiError(await h.client(KEYS.aKnowledge).searchKnowledge(dh, { query: "x", limit: 11 }), 422, "validation_failed");
  });
});

describe("events", () => {
  it("document.ready and document.failed reach the endpoints that take them, once each, signed", async () => {
    const endpoint = expectData(
      await h.client(KEYS.aTest).createWebhookEndpoint({ url: events.url, event_types: ["document.ready", "document.failed"] }),
      201,
    );
    events.secrets = [endpoint.secret ?? ""];
    const good = await added({ name: "Good", format: "text", content: "Breakfast is at eight." }, KEYS.aTest);
    const bad = await added({ name: "Bad", format: "html", content: "<style>p{}</style>" }, KEYS.aTest);
    const ready = await until(() => events.received.find((r) => r.body.type === "document.ready" && r.body.data.id === good.id));
    const failed = await until(() => events.received.find((r) => r.body.type === "document.failed" && r.body.data.id === bad.id));
    expect(ready.verifiedWith).toBe(0);
    expect(ready.body).toMatchObject({ mode: "test", data: { status: "ready", name: "Good" } });
    expect(failed.body.data).toMatchObject({ status: "failed", error: expect.stringMatching(/no text/) });
    await deliveriesSettled(h);
    expect(events.received.filter((r) => r.body.data?.id === good.id)).toHaveLength(1);
  });
});
