/**
 * What every adapter of the accounts' knowledge must do (domain/knowledge/ports.ts): a create and its
 * Idempotency-Key in one step, within the owner's limit even when creates race; lists newest first a
 * page at a time; processing claimed by one replica at a time, a lapsed claim taken by another and the
 * stale one's finish refused; and a search that finds the passages of the owner's ready documents asked
 * for by their words' stems, best first, nothing for a question of no words. Run against the memory
 * store (its unit test) and PostgreSQL (test/postgres/knowledge-store.test.ts); scores differ between
 * them (BM25, ts_rank_cd), so only which passages come back, and their order, is asserted.
 */
import { describe, expect, it } from "vitest";
import type { Chunk, DocumentCreation, DocumentRecord, KnowledgeStore } from "../../src/domain/knowledge/ports.js";

export interface KnowledgeStoreUnderTest {
  store: KnowledgeStore;
  close(): Promise<void>;
}

const DAY_MS = 86_400_000;
const HOTEL = [
  "Breakfast\nThe Garden Room serves breakfast from 7:00 to 10:30, on weekends until 11:00.",
  "Check-in\nCheck-in starts at 15:00; the front desk keeps luggage until then.",
  "Parking\nThe garage under the hotel has 40 spaces; electric cars charge for free.",
  "Spa\nThe spa on the top floor has a sauna and a pool, open from 9:00 to 21:00.",
];

