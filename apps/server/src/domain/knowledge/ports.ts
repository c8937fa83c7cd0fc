/**
 * What the account's knowledge needs from a store (PostgreSQL, or memory in development): documents
 * created once per Idempotency-Key within the owner's limit, processed by whichever replica claims them
 * (a claim is a lease: a replica that dies mid-document leaves it to another), their passages searched
 * for one owner's ready documents only. Each is kept under its owner (an account, or its test side), so
 * another owner's is never found.
 *
 * The index is full-text search today; a vector index (an embeddings endpoint and pgvector) would be
 * another `PassageIndex` beside it, its scores merged by the service. Not built: no embedding model can
 * run where this is developed and tested.
 */
import type { DocumentFormat, DocumentStatus } from "@dhs/contract";
import type { ListPosition } from "../list-order.js";

/** A document as stored, without its content; the contract's Document less what is derived. */
export interface DocumentRecord {
  id: string;
  /** The data owner: the account of the key that made it, or that account's test side. */
  owner: string;
  name: string;
  format: DocumentFormat;
  /** A BCP 47 tag the index supports (languages.ts). */
  language: string;
  status: DocumentStatus;
  error: string | null;
  size_bytes: number;
  chunks: number;
  created_at: string;
  updated_at: string;
}

export interface DocumentCreation {
  record: DocumentRecord;
  content: string;
  idempotencyKey: string;
  /** The request body's fingerprint: the same key with another body is refused. */
  fingerprint: string;
  keyTtlMs: number;
  /** The most documents the owner may have. */
  limit: number;
}

/** `created`, `replay` of what the key made before (its id), `reused` with another body, or `limit`. */
export type DocumentCreateOutcome =
  | { kind: "created"; record: DocumentRecord }
  | { kind: "replay"; id: string }
  | { kind: "reused" }
  | { kind: "limit" };

/** A document claimed for processing, with what it was made from. */
export interface ClaimedDocument {
  record: DocumentRecord;
  content: string;
}

/** A passage of a document, as the processing made it (its place in the document, its text). */
export interface Chunk {
  index: number;
  text: string;
}

/** What processing a document came to: its passages, or why it could not be processed. */
export type ProcessingOutcome = { kind: "ready"; chunks: Chunk[] } | { kind: "failed"; error: string };

/** A passage found for a query, with its relevance from 0 to 1 (comparable within one search only). */
export interface Passage {
  documentId: string;
  documentName: string;
  text: string;
  score: number;
}

export interface PassageQuery {
  owner: string;
  /** Only these documents' passages (those still there and ready). */
  documentIds: readonly string[];
  text: string;
  limit: number;
}

/** Where passages are found. The index alone knows its ranking, so it alone applies its relevance floor. */
export interface PassageIndex {
  /** Best first, at most `limit`, only passages above the index's relevance floor. */
  search(query: PassageQuery): Promise<Passage[]>;
}

export interface KnowledgeStore extends PassageIndex {
  /** Stores the document `processing` with its content and remembers the key, in one step. */
  createDocument(creation: DocumentCreation): Promise<DocumentCreateOutcome>;
  getDocument(owner: string, id: string): Promise<DocumentRecord | undefined>;
  /** Those of `ids` that are the owner's (any status). */
  existingDocuments(owner: string, ids: readonly string[]): Promise<Set<string>>;
  /** Newest first (creation time, then id), after the position; one more than `limit` tells of a next page. */
  listDocuments(owner: string, query: { limit: number; after?: ListPosition | undefined }): Promise<DocumentRecord[]>;
  /** Deletes the document, its content and its passages at once; false when there was none. */
  deleteDocument(owner: string, id: string): Promise<boolean>;
  /**
   * Claims, for leaseMs, up to `max` documents still `processing` whose last claim has lapsed (any
   * owner's), oldest first; each claim has a token that its finish must show.
   */
  claimProcessing(nowMs: number, leaseMs: number, max: number): Promise<(ClaimedDocument & { claim: string })[]>;
  /**
   * Stores the outcome (the passages and `ready`, or `failed` and its reason) if the claim is still the
   * document's; undefined when it is not (deleted, or claimed by another after the lease lapsed).
   */
  finishProcessing(
    document: { owner: string; id: string; claim: string },
    outcome: ProcessingOutcome,
    at: string,
  ): Promise<DocumentRecord | undefined>;
}

/** Why a PDF gives no text: unreadable, locked, too long, only drawn (a scan), or beyond the time or memory it may take. */
export type PdfRefusal = "broken" | "password" | "pages" | "text" | "no_text" | "limits";

export type PdfTextResult = { kind: "text"; text: string; pages: number } | { kind: "refused"; reason: PdfRefusal; pages?: number };

/** A PDF's text, or why there is none; `busy` when this replica reads as many PDFs as it may already. */
export type PdfReading = PdfTextResult | { kind: "busy" };

/** Reads a PDF's text within bounds of pages, text, time and memory (pdf/pdf-text-reader.ts). */
export interface PdfTextReading {
  /** `owner`: the account the PDF is read for; accounts take turns, so one cannot hold up another's. */
  read(bytes: Uint8Array, owner: string): Promise<PdfReading>;
}
