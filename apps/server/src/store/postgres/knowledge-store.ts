/**
 * The accounts' documents and their passages in PostgreSQL (KnowledgeStore): a create takes its
 * Idempotency-Key by the key's primary key and counts the owner's documents under the owner's
 * transaction lock, so neither a key nor the limit is ever overrun by creates that race; claims lease
 * documents to one replica at a time (SKIP LOCKED: replicas claiming at once take different ones); and
 * passages are searched by PostgreSQL's full-text search (passage-search.ts), whose counts of the
 * owner's lexemes are kept here, as passages are stored and deleted, under the owner's lock.
 */
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
import type { ListPosition } from "../../domain/list-order.js";
import { type Database, guardDatabase, transaction } from "./database.js";
import { COUNT_LEXEMES, FORGET_UNUSED_LEXEMES, searchPassages, UNCOUNT_LEXEMES } from "./passage-search.js";

const RECORD = "owner, id, name, format, language, status, error, size_bytes, chunks, created_at, updated_at";
const LOCK_OWNER = "SELECT pg_advisory_xact_lock(hashtextextended('documents:' || $1, 0))";
const KEY = "SELECT fingerprint, document_id FROM document_keys WHERE owner = $1 AND key = $2 AND expires_at > $3";
const COUNT = "SELECT count(*)::int AS n FROM documents WHERE owner = $1";
const INSERT = `
INSERT INTO documents (${RECORD}, config, content)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::regconfig, $13)`;
// The key is taken first, by its primary key: a create with the same key that is not committed yet holds
// this insert until it ends, so two creates with one key never both make a document. An expired key is
// the owner's to take again; an unexpired one taken is none of this create's (no row returned).
const TAKE_KEY = `
INSERT INTO document_keys (owner, key, fingerprint, document_id, expires_at) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (owner, key) DO UPDATE SET fingerprint = excluded.fingerprint, document_id = excluded.document_id,
  expires_at = excluded.expires_at WHERE document_keys.expires_at <= $6
RETURNING 1`;
const RELEASE_KEY = "DELETE FROM document_keys WHERE owner = $1 AND key = $2";
const FORGET_EXPIRED = "DELETE FROM document_keys WHERE owner = $1 AND expires_at <= $2";
const GET = `SELECT ${RECORD} FROM documents WHERE owner = $1 AND id = $2`;
const EXISTING = "SELECT id FROM documents WHERE owner = $1 AND id = ANY($2::text[])";
const LIST = `
SELECT ${RECORD} FROM documents WHERE owner = $1 AND (created_at, id) < ($2::timestamptz, $3)
ORDER BY created_at DESC, id DESC LIMIT $4`;
const DELETE = "DELETE FROM documents WHERE owner = $1 AND id = $2";
// Any owner's documents whose claim has lapsed, oldest first; rows another replica is claiming right now
// are skipped, not waited for. Each claim gets its own token.
const CLAIM = `
UPDATE documents d SET claim = gen_random_uuid()::text, claimed_until = $2
FROM (
  SELECT owner, id FROM documents
  WHERE status = 'processing' AND (claimed_until IS NULL OR claimed_until <= $1)
  ORDER BY created_at LIMIT $3 FOR UPDATE SKIP LOCKED
) due
WHERE d.owner = due.owner AND d.id = due.id
RETURNING d.owner, d.id, d.name, d.format, d.language, d.status, d.error, d.size_bytes, d.chunks, d.created_at, d.updated_at,
  d.content, d.claim`;
const CLAIMED =
  "SELECT config::text AS config FROM documents WHERE owner = $1 AND id = $2 AND claim = $3 AND status = 'processing' FOR UPDATE";
const CLEAR_CHUNKS = "DELETE FROM document_chunks WHERE owner = $1 AND document_id = $2";
// The passages at once (one statement however many), each first line a heading when more lines follow.
const INSERT_CHUNKS = `
INSERT INTO document_chunks (owner, document_id, idx, text, tsv)
SELECT $1, $2, u.idx, u.text, CASE WHEN strpos(u.text, E'\\n') = 0 THEN setweight(to_tsvector($3::regconfig, u.text), 'B')
  ELSE setweight(to_tsvector($3::regconfig, split_part(u.text, E'\\n', 1)), 'A')
    || setweight(to_tsvector($3::regconfig, substr(u.text, strpos(u.text, E'\\n') + 1)), 'B') END
FROM unnest($4::int[], $5::text[]) AS u(idx, text)`;
const FINISH = `
UPDATE documents SET status = $3, chunks = $4, error = $5, updated_at = $6, claim = NULL, claimed_until = NULL
WHERE owner = $1 AND id = $2 RETURNING ${RECORD}`;

type Row = Omit<DocumentRecord, "created_at" | "updated_at"> & { created_at: Date; updated_at: Date };

export class PostgresKnowledgeStore implements KnowledgeStore {
  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {}

