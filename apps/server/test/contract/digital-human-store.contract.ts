/**
 * What every adapter of the accounts' own digital humans must do (domain/digital-humans/ports.ts): a
 * create and its Idempotency-Key in one step, within the owner's limit even when creates race; reads and
 * lists by owner only, newest first a page at a time; a change by compare-and-set; a delete once, freeing
 * a place. Run against the memory store (its unit test) and against Redis and Redis Cluster (test/store).
 */
import { describe, expect, it } from "vitest";
import type { DigitalHumanCreation, DigitalHumanRecord, DigitalHumanStore } from "../../src/domain/digital-humans/ports.js";

export interface DigitalHumanStoreUnderTest {
  store: DigitalHumanStore;
  close(): Promise<void>;
}

const DAY_MS = 86_400_000;

let clock = Date.parse("2026-11-26T09:00:00.000Z");
/** Each record a millisecond after the one before, so the newest-first order is the order of making. */
export function record(owner: string, overrides: Partial<DigitalHumanRecord> = {}): DigitalHumanRecord {
  const at = new Date(++clock).toISOString();
  return {
    id: crypto.randomUUID(),
    owner,
    name: "Maya",
    description: null,
    appearance: "6f1c2d0e-8b7a-4c55-9a9e-2f3b1d4c5e6f",
    instructions: "You are Maya.",
    greeting: null,
    voice: "slt",
    language: "en",
    llm: { model: "gpt-4o-mini", temperature: 0.5 },
    max_session_duration_s: null,
    metadata: { team: "bookings" },
    created_at: at,
    updated_at: at,
    ...overrides,
  };
}

export function creation(made: DigitalHumanRecord, overrides: Partial<DigitalHumanCreation> = {}): DigitalHumanCreation {
  return { record: made, idempotencyKey: crypto.randomUUID(), fingerprint: "print-a", keyTtlMs: DAY_MS, limit: 100, ...overrides };
}

const owner = () => `acct_${crypto.randomUUID().slice(0, 8)}`;

