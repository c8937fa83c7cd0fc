/**
 * What a job process tells the worker's main process to count (worker-metrics.ts), over loopback HTTP
 * at DHS_WORKER_REPORT_URL, which the worker sets for the processes it starts. A job run without a worker
 * (a test) reports nothing; a report that cannot be delivered costs the count, never the session.
 */

import { VOICE_PROVIDERS, type VoiceProvider } from "@dhs/catalog";
import type { ReplyFailure } from "../conversation/guarded-reply.js";
import type { SayOutcome } from "../service/conversation-driver.js";
import { workerConfig } from "./worker-config.js";

export type WorkerEvent =
  | { event: "llm_reply_failed"; kind: ReplyFailure["kind"] }
  | { event: "stt_failed" }
  | { event: "tts_fallback"; provider: VoiceProvider }
  | { event: "say"; outcome: SayOutcome };

const SAY_OUTCOMES: readonly unknown[] = ["spoken", "interrupted", "refused"] satisfies SayOutcome[];

export function isWorkerEvent(value: unknown): value is WorkerEvent {
  if (typeof value !== "object" || value === null) return false;
  const { event, kind, outcome } = value as { event?: unknown; kind?: unknown; outcome?: unknown };
  if (event === "stt_failed") return true;
  if (event === "tts_fallback") return VOICE_PROVIDERS.includes((value as { provider?: unknown }).provider as VoiceProvider);
  if (event === "say") return SAY_OUTCOMES.includes(outcome);
  return event === "llm_reply_failed" && (kind === "error" || kind === "timeout");
}

export function reportToWorker(event: WorkerEvent, url = workerConfig().DHS_WORKER_REPORT_URL): Promise<void> {
  if (!url) return Promise.resolve();
  return fetch(`${url}/events`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(event),
    signal: AbortSignal.timeout(2000),
  }).then(
    () => undefined,
    () => undefined,
  );
}
