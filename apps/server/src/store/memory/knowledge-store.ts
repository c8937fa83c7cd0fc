/**
 * The accounts' documents and their passages in memory (KnowledgeStore), for development and tests:
 * each owner's documents by id, stored as JSON (callers never share, and mutate, one object), with the
 * Idempotency-Keys of their creates; each step is synchronous, so atomic. Passages are searched in an
 * Orama index, one per text search configuration (its words are stemmed their own way, passage-words.ts),
 * ranked by BM25: the memory store ranks as a search engine does, not as PostgreSQL does, so only what
 * the contract promises (which passages, best first, within the floor) is the same in both.
 */
import { randomUUID } from "node:crypto";
import { create, insert, type Orama, remove, search } from "@orama/orama";
import { configurationOf } from "../../domain/knowledge/languages.js";
import type {
  ClaimedDocument,
  DocumentCreateOutcome,
  DocumentCreation,
  DocumentRecord,
  KnowledgeStore,
  Passage,
  PassageQuery,
  ProcessingOutcome,
} from "../../domain/knowledge/ports.js";
import { isAfterCursor, type ListPosition, newestFirst } from "../../domain/list-order.js";
import { entry } from "./maps.js";
import { passageTokenizer, passageWords } from "./passage-words.js";

/**
 * The least relevance a passage is answered with, of BM25's score s normalized to s / (s + 1). One word
 * in the body of one passage of four scores 0.40, of a single passage 0.14 (its rarity cannot show), so
 * a passage sharing one rare word with the question is answered; a word every passage of five or more
 * holds scores under 0.05, and tells none of them apart. Stop words are never indexed, so a question of
 * them alone matches nothing. (BM25 counts a word's rarity over every owner's passages of the index.)
 */
export const MEMORY_SEARCH_FLOOR = 0.05;
/** A heading's word counts as PostgreSQL weighs it (A, 1.0) against a body's (B, 0.4). */
const HEADING_BOOST = 2.5;

const SCHEMA = { document: "enum", heading: "string", body: "string" } as const;
type PassageIndex = Orama<typeof SCHEMA>;

interface StoredDocument {
  record: DocumentRecord;
  claim: string | null;
  claimedUntilMs: number | null;
  /** The index's ids of its passages. */
  passages: string[];
}

interface Owned {
  /** id -> StoredDocument as JSON */
  documents: Map<string, string>;
  /** Idempotency-Key -> what it made, and until when it is remembered (ms). */
  keys: Map<string, { fingerprint: string; id: string; expiresAt: number }>;
}

export class MemoryKnowledgeStore implements KnowledgeStore {
  private readonly owners = new Map<string, Owned>();
  /** Configuration -> its index. */
  private readonly indexes = new Map<string, PassageIndex>();
  /** A passage's index id -> its text. */
  private readonly texts = new Map<string, string>();
  /** documentKey -> the document's content, apart: a claim pass reads every record, not every content. */
  private readonly contents = new Map<string, string>();

  constructor(private readonly now: () => number = Date.now) {}

  async createDocument({
    record,
    content,
    idempotencyKey,
    fingerprint,
    keyTtlMs,
    limit,
  }: DocumentCreation): Promise<DocumentCreateOutcome> {
    const owned = this.owned(record.owner);
    const recorded = owned.keys.get(idempotencyKey);
    if (recorded !== undefined) return recorded.fingerprint === fingerprint ? { kind: "replay", id: recorded.id } : { kind: "reused" };
    if (owned.documents.size >= limit) return { kind: "limit" };
    this.put({ record, claim: null, claimedUntilMs: null, passages: [] });
    this.contents.set(documentKey(record.owner, record.id), content);
    owned.keys.set(idempotencyKey, { fingerprint, id: record.id, expiresAt: this.now() + keyTtlMs });
    return { kind: "created", record };
  }

  async getDocument(owner: string, id: string): Promise<DocumentRecord | undefined> {
    return this.stored(owner, id)?.record;
  }

  async existingDocuments(owner: string, ids: readonly string[]): Promise<Set<string>> {
    const documents = this.owners.get(owner)?.documents;
    return new Set(ids.filter((id) => documents?.has(id)));
  }

  async listDocuments(owner: string, query: { limit: number; after?: ListPosition | undefined }): Promise<DocumentRecord[]> {
    const records = [...(this.owners.get(owner)?.documents.values() ?? [])].map((json) => (JSON.parse(json) as StoredDocument).record);
    const position = (record: DocumentRecord): ListPosition => ({ createdAtMs: Date.parse(record.created_at), id: record.id });
    return records
      .filter((record) => isAfterCursor(position(record), query.after))
      .sort((a, b) => newestFirst(position(a), position(b)))
      .slice(0, query.limit + 1);
  }

  async deleteDocument(owner: string, id: string): Promise<boolean> {
    const stored = this.stored(owner, id);
    if (!stored) return false;
    const index = this.index(configurationOf(stored.record.language));
    for (const passage of stored.passages) {
      remove(index, passage);
      this.texts.delete(passage);
    }
    this.contents.delete(documentKey(owner, id));
    return this.owners.get(owner)?.documents.delete(id) ?? false;
  }

