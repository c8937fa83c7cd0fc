/**
 * The account's documents (contract guide, "Knowledge"): added once per Idempotency-Key, read, listed,
 * deleted, and searched the way a digital human's turn searches them. They belong to the mode of the key
 * that made them (the principal's data owner), so another account's, or the other mode's, is not found,
 * exactly like an unknown id. Processing happens later, in DocumentProcessor; here a document is only
 * checked and stored `processing`.
 */
import { randomBytes } from "node:crypto";
import type { Document, DocumentCreate, DocumentDeleted, DocumentUpload, KnowledgeSearch, KnowledgeSearchResults } from "@dhs/contract";
import type { Principal } from "../accounts/api-keys.js";
import { AppError } from "../app-error.js";
import type { ListPosition } from "../list-order.js";
import { fingerprint } from "../sessions/idempotency.js";
import { type FileDocument, fileDocument, MAX_CONTENT_BYTES, type UploadedFile } from "./document-upload.js";
import { DEFAULT_DOCUMENT_LANGUAGE, textSearchConfiguration } from "./languages.js";
import type { DocumentRecord, KnowledgeStore, Passage, PdfTextReading } from "./ports.js";

/** The most UTF-8 bytes a document's content may hold (the contract's 1 MiB). */
/** The most passages a digital human is given for a turn, and searchKnowledge's default. */
export const PASSAGES_PER_TURN = 3;
/** About how much text a turn is given, so a few long passages do not crowd out the conversation. */
export const PASSAGE_CHARACTERS_PER_TURN = 1500;

/** C0 controls but tab, line feed and carriage return; DEL; C1 controls (a loop: a 1 MiB text is read once). */
function hasControl(text: string, allowed: ReadonlySet<number> = LINE_CONTROLS): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code < 0x20 && !allowed.has(code)) || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}
const LINE_CONTROLS: ReadonlySet<number> = new Set([0x09, 0x0a, 0x0d]);

/** What createDocument was sent: JSON with the content, or a file with the fields beside it. */
export type DocumentInput = { json: DocumentCreate } | { fields: Omit<DocumentUpload, "file">; file: UploadedFile };

export interface DocumentServiceDeps {
  store: KnowledgeStore;
  /** Reads an uploaded PDF's text. */
  pdf: PdfTextReading;
  /** The most documents an account may have in each mode. */
  limit: () => number;
  idempotencyKeyTtlMs: number;
  /** The digital human's documents, for searchKnowledge: undefined when it is not one of the account's own. */
  documentsOf: (principal: Principal, digitalHumanId: string) => Promise<readonly string[] | undefined>;
  /** A document was stored: processing may start now rather than at the next pass. */
  onCreated?: () => void;
  now?: () => Date;
}

export class DocumentService {
  private readonly now: () => Date;

