/**
 * Reads a PDF's text in a worker thread of its own (pdf-text-worker.ts), within bounds: its pages, its
 * text, the time it may take and the memory its thread may hold. A PDF beyond any of them is refused
 * rather than read in part; the thread is terminated, so whatever a hostile file makes the parser do
 * stops there. A few PDFs are read at once per replica, the next ones wait their turn, and beyond a
 * short queue the upload is told to come back (`busy`): uploads cannot pile up threads.
 */
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { PdfReading, PdfTextReading, PdfTextResult } from "../domain/knowledge/ports.js";
import type { PdfTextJob } from "./pdf-text-job.js";

export interface PdfTextReaderOptions {
  maxPages: number;
  maxCharacters: number;
  /** How long one PDF may take once its thread starts (ms). */
  timeoutMs: number;
  /** The worker thread's heap, in MiB. */
  heapMb: number;
  /** PDFs read at once on this replica. */
  concurrency: number;
  /** PDFs waiting for a turn before the next is answered `busy`. */
  maxWaiting: number;
}

export const PDF_LIMITS: PdfTextReaderOptions = {
  maxPages: 500,
  maxCharacters: 10 * 1024 * 1024,
  timeoutMs: 20_000,
  heapMb: 256,
  concurrency: 2,
  maxWaiting: 8,
};

// Built, the worker is JavaScript. From the sources (tests, `pnpm dev`) it is TypeScript: the thread
// registers tsx's loader, as the process it runs in has, then imports it; PDF.js first, as it is, since
// tsx would spend a second and more turning its megabytes of JavaScript into the same.
const FROM_SOURCE = fileURLToPath(import.meta.url).endsWith(".ts");
const WORKER = new URL(FROM_SOURCE ? "./pdf-text-worker.ts" : "./pdf-text-worker.js", import.meta.url);
const THROUGH_TSX = FROM_SOURCE
  ? `Promise.all(${JSON.stringify(["pdfjs-dist/legacy/build/pdf.mjs", "pdfjs-dist/legacy/build/pdf.worker.mjs"].map((m) => import.meta.resolve(m)))}.map((m) => import(m)))
      .then(() => import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}))
      .then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER.href)}); })`
  : "";

export class PdfTextReader implements PdfTextReading {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly options: PdfTextReaderOptions = PDF_LIMITS) {}

  async read(bytes: Uint8Array): Promise<PdfReading> {
    if (this.running >= this.options.concurrency) {
      if (this.waiting.length >= this.options.maxWaiting) return { kind: "busy" };
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.running += 1;
    try {
      return await this.inWorker(bytes);
    } finally {
      this.running -= 1;
      this.waiting.shift()?.();
    }
  }

  private inWorker(bytes: Uint8Array): Promise<PdfTextResult> {
    const { maxPages, maxCharacters, timeoutMs, heapMb } = this.options;
    const job: PdfTextJob = { bytes, maxPages, maxCharacters };
    return new Promise((resolve) => {
      const worker = new Worker(FROM_SOURCE ? THROUGH_TSX : WORKER, {
        eval: FROM_SOURCE,
        workerData: job,
        resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
        stdout: true,
        stderr: true,
      });
      let settled = false;
      const settle = (result: PdfTextResult): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        void worker.terminate();
        resolve(result);
      };
      const timer = setTimeout(() => settle({ kind: "refused", reason: "limits" }), timeoutMs);
      worker.on("message", (result: PdfTextResult) => settle(result));
      // Out of memory, or a crash in the parser: the file is beyond what is read.
      worker.on("error", () => settle({ kind: "refused", reason: "limits" }));
      worker.on("exit", () => settle({ kind: "refused", reason: "broken" }));
    });
  }
}