  async claimProcessing(nowMs: number, leaseMs: number, max: number): Promise<(ClaimedDocument & { claim: string })[]> {
    const due = [...this.owners.values()]
      .flatMap((owned) => [...owned.documents.values()].map((json) => JSON.parse(json) as StoredDocument))
      .filter((d) => d.record.status === "processing" && (d.claimedUntilMs === null || d.claimedUntilMs <= nowMs))
      .sort((a, b) => Date.parse(a.record.created_at) - Date.parse(b.record.created_at))
      .slice(0, Math.max(0, max));
    return due.map((stored) => {
      const claim = randomUUID();
      this.put({ ...stored, claim, claimedUntilMs: nowMs + leaseMs });
      return { record: stored.record, content: this.contents.get(documentKey(stored.record.owner, stored.record.id)) ?? "", claim };
    });
  }

  async finishProcessing(
    document: { owner: string; id: string; claim: string },
    outcome: ProcessingOutcome,
    at: string,
  ): Promise<DocumentRecord | undefined> {
    const stored = this.stored(document.owner, document.id);
    if (stored?.record.status !== "processing" || stored.claim !== document.claim) return undefined;
    const chunks = outcome.kind === "ready" ? outcome.chunks : [];
    const index = this.index(configurationOf(stored.record.language));
    const key = documentKey(document.owner, document.id);
    const passages = chunks.map((chunk) => {
      const id = JSON.stringify([document.owner, document.id, chunk.index]);
      const lineEnd = chunk.text.indexOf("\n");
      const heading = lineEnd < 0 ? "" : chunk.text.slice(0, lineEnd);
      insert(index, { id, document: key, heading, body: chunk.text.slice(lineEnd + 1) });
      this.texts.set(id, chunk.text);
      return id;
    });
    const error = outcome.kind === "failed" ? outcome.error : null;
    const record: DocumentRecord = { ...stored.record, status: outcome.kind, chunks: chunks.length, error, updated_at: at };
    this.put({ ...stored, record, claim: null, claimedUntilMs: null, passages });
    return record;
  }

  async search({ owner, documentIds, text, limit }: PassageQuery): Promise<Passage[]> {
    const places = new Map<string, number>();
    for (const id of documentIds) if (!places.has(id)) places.set(id, places.size);
    const byConfiguration = new Map<string, { keys: string[]; passages: number }>();
    for (const id of places.keys()) {
      const record = this.stored(owner, id)?.record;
      if (record?.status !== "ready" || record.chunks === 0) continue;
      const group = entry(byConfiguration, configurationOf(record.language), () => ({ keys: [], passages: 0 }));
      group.keys.push(documentKey(owner, id));
      group.passages += record.chunks;
    }
    const found: (Passage & { place: number; index: number })[] = [];
    for (const [config, group] of byConfiguration) {
      if (passageWords(config, text).length === 0) continue;
      // threshold 1: a passage holding any of the question's words is found (OR), not only all of them.
      const { hits } = await search(this.index(config), {
        term: text,
        properties: ["heading", "body"],
        boost: { heading: HEADING_BOOST },
        threshold: 1,
        where: { document: { in: group.keys } },
        limit: group.passages,
      });
      for (const hit of hits) {
        const score = hit.score / (hit.score + 1);
        const [, id, passageIndex] = JSON.parse(hit.id) as [string, string, number];
        const record = this.stored(owner, id)?.record;
        const passage = this.texts.get(hit.id);
        if (score < MEMORY_SEARCH_FLOOR || record?.status !== "ready" || passage === undefined) continue;
        found.push({ documentId: id, documentName: record.name, text: passage, score, place: places.get(id) ?? 0, index: passageIndex });
      }
    }
    found.sort((a, b) => b.score - a.score || a.place - b.place || a.index - b.index);
    return found.slice(0, Math.max(0, limit)).map(({ place: _place, index: _index, ...passage }) => passage);
  }

  private stored(owner: string, id: string): StoredDocument | undefined {
    const json = this.owners.get(owner)?.documents.get(id);
    return json === undefined ? undefined : (JSON.parse(json) as StoredDocument);
  }

  private put(stored: StoredDocument): void {
    this.owned(stored.record.owner).documents.set(stored.record.id, JSON.stringify(stored));
  }

  private index(config: string): PassageIndex {
    return entry(this.indexes, config, () => create({ schema: SCHEMA, components: { tokenizer: passageTokenizer(config) } }));
  }

  private owned(owner: string): Owned {
    const owned = entry(this.owners, owner, () => ({ documents: new Map(), keys: new Map() }));
    for (const [key, recorded] of owned.keys) if (recorded.expiresAt <= this.now()) owned.keys.delete(key);
    return owned;
  }
}

/** The index's value for a passage's document: the owner's id of it, one value to filter on. */
function documentKey(owner: string, id: string): string {
  return JSON.stringify([owner, id]);
}
