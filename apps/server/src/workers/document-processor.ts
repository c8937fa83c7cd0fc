/**
 * Turns `processing` documents into passages: each pass claims a few (a lease, so a replica that dies
 * mid-document leaves it to another once the lease lapses), splits them, stores the outcome if the
 * claim is still theirs, and queues the document's event. A document that cannot be processed is
 * `failed` with its reason (document-processing.ts never throws); one this replica fails on for
 * another reason (the database down) stays claimed until its lease lapses and is tried again: never
 * stuck in `processing`, never lost.
 */

import type { DocumentFormat } from "@dhs/contract";
import type { Logger } from "pino";
import { type DocumentEventDeps, queueDocumentEvent } from "../domain/knowledge/document-events.js";
import type { KnowledgeStore, ProcessingOutcome } from "../domain/knowledge/ports.js";
import { RepeatingPass } from "./repeating-pass.js";

export interface DocumentProcessorOptions {
  store: KnowledgeStore;
  /** Splits a document into passages (document-processing.ts), off the thread that answers requests. */
  split: (format: DocumentFormat, content: string) => Promise<ProcessingOutcome>;
  events: DocumentEventDeps;
  logger: Logger;
  /** How often to look for documents (ms). */
  intervalMs: number;
  /** How long a claim holds (ms): longer than a document of 1 MiB takes, so only a dead replica's lapses. */
  leaseMs: number;
  /** Documents claimed per pass. */
  batch?: number;
  /** Called with each document's processing time (s) and outcome. */
  observe?: (seconds: number, status: "ready" | "failed") => void;
}

export class DocumentProcessor {
  private readonly pass: RepeatingPass;
  private wake: Promise<void> | undefined;

  constructor(private readonly options: DocumentProcessorOptions) {
    this.pass = new RepeatingPass(
      () => this.runOnce(),
      options.intervalMs,
      (error) => options.logger.warn({ err: error }, "document processing pass failed; retrying at the next pass"),
    );
  }

  start(): void {
    this.pass.start();
  }

  /** A document was just stored: process it now rather than at the next pass (one wake-up at a time). */
  nudge(): void {
    this.wake ??= this.runOnce()
      .then(() => undefined)
      .catch((error: unknown) => this.options.logger.warn({ err: error }, "document processing failed; retrying at the next pass"))
      .finally(() => {
        this.wake = undefined;
      });
  }

  async stop(): Promise<void> {
    await Promise.all([this.pass.stop(), this.wake]);
  }

  /** One pass: claims and processes what is due; answers how many documents it finished. */
  async runOnce(now: number = Date.now()): Promise<number> {
    const { store, leaseMs, batch = 4 } = this.options;
    const claimed = await store.claimProcessing(now, leaseMs, batch);
    let finished = 0;
    for (const { record, content, claim } of claimed) {
      const started = performance.now();
      const outcome = await this.options.split(record.format, content);
      const at = new Date().toISOString();
      const result =
        outcome.kind === "ready"
          ? { ...record, status: "ready" as const, chunks: outcome.chunks.length, updated_at: at }
          : { ...record, status: "failed" as const, error: outcome.error, updated_at: at };
      // The event is queued first: a replica that dies before the finish leaves the document to another,
      // which queues the same event (same id) again; the other way round, the event could be lost.
      await queueDocumentEvent(this.options.events, result);
      if (!(await store.finishProcessing({ owner: record.owner, id: record.id, claim }, outcome, at))) continue;
      finished += 1;
      this.options.observe?.((performance.now() - started) / 1000, outcome.kind);
      if (outcome.kind === "failed")
        this.options.logger.info({ document_id: record.id, account_id: record.owner, reason: outcome.error }, "document failed");
    }
    return finished;
  }
}
