/**
 * Splits documents into passages in a worker thread, so that a large one (a megabyte of text takes
 * 130-450 ms) never holds up the requests this replica answers. One thread, started when the first
 * document comes and kept; one document at a time, each within a time bound: a thread that overruns it,
 * or fails, is terminated and the document `failed` with its reason, and the next one starts a new thread.
 */
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { DocumentFormat } from "@dhs/contract";
import type { ProcessingOutcome } from "../domain/knowledge/ports.js";
import type { SplitAnswer, SplitJob } from "./document-split-job.js";

export interface DocumentSplitterOptions {
  /** How long one document may take (ms). */
  timeoutMs: number;
  /** The thread's heap (MiB). */
  heapMb: number;
}

// Built, the thread runs JavaScript; from the sources (tests, `pnpm dev`) it registers tsx's loader, as
// the process it runs in has, then imports the TypeScript.
const FROM_SOURCE = fileURLToPath(import.meta.url).endsWith(".ts");

function thread(heapMb: number): Worker {
  const resourceLimits = { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 };
  if (!FROM_SOURCE) return new Worker(new URL("./document-split-thread.js", import.meta.url), { resourceLimits });
  const entry = new URL("./document-split-thread.ts", import.meta.url).href;
  const code = `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(code, { eval: true, resourceLimits });
}

export class DocumentSplitter {
  private worker: Worker | undefined;
  private next = 1;
  /** One document at a time: each waits for the one before it. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: DocumentSplitterOptions) {}

  split(format: DocumentFormat, content: string): Promise<ProcessingOutcome> {
    const run = this.queue.then(() => this.run({ id: this.next++, format, content }));
    // The chain only orders the runs: each caller has this run's rejection, and the next run must not inherit it.
    this.queue = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private run(job: SplitJob): Promise<ProcessingOutcome> {
    this.worker ??= thread(this.options.heapMb);
    const worker = this.worker;
    return new Promise((resolve) => {
      const done = (outcome: ProcessingOutcome, keep: boolean) => {
        clearTimeout(timer);
        worker.off("message", answered);
        worker.off("error", failed);
        worker.off("exit", failed);
        if (!keep) {
          if (this.worker === worker) this.worker = undefined;
          void worker.terminate();
        }
        resolve(outcome);
      };
      const answered = (answer: SplitAnswer) => {
        if (answer.id === job.id) done(answer.outcome, true);
      };
      // Out of memory, or a crash: the document is beyond what is split.
      const failed = () =>
        done({ kind: "failed", error: "The document could not be split into passages within the memory it may take." }, false);
      const seconds = Math.round(this.options.timeoutMs / 1000);
      const timer = setTimeout(
        () =>
          done(
            {
              kind: "failed",
              error: `The document could not be split into passages within ${seconds} s; split it into smaller documents.`,
            },
            false,
          ),
        this.options.timeoutMs,
      );
      worker.on("message", answered);
      worker.on("error", failed);
      worker.on("exit", failed);
      worker.postMessage(job);
    });
  }
}