let clock = Date.parse("2026-11-28T09:00:00.000Z");
/** Each record a millisecond after the one before, so the newest-first order is the order of making. */
function record(owner: string, overrides: Partial<DocumentRecord> = {}): DocumentRecord {
  const at = new Date(++clock).toISOString();
  const id = `doc_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
  const made = { id, owner, name: "Harbour Hotel facts", format: "text", language: "en", status: "processing", error: null } as const;
  return { ...made, size_bytes: 120, chunks: 0, created_at: at, updated_at: at, ...overrides };
}

function creation(made: DocumentRecord, overrides: Partial<DocumentCreation> = {}): DocumentCreation {
  const base = { record: made, content: "# Harbour Hotel\n\nBreakfast is served.", idempotencyKey: crypto.randomUUID() };
  return { ...base, fingerprint: "print-a", keyTtlMs: DAY_MS, limit: 100, ...overrides };
}

export const owner = () => `acct_${crypto.randomUUID().slice(0, 8)}`;
const chunks = (texts: readonly string[]): Chunk[] => texts.map((text, index) => ({ index, text }));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let claimClock = Date.parse("2026-11-28T10:00:00.000Z");
/** A document made ready with these passages (claims are 1 ms leases, so none holds up another test's). */
export async function ready(store: KnowledgeStore, mine: string, texts: readonly string[], overrides: Partial<DocumentRecord> = {}) {
  const made = record(mine, overrides);
  expect((await store.createDocument(creation(made))).kind).toBe("created");
  claimClock += 10;
  const claimed = (await store.claimProcessing(claimClock, 1, 1000)).find((c) => c.record.id === made.id);
  if (!claimed) throw new Error(`${made.id} was not claimed`);
  const finished = await store.finishProcessing(
    { owner: mine, id: made.id, claim: claimed.claim },
    { kind: "ready", chunks: chunks(texts) },
    made.created_at,
  );
  if (!finished) throw new Error(`${made.id} was not finished`);
  return finished;
}

export function describeKnowledgeStore(adapter: string, make: () => Promise<KnowledgeStoreUnderTest>): void {
  async function withStore(run: (store: KnowledgeStore) => Promise<void>): Promise<void> {
    const underTest = await make();
    try {
      await run(underTest.store);
    } finally {
      await underTest.close();
    }
  }

  const texts = async (store: KnowledgeStore, query: { owner: string; documentIds: string[]; text: string; limit?: number }) =>
    (await store.search({ limit: 10, ...query })).map((p) => p.text);

  describe(`the knowledge store on ${adapter}`, () => {
    it("finds the passage with the question's words first, and by their stems", () =>
      withStore(async (store) => {
        const mine = owner();
        const doc = await ready(store, mine, HOTEL);
        const found = await store.search({ owner: mine, documentIds: [doc.id], text: "What time is breakfast?", limit: 3 });
        expect(found).toHaveLength(1);
        expect(found[0]).toMatchObject({ documentId: doc.id, documentName: "Harbour Hotel facts", text: HOTEL[0] });
        expect(found[0]?.score).toBeGreaterThan(0);
        expect(found[0]?.score).toBeLessThanOrEqual(1);
        expect(await texts(store, { owner: mine, documentIds: [doc.id], text: "Until when are breakfasts served?" })).toEqual([HOTEL[0]]);
        expect(await texts(store, { owner: mine, documentIds: [doc.id], text: "Where do I charge my electric car?" })).toEqual([HOTEL[2]]);
      }));

    it("among a thousand passages sharing a common word with the question, answers first the one with its rare word", () =>
      withStore(async (store) => {
        const mine = owner();
        const rooms = Array.from({ length: 1000 }, (_, i) => `Rooms\nRoom ${i} has a window, a desk and a room safe.`);
        const doc = await ready(store, mine, [...rooms.slice(0, 600), "Spa\nThe sauna room is warm by nine.", ...rooms.slice(600)]);
        const found = await store.search({ owner: mine, documentIds: [doc.id], text: "Is the sauna room warm?", limit: 3 });
        expect(found[0]?.text).toBe("Spa\nThe sauna room is warm by nine.");
        expect(found.slice(1).every((p) => p.text.startsWith("Rooms"))).toBe(true);
      }));

    it("when every word of the question is in hundreds of passages, answers first those that hold them all", () =>
      withStore(async (store) => {
        const mine = owner();
        // 1 200 passages: breakfast in the first 700, terrace in the last 700, both in the 200 between.
        const passages = Array.from({ length: 1200 }, (_, i) => {
          const words = [i < 700 ? "breakfast" : "lunch", i >= 500 ? "terrace" : "lounge"];
          return `Room ${i}\nGuests of room ${i} take their ${words[0]} on the ${words[1]}.`;
        });
        const doc = await ready(store, mine, passages);
        const found = await store.search({ owner: mine, documentIds: [doc.id], text: "breakfast on the terrace", limit: 3 });
        expect(found).toHaveLength(3);
        for (const p of found) expect(p.text).toMatch(/breakfast on the terrace/);
      }));

    it("when no passage holds the question's common words together, answers those holding the rarest of them", () =>
      withStore(async (store) => {
        const mine = owner();
        const passages = Array.from({ length: 1200 }, (_, i) =>
          i < 600 ? `Room ${i}\nGuests of room ${i} take their breakfast inside.` : `Room ${i}\nGuests of room ${i} sit on the terrace.`,
        );
        const doc = await ready(store, mine, passages);
        const found = await store.search({ owner: mine, documentIds: [doc.id], text: "breakfast on the terrace", limit: 3 });
        expect(found).toHaveLength(3);
        for (const p of found) expect(p.text).toMatch(/breakfast|terrace/);
      }));

    it("answers a passage that shares a single word with the question, and ranks one with more of them first", () =>
      withStore(async (store) => {
        const mine = owner();
        const doc = await ready(store, mine, HOTEL);
        expect(await texts(store, { owner: mine, documentIds: [doc.id], text: "Is there a sauna?" })).toEqual([HOTEL[3]]);
        const both = await texts(store, { owner: mine, documentIds: [doc.id], text: "Can I use the pool before breakfast?" });
        expect(both).toHaveLength(2);
        expect(new Set(both)).toEqual(new Set([HOTEL[0], HOTEL[3]]));
        expect(await texts(store, { owner: mine, documentIds: [doc.id], text: "Does the spa have a sauna?" })).toEqual([HOTEL[3]]);
      }));

    it("answers at most `limit` passages, best first", () =>
      withStore(async (store) => {
        const mine = owner();
        const towels = [
          "Towels\nTowels, towels and more towels at the pool.",
          "Rooms\nTowels are in every room.",
          "Beach\nBring towels.",
          "Bar\nNone.",
        ];
        const doc = await ready(store, mine, towels);
        const found = await store.search({ owner: mine, documentIds: [doc.id], text: "towels", limit: 2 });
        expect(found.map((p) => p.text)).toEqual([towels[0], expect.any(String)]);
        expect(found[0]?.score).toBeGreaterThanOrEqual(found[1]?.score ?? 1);
        expect(await store.search({ owner: mine, documentIds: [doc.id], text: "towels", limit: 10 })).toHaveLength(3);
      }));

    it("never answers another owner's passages, the account's test side's included, nor documents not asked for", () =>
      withStore(async (store) => {
        const mine = owner();
        const doc = await ready(store, mine, HOTEL);
        const testSide = await ready(store, `${mine}:test`, HOTEL);
        const other = await ready(store, owner(), HOTEL);
        const unasked = await ready(store, mine, HOTEL);
        const ids = [doc.id, testSide.id, other.id];
        const found = await store.search({ owner: mine, documentIds: ids, text: "breakfast", limit: 10 });
        expect(found.map((p) => p.documentId)).toEqual([doc.id]);
        expect(await texts(store, { owner: `${mine}:test`, documentIds: [doc.id, unasked.id], text: "breakfast" })).toEqual([]);
        expect(await texts(store, { owner: mine, documentIds: [], text: "breakfast" })).toEqual([]);
      }));

    it("never answers a deleted document's passages, and deletes a document once", () =>
      withStore(async (store) => {
        const mine = owner();
        const doc = await ready(store, mine, HOTEL);
        expect(await store.deleteDocument(`${mine}:test`, doc.id)).toBe(false);
        expect(await store.deleteDocument(mine, doc.id)).toBe(true);
        expect(await store.deleteDocument(mine, doc.id)).toBe(false);
        expect(await store.getDocument(mine, doc.id)).toBeUndefined();
        expect(await texts(store, { owner: mine, documentIds: [doc.id], text: "breakfast" })).toEqual([]);
      }));

    it("answers only ready documents: not one processing (claimed or not), nor one that failed", () =>
      withStore(async (store) => {
        const mine = owner();
        const [claimedOne, failing, waiting] = [record(mine), record(mine), record(mine)];
        await store.createDocument(creation(claimedOne));
        await store.createDocument(creation(failing));
        const claims = await store.claimProcessing(claimClock, 60_000, 10);
        await store.createDocument(creation(waiting));
        const failed = claims.find((c) => c.record.id === failing.id);
        const reason = { kind: "failed" as const, error: "The document holds no text." };
        const stored = await store.finishProcessing(
          { owner: mine, id: failing.id, claim: failed?.claim ?? "" },
          reason,
          failing.created_at,
        );
        expect(stored).toMatchObject({ status: "failed", error: "The document holds no text.", chunks: 0 });
        const ids = [waiting.id, claimedOne.id, failing.id];
        expect(await texts(store, { owner: mine, documentIds: ids, text: "breakfast served" })).toEqual([]);
        const doc = await ready(store, mine, HOTEL);
        expect(await texts(store, { owner: mine, documentIds: [...ids, doc.id], text: "breakfast" })).toEqual([HOTEL[0]]);
      }));

    it("answers nothing for a question of stop words, punctuation, quotes or backslashes, and reads quoted words", () =>
      withStore(async (store) => {
        const mine = owner();
        const doc = await ready(store, mine, HOTEL);
        const nothing = ["What is it?", "the", "", "   ", "?!", "'", "''", "\\", "\\'", "'\\''", '"', "&|!<->:*()", "' OR ''='"];
        for (const text of nothing) expect(await texts(store, { owner: mine, documentIds: [doc.id], text }), text).toEqual([]);
        const quoted = ["'breakfast'", "breakfast's", '"breakfast"', "\\breakfast\\", "breakfast:* & !'x'"];
        for (const text of quoted) expect(await texts(store, { owner: mine, documentIds: [doc.id], text }), text).toEqual([HOTEL[0]]);
      }));

    it("stems a document in its own language: a French one in French", () =>
      withStore(async (store) => {
        const mine = owner();
        const passage = "Petit-déjeuner\nLe petit-déjeuner est servi de 7 h à 10 h 30 dans la salle du jardin.";
        const french = await ready(store, mine, [passage], { language: "fr", name: "Hôtel du Port" });
        const english = await ready(store, mine, [passage], { language: "en-GB" });
        const found = await store.search({ owner: mine, documentIds: [english.id, french.id], text: "Quand servez-vous ?", limit: 3 });
        expect(found.map((p) => [p.documentId, p.documentName])).toEqual([[french.id, "Hôtel du Port"]]);
        expect(await texts(store, { owner: mine, documentIds: [french.id], text: "Où sont les jardins ?" })).toEqual([passage]);
      }));

    it("creates a document once per Idempotency-Key: the same body replays it, another body is refused", () =>
      withStore(async (store) => {
        const mine = owner();
        const made = record(mine);
        const first = creation(made);
        expect(await store.createDocument(first)).toEqual({ kind: "created", record: made });
        expect(await store.getDocument(mine, made.id)).toEqual(made);
        const again = { ...first, record: record(mine) };
        expect(await store.createDocument(again)).toEqual({ kind: "replay", id: made.id });
        expect(await store.createDocument({ ...again, fingerprint: "print-b" })).toEqual({ kind: "reused" });
        expect(await store.createDocument({ ...again, record: record(`${mine}:test`) })).toMatchObject({ kind: "created" });
        expect(await store.listDocuments(mine, { limit: 10 })).toEqual([made]);
      }));

    it("makes one document of concurrent creates with one key", () =>
      withStore(async (store) => {
        const mine = owner();
        const key = crypto.randomUUID();
        const outcomes = await Promise.all(
          Array.from({ length: 6 }, () => store.createDocument(creation(record(mine), { idempotencyKey: key }))),
        );
        const created = outcomes.filter((o) => o.kind === "created");
        expect(created).toHaveLength(1);
        const id = created[0]?.kind === "created" ? created[0].record.id : "";
        expect(outcomes.filter((o) => o.kind === "replay")).toEqual(Array.from({ length: 5 }, () => ({ kind: "replay", id })));
        expect((await store.listDocuments(mine, { limit: 10 })).map((d) => d.id)).toEqual([id]);
      }));

    it("keeps an owner within its limit, concurrent creates included, and forgets a key once it expires", () =>
      withStore(async (store) => {
        const mine = owner();
        const outcomes = await Promise.all(Array.from({ length: 6 }, () => store.createDocument(creation(record(mine), { limit: 3 }))));
        expect(outcomes.filter((o) => o.kind === "created")).toHaveLength(3);
        expect(outcomes.filter((o) => o.kind === "limit")).toHaveLength(3);
        expect(await store.createDocument(creation(record(`${mine}:test`), { limit: 3 }))).toMatchObject({ kind: "created" });
        const brief = creation(record(mine), { keyTtlMs: 1, limit: 10 });
        expect(await store.createDocument(brief)).toMatchObject({ kind: "created" });
        await sleep(20);
        const later = record(mine);
        expect(await store.createDocument({ ...brief, record: later })).toEqual({ kind: "created", record: later });
        expect(await store.existingDocuments(mine, [later.id, brief.record.id, "doc_none"])).toEqual(new Set([later.id, brief.record.id]));
        expect(await store.existingDocuments(`${mine}:test`, [later.id])).toEqual(new Set());
      }));

    it("lists newest first, equal creation times by id descending, a page after a position", () =>
      withStore(async (store) => {
        const mine = owner();
        const made = [record(mine), record(mine)];
        const tied = new Date(++clock).toISOString();
        made.push(record(mine, { id: "doc_a", created_at: tied }), record(mine, { id: "doc_b", created_at: tied }), record(mine));
        for (const doc of made) await store.createDocument(creation(doc));
        await store.createDocument(creation(record(owner())));
        const order = [made[4], made[3], made[2], made[1], made[0]].map((d) => d?.id);
        const first = await store.listDocuments(mine, { limit: 2 });
        expect(first.map((d) => d.id)).toEqual(order.slice(0, 3));
        const position = (d: DocumentRecord | undefined) => ({ createdAtMs: Date.parse(d?.created_at ?? ""), id: d?.id ?? "" });
        const second = await store.listDocuments(mine, { limit: 2, after: position(first[1]) });
        expect(second.map((d) => d.id)).toEqual(order.slice(2, 5));
        expect(await store.listDocuments(mine, { limit: 2, after: position(second[1]) })).toEqual([made[0]]);
      }));

    it("leases processing to one claim at a time, oldest first, and to another once the lease lapses", () =>
      withStore(async (store) => {
        const [older, newer] = [record(owner()), record(owner())];
        await store.createDocument(creation(older, { content: "older content" }));
        await store.createDocument(creation(newer));
        const t = Date.parse("2026-11-28T12:00:00.000Z");
        const first = await store.claimProcessing(t, 1000, 1);
        expect(first.map((c) => [c.record, c.content])).toEqual([[older, "older content"]]);
        expect((await store.claimProcessing(t + 10, 1000, 5)).map((c) => c.record.id)).toEqual([newer.id]);
        expect(await store.claimProcessing(t + 20, 1000, 5)).toEqual([]);
        const second = await store.claimProcessing(t + 1005, 1000, 5);
        expect(second.map((c) => c.record.id)).toEqual([older.id]);
        expect(second[0]?.claim).not.toBe(first[0]?.claim);
        const stale = { owner: older.owner, id: older.id, claim: first[0]?.claim ?? "" };
        const at = new Date(t + 1100).toISOString();
        expect(await store.finishProcessing(stale, { kind: "ready", chunks: chunks(HOTEL) }, at)).toBeUndefined();
        expect(await store.getDocument(older.owner, older.id)).toEqual(older);
        expect(await texts(store, { owner: older.owner, documentIds: [older.id], text: "breakfast" })).toEqual([]);
        const current = { ...stale, claim: second[0]?.claim ?? "" };
        const done = { ...older, status: "ready", chunks: 4, updated_at: at };
        expect(await store.finishProcessing(current, { kind: "ready", chunks: chunks(HOTEL) }, at)).toEqual(done);
        expect(await store.getDocument(older.owner, older.id)).toEqual(done);
        expect(await store.finishProcessing(current, { kind: "failed", error: "late" }, at)).toBeUndefined();
        expect((await store.claimProcessing(t + 5000, 1000, 5)).map((c) => c.record.id)).toEqual([newer.id]);
        expect(await texts(store, { owner: older.owner, documentIds: [older.id], text: "breakfast" })).toEqual([HOTEL[0]]);
      }));

    it("answers undefined to the finish of a document deleted while it was processed", () =>
      withStore(async (store) => {
        const made = record(owner());
        await store.createDocument(creation(made));
        const [claimed] = await store.claimProcessing(claimClock, 60_000, 1);
        expect(claimed?.record.id).toBe(made.id);
        expect(await store.deleteDocument(made.owner, made.id)).toBe(true);
        const finish = { owner: made.owner, id: made.id, claim: claimed?.claim ?? "" };
        expect(await store.finishProcessing(finish, { kind: "ready", chunks: chunks(HOTEL) }, made.created_at)).toBeUndefined();
        expect(await store.getDocument(made.owner, made.id)).toBeUndefined();
        expect(await store.claimProcessing(claimClock + 120_000, 60_000, 1)).toEqual([]);
      }));
  });
}
