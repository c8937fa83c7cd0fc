/**
 * The knowledge's part of the composition root: the documents' service and the processor that turns
 * them into passages, on the store createStores chose (PostgreSQL, memory, or none on Redis without
 * DATABASE_URL, which the log says at start: every document operation then answers 501).
 */
import type { Logger } from "pino";
import type { WebhookStore } from "./domain/customer-webhooks/ports.js";
import type { DigitalHumanService } from "./domain/digital-humans/digital-human-service.js";
import { DocumentService } from "./domain/knowledge/document-service.js";
import type { KnowledgeStore } from "./domain/knowledge/ports.js";
import { PdfTextReader } from "./pdf/pdf-text-reader.js";
import { DocumentProcessor } from "./workers/document-processor.js";
import { DocumentSplitter } from "./workers/document-splitter.js";

/** The most documents an account may have in each mode (the contract's 1 000). */
export const ACCOUNT_MAX_DOCUMENTS = 1000;

export interface KnowledgeParts {
  documents: DocumentService;
  processor: DocumentProcessor;
  /** Ends the splitting thread (after the processor stopped). */
  close(): Promise<void>;
}

export interface KnowledgeOptions {
  store: KnowledgeStore;
  digitalHumans: DigitalHumanService;
  webhooks: WebhookStore;
  eventRetainMs: number;
  idempotencyKeyTtlMs: number;
  intervalMs: number;
  logger: Logger;
  onEventQueued: (endpointId: string) => void;
  observe?: (seconds: number, status: "ready" | "failed") => void;
}

export function knowledgeOf(options: KnowledgeOptions): KnowledgeParts {
  const { store, logger } = options;
  const splitter = new DocumentSplitter({ timeoutMs: 30_000, heapMb: 512 });
  const processor = new DocumentProcessor({
    store,
    split: (format, content) => splitter.split(format, content),
    events: { webhooks: options.webhooks, eventRetainMs: options.eventRetainMs, onQueued: options.onEventQueued },
    logger,
    intervalMs: options.intervalMs,
    // A 10 MiB file's text takes a few seconds at most; a claim lapses only when its replica is gone.
    leaseMs: 60_000,
    ...(options.observe ? { observe: options.observe } : {}),
  });
  const documents = new DocumentService({
    store,
    pdf: new PdfTextReader(),
    limit: () => ACCOUNT_MAX_DOCUMENTS,
    idempotencyKeyTtlMs: options.idempotencyKeyTtlMs,
    documentsOf: (principal, id) => options.digitalHumans.knowledgeOf(principal, id),
    onCreated: () => processor.nudge(),
  });
  return { documents, processor, close: () => splitter.close() };
}
