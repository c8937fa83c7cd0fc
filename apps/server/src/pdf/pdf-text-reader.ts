/**
 * Reads a PDF's text in a process of its own (pdf-text-process.ts), within bounds: its pages, its text,
 * the time it may take, and the memory the process may hold, set by the operating system (RLIMIT_DATA,
 * which the process sets on itself before it reads: memory-bound.ts) so that what a parser inflates
 * counts too, not only its heap. A PDF beyond any of them is refused rather than read in part; the
 * process is killed, so whatever a hostile file makes the parser do stops there. A few PDFs are read at
 * once per replica, the accounts taking turns (fair-slots.ts); beyond a short queue of its own an account
 * is told to come back (`busy`).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { PDF_MAX_CHARACTERS } from "../domain/knowledge/document-upload.js";
import type { PdfReading, PdfTextReading, PdfTextResult } from "../domain/knowledge/ports.js";
import { FairSlots } from "./fair-slots.js";
import type { PdfTextJob } from "./pdf-text-job.js";

export interface PdfTextReaderOptions {
  maxPages: number;
  maxCharacters: number;
  /** How long one PDF may take once its process starts (ms). */
  timeoutMs: number;
  /** The process's heap, in MiB. */
  heapMb: number;
  /** The process's data (heap, buffers, what it inflates) beyond what it holds once started, in MiB. */
  memoryMb: number;
  /** The share of memoryMb past which a reading's resident peak is refused. */
  peakShare: number;
  /** PDFs read at once on this replica. */
  concurrency: number;
  /** One account's PDFs waiting for a turn before its next is answered `busy`. */
  maxWaiting: number;
}

export const PDF_LIMITS: PdfTextReaderOptions = {
  maxPages: 500,
  // What a document's passages can hold: 2 MiB of short paragraphs is near the 5 000 passages a
  // document may make (1 MiB made 2 661), so a PDF of more text is refused as it is read.
  maxCharacters: PDF_MAX_CHARACTERS,
  timeoutMs: 20_000,
  heapMb: 256,
  memoryMb: 512,
  // Measured (resident peak, from the sources): a one-page PDF 119 MiB, 500 dense pages 181 MiB, a content
  // stream inflating to 64 MiB 259 MiB, one of 256 MiB under the 512 MiB bound 431-442 MiB (its allocation
  // failed); 80% of 512 MiB is 410.
  peakShare: 0.8,
  concurrency: 2,
  maxWaiting: 4,
};

// Built, the process runs JavaScript. From the sources (tests, `pnpm dev`) it is TypeScript: the process
// registers tsx's loader, as the one it is started from has, then imports it; PDF.js first, as it is,
// since tsx would spend a second and more turning its megabytes of JavaScript into the same.
const FROM_SOURCE = fileURLToPath(import.meta.url).endsWith(".ts");
const NODE_ARGS = FROM_SOURCE
  ? throughTsx(new URL("./pdf-text-process.ts", import.meta.url))
  : [fileURLToPath(new URL("./pdf-text-process.js", import.meta.url))];

function throughTsx(entry: URL): string[] {
  const pdfjs = ["pdfjs-dist/legacy/build/pdf.mjs", "pdfjs-dist/legacy/build/pdf.worker.mjs"].map((m) => import.meta.resolve(m));
  const code = `Promise.all(${JSON.stringify(pdfjs)}.map((m) => import(m)))
    .then(() => import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}))
    .then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); })`;
  return ["--input-type=module", "--eval", code];
}

export class PdfTextReader implements PdfTextReading {
  private readonly slots: FairSlots;

  constructor(private readonly options: PdfTextReaderOptions = PDF_LIMITS) {
    this.slots = new FairSlots(options.concurrency, options.maxWaiting);
  }

  async read(bytes: Uint8Array, owner: string): Promise<PdfReading> {
    const turn = this.slots.acquire(owner);
    if (!turn) return { kind: "busy" };
    const release = await turn;
    try {
      return await this.inProcess(bytes);
    } finally {
      release();
    }
  }

  private inProcess(bytes: Uint8Array): Promise<PdfTextResult> {
    const { maxPages, maxCharacters, timeoutMs, heapMb, memoryMb, peakShare } = this.options;
    const job: PdfTextJob = { bytes, maxPages, maxCharacters, memoryMb, peakShare };
    return new Promise((resolve) => {
      const child: ChildProcess = spawn(
        process.execPath,
        [`--max-old-space-size=${heapMb}`, ...NODE_ARGS],
        // Nothing of the service's environment (its secrets) is the parser's business.
        { stdio: ["ignore", "ignore", "ignore", "ipc"], serialization: "advanced", env: { PATH: process.env.PATH ?? "" } },
      );
      let settled = false;
      const settle = (result: PdfTextResult): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
        resolve(result);
      };
      const timer = setTimeout(() => settle({ kind: "refused", reason: "limits" }), timeoutMs);
      // The answer, then the process is killed: nothing of it is wanted once it answered.
      child.on("message", (result: PdfTextResult) => settle(result));
      // Out of memory (an allocation the parser could not survive), or a crash in it: beyond what is read.
      child.on("exit", (code) => settle({ kind: "refused", reason: code === 0 ? "broken" : "limits" }));
      child.on("error", () => settle({ kind: "refused", reason: "limits" }));
      child.send(job, (error) => {
        if (error) settle({ kind: "refused", reason: "limits" });
      });
    });
  }
}
