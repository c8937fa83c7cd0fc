/**
 * Runs in the worker thread document-splitter.ts keeps: splits documents into passages
 * (document-processing.ts), one job at a time, off the thread that answers requests.
 */
import { parentPort } from "node:worker_threads";
import { processDocument } from "../domain/knowledge/document-processing.js";
import type { SplitAnswer, SplitJob } from "./document-split-job.js";

parentPort?.on("message", (job: SplitJob) => {
  const answer: SplitAnswer = { id: job.id, outcome: processDocument(job.format, job.content) };
  parentPort?.postMessage(answer);
});