  async createDocument({
    record,
    content,
    idempotencyKey,
    fingerprint,
    keyTtlMs,
    limit,
  }: DocumentCreation): Promise<DocumentCreateOutcome> {
    const r = record;
    const now = new Date(this.now());
    return guardDatabase(() =>
      transaction(this.db, async (client): Promise<DocumentCreateOutcome> => {
        // The owner's creates one at a time, so the count below holds until this one commits.
        await client.query({ name: "knowledge-lock", text: LOCK_OWNER, values: [r.owner] });
        const key = [r.owner, idempotencyKey, fingerprint, r.id, new Date(now.getTime() + keyTtlMs), now];
        if ((await client.query({ name: "knowledge-take-key", text: TAKE_KEY, values: key })).rowCount === 0) {
          const known = await client.query<{ fingerprint: string; document_id: string }>({
            name: "knowledge-key",
            text: KEY,
            values: [r.owner, idempotencyKey, now],
          });
          const made = known.rows[0];
          if (!made) throw new Error(`the Idempotency-Key ${idempotencyKey} is taken, yet not found`);
          return made.fingerprint === fingerprint ? { kind: "replay", id: made.document_id } : { kind: "reused" };
        }
        const count = await client.query<{ n: number }>({ name: "knowledge-count", text: COUNT, values: [r.owner] });
        if ((count.rows[0]?.n ?? 0) >= limit) {
          await client.query({ name: "knowledge-release-key", text: RELEASE_KEY, values: [r.owner, idempotencyKey] });
          return { kind: "limit" };
        }
        const values = [r.owner, r.id, r.name, r.format, r.language, r.status, r.error, r.size_bytes, r.chunks, r.created_at, r.updated_at];
        await client.query({ name: "knowledge-insert", text: INSERT, values: [...values, configurationOf(r.language), content] });
        await client.query({ name: "knowledge-forget-keys", text: FORGET_EXPIRED, values: [r.owner, now] });
        return { kind: "created", record };
      }),
    );
  }

  async getDocument(owner: string, id: string): Promise<DocumentRecord | undefined> {
    const { rows } = await guardDatabase(() => this.db.query<Row>({ name: "knowledge-get", text: GET, values: [owner, id] }));
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  async existingDocuments(owner: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const { rows } = await guardDatabase(() =>
      this.db.query<{ id: string }>({ name: "knowledge-existing", text: EXISTING, values: [owner, [...ids]] }),
    );
    return new Set(rows.map((row) => row.id));
  }

  async listDocuments(owner: string, query: { limit: number; after?: ListPosition | undefined }): Promise<DocumentRecord[]> {
    // Without a position, the page starts past every document: after an infinitely new one.
    const after = query.after ? [new Date(query.after.createdAtMs), query.after.id] : ["infinity", ""];
    const values = [owner, ...after, query.limit + 1];
    const { rows } = await guardDatabase(() => this.db.query<Row>({ name: "knowledge-list", text: LIST, values }));
    return rows.map(toRecord);
  }

  async deleteDocument(owner: string, id: string): Promise<boolean> {
    return guardDatabase(() =>
      transaction(this.db, async (client) => {
        await client.query({ name: "knowledge-lock", text: LOCK_OWNER, values: [owner] });
        await client.query({ name: "knowledge-uncount", text: UNCOUNT_LEXEMES, values: [owner, id] });
        const { rowCount } = await client.query({ name: "knowledge-delete", text: DELETE, values: [owner, id] });
        await client.query({ name: "knowledge-forget-lexemes", text: FORGET_UNUSED_LEXEMES, values: [owner] });
        return (rowCount ?? 0) > 0;
      }),
    );
  }

  async claimProcessing(nowMs: number, leaseMs: number, max: number): Promise<(ClaimedDocument & { claim: string })[]> {
    const values = [new Date(nowMs), new Date(nowMs + leaseMs), max];
    const { rows } = await guardDatabase(() =>
      this.db.query<Row & { content: string; claim: string }>({ name: "knowledge-claim", text: CLAIM, values }),
    );
    return rows
      .sort((a, b) => a.created_at.getTime() - b.created_at.getTime())
      .map(({ content, claim, ...row }) => ({ record: toRecord(row), content, claim }));
  }

  async finishProcessing(
    document: { owner: string; id: string; claim: string },
    outcome: ProcessingOutcome,
    at: string,
  ): Promise<DocumentRecord | undefined> {
    const { owner, id, claim } = document;
    return guardDatabase(() =>
      transaction(this.db, async (client) => {
        const held = await client.query<{ config: string }>({ name: "knowledge-claimed", text: CLAIMED, values: [owner, id, claim] });
        const config = held.rows[0]?.config;
        if (config === undefined) return undefined;
        await client.query({ name: "knowledge-lock", text: LOCK_OWNER, values: [owner] });
        await client.query({ name: "knowledge-uncount", text: UNCOUNT_LEXEMES, values: [owner, id] });
        await client.query({ name: "knowledge-clear-chunks", text: CLEAR_CHUNKS, values: [owner, id] });
        const chunks = outcome.kind === "ready" ? outcome.chunks : [];
        if (chunks.length > 0) {
          const values = [owner, id, config, chunks.map((c) => c.index), chunks.map((c) => c.text)];
          await client.query({ name: "knowledge-insert-chunks", text: INSERT_CHUNKS, values });
          await client.query({ name: "knowledge-count-lexemes", text: COUNT_LEXEMES, values: [owner, id, config] });
        }
        const error = outcome.kind === "failed" ? outcome.error : null;
        const values = [owner, id, outcome.kind, chunks.length, error, at];
        const { rows } = await client.query<Row>({ name: "knowledge-finish", text: FINISH, values });
        return rows[0] ? toRecord(rows[0]) : undefined;
      }),
    );
  }

  search(query: PassageQuery): Promise<Passage[]> {
    return searchPassages(this.db, query);
  }
}

function toRecord(row: Row): DocumentRecord {
  return { ...row, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString() };
}
