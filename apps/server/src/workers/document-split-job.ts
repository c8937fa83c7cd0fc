/** What document-splitter.ts and its thread (document-split-thread.ts) say to each other. */
import type { DocumentFormat } from "@dhs/contract";
import type { ProcessingOutcome } from "../domain/knowledge/ports.js";

export interface SplitJob {
  id: number;
  format: DocumentFormat;
  content: string;
}

export interface SplitAnswer {
  id: number;
  outcome: ProcessingOutcome;
}
