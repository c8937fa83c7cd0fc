/**
 * The job's upload of its session's recording (issue 53) to the target the service gave it: a PUT of the
 * file with the target's headers, tried again with growing waits while the store cannot take it (no
 * answer, 5xx, 429), with a fresh target when the one held was refused (403: it expired while the
 * session ran, or the store's clock disagrees), and given up after a bounded number of tries with the
 * reason, so the service can mark the recording `failed` rather than leave it `processing` forever.
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { Readable } from "node:stream";

/** Where to PUT the file: the service's UploadTarget as the job receives it. */
export interface RecordingTarget {
  url: string;
  headers: Record<string, string>;
}

export interface UploadOptions {
  /** A new target for the same recording (the one held was refused). */
  renew: () => Promise<RecordingTarget>;
  /** Tries in all (4 by default). */
  attempts?: number;
  /** The wait after the first failed try; each next one is three times longer (1 s by default). */
  firstWaitMs?: number;
  /** Each try's whole time (60 s by default). */
  timeoutMs?: number;
  signal?: AbortSignal;
  sleep?: (ms: number) => Promise<void>;
}

export type UploadResult = { ok: true; sizeBytes: number; attempts: number } | { ok: false; reason: string; attempts: number };

export async function uploadRecording(file: string, first: RecordingTarget, options: UploadOptions): Promise<UploadResult> {
  const attempts = options.attempts ?? 4;
  const sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  const { size } = await stat(file);
  let target = first;
  let reason = "";
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const outcome = await put(file, size, target, options);
    if (outcome.ok) return { ok: true, sizeBytes: size, attempts: attempt };
    reason = outcome.reason;
    if (outcome.final || attempt === attempts || options.signal?.aborted) return { ok: false, reason, attempts: attempt };
    if (outcome.renew) {
      try {
        target = await options.renew();
      } catch (error) {
        reason = `${reason}; no new upload target: ${messageOf(error)}`;
      }
    }
    await sleep((options.firstWaitMs ?? 1_000) * 3 ** (attempt - 1));
  }
  return { ok: false, reason, attempts };
}

type PutOutcome = { ok: true } | { ok: false; reason: string; renew: boolean; final: boolean };

async function put(file: string, size: number, target: RecordingTarget, options: UploadOptions): Promise<PutOutcome> {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 60_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    const answer = await fetch(target.url, {
      method: "PUT",
      headers: { ...target.headers, "content-length": String(size) },
      body: Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>,
      duplex: "half",
      signal,
    } as RequestInit);
    await answer.body?.cancel();
    if (answer.ok) return { ok: true };
    const reason = `the store answered ${answer.status}`;
    if (answer.status === 403) return { ok: false, reason, renew: true, final: false };
    // 413 and the like will not change on another try.
    // 408: the store gave up on a slow upload, which another try may finish.
    const retryable = answer.status === 408 || answer.status === 429 || answer.status >= 500;
    return { ok: false, reason, renew: false, final: !retryable };
  } catch (error) {
    const reason = timeout.aborted ? "the store took longer than the upload's timeout" : `the store did not answer: ${messageOf(error)}`;
    return { ok: false, reason, renew: false, final: false };
  }
}

function messageOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `${error instanceof Error ? error.message : String(error)}${cause}`;
}