export function digitalHumanStoreContract(adapter: string, make: () => Promise<DigitalHumanStoreUnderTest>): void {
  async function withStore(run: (store: DigitalHumanStore) => Promise<void>): Promise<void> {
    const underTest = await make();
    try {
      await run(underTest.store);
    } finally {
      await underTest.close();
    }
  }

  describe(`the digital human store on ${adapter}`, () => {
    it("stores a create and reads it back whole, to its owner alone", () =>
      withStore(async (store) => {
        const mine = owner();
        const made = record(mine, { greeting: "Hello {participant_identity}!", metadata: { a: "1", b: "2" } });
        expect(await store.createDigitalHuman(creation(made))).toEqual({ kind: "created", record: made });
        expect((await store.getDigitalHuman(mine, made.id))?.record).toEqual(made);
        expect(await store.getDigitalHuman(`${mine}#test`, made.id)).toBeUndefined();
        expect(await store.getDigitalHuman(owner(), made.id)).toBeUndefined();
        expect(await store.listDigitalHumans(owner(), { limit: 10 })).toEqual([]);
      }));

    it("answers a key's second create with what it made for the same body, 'reused' for another, and stores nothing twice", () =>
      withStore(async (store) => {
        const mine = owner();
        const first = creation(record(mine));
        expect(await store.createDigitalHuman(first)).toMatchObject({ kind: "created" });
        const again = { ...first, record: record(mine) };
        expect(await store.createDigitalHuman(again)).toEqual({ kind: "replay", id: first.record.id });
        expect(await store.createDigitalHuman({ ...again, fingerprint: "print-b" })).toEqual({ kind: "reused" });
        expect(await store.getDigitalHuman(mine, again.record.id)).toBeUndefined();
        expect((await store.listDigitalHumans(mine, { limit: 10 })).map((r) => r.id)).toEqual([first.record.id]);
        // Keys are the owner's: another owner's same key makes its own.
        const theirs = owner();
        expect(await store.createDigitalHuman({ ...first, record: record(theirs) })).toMatchObject({ kind: "created" });
      }));

    it("forgets a key after its time, so it makes a new one", () =>
      withStore(async (store) => {
        const mine = owner();
        const first = creation(record(mine), { keyTtlMs: 100 });
        expect(await store.createDigitalHuman(first)).toMatchObject({ kind: "created" });
        await new Promise((resolve) => setTimeout(resolve, 250));
        expect(await store.createDigitalHuman({ ...first, record: record(mine) })).toMatchObject({ kind: "created" });
        expect(await store.listDigitalHumans(mine, { limit: 10 })).toHaveLength(2);
      }));

    it("refuses a create past the limit without recording its key, and takes it once a delete frees a place", () =>
      withStore(async (store) => {
        const mine = owner();
        const kept = [record(mine), record(mine)];
        for (const made of kept) expect(await store.createDigitalHuman(creation(made, { limit: 2 }))).toMatchObject({ kind: "created" });
        const third = creation(record(mine), { limit: 2 });
        expect(await store.createDigitalHuman(third)).toEqual({ kind: "limit" });
        // The limit counts per owner: the test side of the same account is apart.
        expect(await store.createDigitalHuman(creation(record(`${mine}#test`), { limit: 2 }))).toMatchObject({ kind: "created" });
        expect(await store.deleteDigitalHuman(mine, kept[0]?.id as string)).toBe(true);
        expect(await store.createDigitalHuman(third)).toMatchObject({ kind: "created" });
        expect(await store.getDigitalHuman(mine, third.record.id)).toBeDefined();
      }));

    it("takes exactly the limit when creates race for the last places", () =>
      withStore(async (store) => {
        const mine = owner();
        const outcomes = await Promise.all(
          Array.from({ length: 12 }, () => store.createDigitalHuman(creation(record(mine), { limit: 5 }))),
        );
        expect(outcomes.filter((o) => o.kind === "created")).toHaveLength(5);
        expect(outcomes.filter((o) => o.kind === "limit")).toHaveLength(7);
        expect(await store.listDigitalHumans(mine, { limit: 100 })).toHaveLength(5);
      }));

    it("lists newest first, a page after a position, with one more than the limit to tell of a next page", () =>
      withStore(async (store) => {
        const mine = owner();
        const made = Array.from({ length: 5 }, () => record(mine));
        for (const r of made) await store.createDigitalHuman(creation(r));
        const newest = [...made].reverse();
        const first = await store.listDigitalHumans(mine, { limit: 2 });
        expect(first.map((r) => r.id)).toEqual(newest.slice(0, 3).map((r) => r.id));
        const at = first[1] as DigitalHumanRecord;
        const second = await store.listDigitalHumans(mine, { limit: 2, after: { createdAtMs: Date.parse(at.created_at), id: at.id } });
        expect(second.map((r) => r.id)).toEqual(newest.slice(2, 5).map((r) => r.id));
        expect(second[0]).toEqual(newest[2]);
        const last = newest[4] as DigitalHumanRecord;
        expect(await store.listDigitalHumans(mine, { limit: 2, after: { createdAtMs: Date.parse(last.created_at), id: last.id } })).toEqual(
          [],
        );
      }));

    it("orders those made in the same millisecond by id, each listed once across pages", () =>
      withStore(async (store) => {
        const mine = owner();
        const at = new Date(++clock).toISOString();
        const made = Array.from({ length: 4 }, () => record(mine, { created_at: at, updated_at: at }));
        for (const r of made) await store.createDigitalHuman(creation(r));
        const seen: string[] = [];
        let after: { createdAtMs: number; id: string } | undefined;
        for (;;) {
          const page = await store.listDigitalHumans(mine, { limit: 1, after });
          const shown = page.slice(0, 1);
          seen.push(...shown.map((r) => r.id));
          if (page.length <= 1) break;
          after = { createdAtMs: Date.parse(at), id: shown[0]?.id as string };
        }
        expect(seen).toEqual(
          made
            .map((r) => r.id)
            .sort()
            .reverse(),
        );
      }));

    it("replaces a record only at the version it was read at", () =>
      withStore(async (store) => {
        const mine = owner();
        const made = record(mine);
        await store.createDigitalHuman(creation(made));
        const read = await store.getDigitalHuman(mine, made.id);
        if (!read) throw new Error("not stored");
        const renamed = { ...made, name: "Mia", updated_at: new Date(++clock).toISOString() };
        expect(await store.replaceDigitalHuman(renamed, read.version)).toBe(true);
        // A second writer that read before the first change lost the race.
        expect(await store.replaceDigitalHuman({ ...made, name: "Eve" }, read.version)).toBe(false);
        expect((await store.getDigitalHuman(mine, made.id))?.record.name).toBe("Mia");
        const now = await store.getDigitalHuman(mine, made.id);
        await store.deleteDigitalHuman(mine, made.id);
        expect(await store.replaceDigitalHuman({ ...renamed, name: "Zoe" }, now?.version as never)).toBe(false);
        expect(await store.getDigitalHuman(mine, made.id)).toBeUndefined();
      }));

    it("deletes once, for its owner only, and lists it no more", () =>
      withStore(async (store) => {
        const mine = owner();
        const made = record(mine);
        await store.createDigitalHuman(creation(made));
        expect(await store.deleteDigitalHuman(owner(), made.id)).toBe(false);
        expect(await store.deleteDigitalHuman(`${mine}#test`, made.id)).toBe(false);
        expect(await store.deleteDigitalHuman(mine, made.id)).toBe(true);
        expect(await store.deleteDigitalHuman(mine, made.id)).toBe(false);
        expect(await store.listDigitalHumans(mine, { limit: 10 })).toEqual([]);
      }));
  });
}
