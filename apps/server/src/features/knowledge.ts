/**
 * Knowledge as a feature: the documents' service and the processor that turns them into passages, on the
 * store createStores chose (PostgreSQL, or memory in development); the API keys' document operations and
 * the digital human's search of its session's documents.
 */
import type { Logger } from "pino";
import type { WebhookStore } from "../domain/customer-webhooks/ports.js";
import type { DigitalHumanService } from "../domain/digital-humans/digital-human-service.js";
import { DocumentService } from "../domain/knowledge/document-service.js";
import type { KnowledgeStore } from "../domain/knowledge/ports.js";
import { SessionKnowledge } from "../domain/knowledge/session-knowledge.js";
import type { SessionStore } from "../domain/sessions/ports.js";
import type { Cursors } from "../http/cursor.js";
import { documentOperations, knowledgeJobOperations } from "../http/routes/documents.js";
import { PdfTextReader } from "../pdf/pdf-text-reader.js";
import { DocumentProcessor } from "../workers/document-processor.js";
import { DocumentSplitter } from "../workers/document-splitter.js";
import type { Feature } from "./feature.js";

/** The most documents an account may have in each mode (the contract's 1 000). */
export const ACCOUNT_MAX_DOCUMENTS = 1000;

export interface KnowledgeOptions {
  store: KnowledgeStore;
  sessions: SessionStore;
  cursors: Cursors;
  digitalHumans: DigitalHumanService;
  webhooks: WebhookStore;
  eventRetainMs: number;
  idempotencyKeyTtlMs: number;
  intervalMs: number;
  logger: Logger;
  onEventQueued: (endpointId: string) => void;
  observe?: (seconds: number, status: "ready" | "failed") => void;
}

export function knowledgeOf(options: KnowledgeOptions) {
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
  return {
    processor,
    feature: {
      name: "knowledge",
      operations: documentOperations(documents, options.cursors),
      digitalHumanOperations: knowledgeJobOperations(new SessionKnowledge({ sessions: options.sessions, index: store })),
      background: [processor],
      // The splitting thread ends once the processor stopped.
      close: () => splitter.close(),
    } satisfies Feature,
  };
}