  constructor(private readonly deps: DocumentServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async create(principal: Principal, idempotencyKey: string, input: DocumentInput): Promise<{ view: Document; replayed: boolean }> {
    const store = this.deps.store;
    const document =
      "json" in input ? jsonDocument(input.json) : await fileDocument(input.fields, input.file, this.deps.pdf, principal.account);
    checkDocument(document, "json" in input ? "content" : "file");
    const at = this.now().toISOString();
    const record: DocumentRecord = {
      id: `doc_${randomBytes(12).toString("hex")}`,
      owner: principal.accountId,
      name: document.name,
      format: document.format,
      language: document.language ?? DEFAULT_DOCUMENT_LANGUAGE,
      status: "processing",
      error: null,
      size_bytes: document.sizeBytes,
      chunks: 0,
      created_at: at,
      updated_at: at,
    };
    const max = this.deps.limit();
    const outcome = await store.createDocument({
      record,
      content: document.content,
      idempotencyKey,
      fingerprint: fingerprint(document.fingerprintOf),
      keyTtlMs: this.deps.idempotencyKeyTtlMs,
      limit: max,
    });
    switch (outcome.kind) {
      case "created":
        this.deps.onCreated?.();
        return { view: documentView(outcome.record), replayed: false };
      case "limit":
        throw new AppError("document_limit_reached", { limit: max });
      case "reused":
        throw new AppError("idempotency_key_reused", "This Idempotency-Key was already used with a different request body.");
      case "replay": {
        const made = await store.getDocument(principal.accountId, outcome.id);
        if (!made) throw new AppError("not_found", `The document this Idempotency-Key added, ${outcome.id}, was deleted since.`);
        return { view: documentView(made), replayed: true };
      }
    }
  }

  async get(principal: Principal, id: string): Promise<Document> {
    const record = await this.deps.store.getDocument(principal.accountId, id);
    if (!record) throw notFound(id);
    return documentView(record);
  }

  async list(
    principal: Principal,
    query: { limit: number; after?: ListPosition | undefined },
  ): Promise<{ items: Document[]; next: ListPosition | null }> {
    const records = await this.deps.store.listDocuments(principal.accountId, query);
    const page = records.slice(0, query.limit);
    const last = page.at(-1);
    const next = records.length > query.limit && last ? { createdAtMs: Date.parse(last.created_at), id: last.id } : null;
    return { items: page.map(documentView), next };
  }

  async delete(principal: Principal, id: string): Promise<DocumentDeleted> {
    if (!(await this.deps.store.deleteDocument(principal.accountId, id))) throw notFound(id);
    return { id, deleted: true };
  }

  /** What a turn with this text would give the digital human: its ready documents' best passages. */
  async search(principal: Principal, digitalHumanId: string, body: KnowledgeSearch): Promise<KnowledgeSearchResults> {
    const store = this.deps.store;
    const documentIds = await this.deps.documentsOf(principal, digitalHumanId);
    if (documentIds === undefined) throw new AppError("not_found", `No digital human ${digitalHumanId}.`);
    const limit = body.limit ?? PASSAGES_PER_TURN;
    if (documentIds.length === 0) return { results: [] };
    const passages = await store.search({ owner: principal.accountId, documentIds, text: body.query, limit });
    return turnResults(passages, limit);
  }
}

/** A JSON create's document, once its content is within the contract's 1 MiB (in bytes, which a schema cannot say). */
function jsonDocument(body: DocumentCreate): FileDocument {
  const bytes = Buffer.byteLength(body.content, "utf8");
  if (bytes > MAX_CONTENT_BYTES)
    throw new AppError("payload_too_large", `The document's content is ${bytes} bytes of UTF-8; at most ${MAX_CONTENT_BYTES} are taken.`);
  return { name: body.name, format: body.format, language: body.language, content: body.content, sizeBytes: bytes, fingerprintOf: body };
}

/** The checks a document's text, name and language take, whether it came as JSON or as a file (`textPath`). */
function checkDocument(document: FileDocument, textPath: "content" | "file"): void {
  const issues: { location: "body"; path: string; message: string }[] = [];
  if (document.content.trim() === "")
    issues.push({ location: "body", path: textPath, message: "must hold some text, not only white space" });
  if (hasControl(document.content))
    issues.push({
      location: "body",
      path: textPath,
      message: "must not hold control characters other than tab, line feed and carriage return",
    });
  if (hasControl(document.name, new Set())) issues.push({ location: "body", path: "name", message: "must not hold control characters" });
  if (document.language !== undefined && textSearchConfiguration(document.language) === undefined)
    issues.push({
      location: "body",
      path: "language",
      message: "is not a language documents can be indexed in (see Knowledge in the guide)",
    });
  if (issues.length > 0) throw new AppError("validation_failed", issues);
}

/**
 * The best passages while they fit the turn's characters (the first always does), the budget growing
 * with a search's larger limit: what a turn is given is a few passages, not a document.
 */
function withinBudget(passages: readonly Passage[], limit: number): Passage[] {
  const budget = PASSAGE_CHARACTERS_PER_TURN * Math.max(1, limit / PASSAGES_PER_TURN);
  const kept: Passage[] = [];
  let used = 0;
  for (const passage of passages.slice(0, limit)) {
    if (kept.length > 0 && used + passage.text.length > budget) break;
    kept.push(passage);
    used += passage.text.length;
  }
  return kept;
}

export function documentView(record: DocumentRecord): Document {
  const { owner: _owner, ...shown } = record;
  return shown;
}

/** What a search answers, searchKnowledge's and the job's alike: the best passages within the turn's budget. */
export function turnResults(passages: readonly Passage[], limit: number): KnowledgeSearchResults {
  return {
    results: withinBudget(passages, limit).map((p) => ({
      document_id: p.documentId,
      document_name: p.documentName,
      text: p.text,
      score: p.score,
    })),
  };
}

function notFound(id: string): AppError {
  return new AppError("not_found", `No document ${id}.`);
}
