/**
 * Analysis as a feature: the sessions' analyses asked of the operator's LLM (OPENAI_BASE_URL, the one the
 * digital human's worker uses), or of none, which the log says at start; their operations and their timer.
 */
import type { Logger } from "pino";
import { Histogram, type Registry } from "prom-client";
import type { Config } from "../config.js";
import { AnalysisService, type AnalysisServiceDeps } from "../domain/analysis/analysis-service.js";
import { SessionAnalyses } from "../domain/analysis/session-analyses.js";
import type { ParticipantMemories } from "../domain/memories/participant-memories.js";
import { analysisOperations } from "../http/routes/analysis.js";
import { ChatCompletionsClient } from "../llm/chat-completions-client.js";
import type { Feature } from "./feature.js";

export type AnalysisOptions = Pick<AnalysisServiceDeps, "sessions" | "transcripts" | "durations" | "eventRetainMs"> & {
  memories: ParticipantMemories;
  onEventsQueued: (sessionId: string) => void;
  logger: Logger;
  /** The process's metrics registry, where the feature's own are counted. */
  registry: Registry;
};

export function analysisOf(config: Config["analysis"], options: AnalysisOptions) {
  const { logger } = options;
  const settled = new Histogram({
    name: "dhs_analysis_duration_seconds",
    help: "Sessions' analyses that ended, by status (complete, failed), and how long their last attempt took, the LLM's time included.",
    labelNames: ["status"] as const,
    buckets: [0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [options.registry],
  });
  if (!config.baseUrl) {
    logger.warn("no OPENAI_BASE_URL: sessions' analyses fail with llm_not_configured (test sessions' wait for setTestSessionAnalysis)");
  }
  const analysis = new AnalysisService({
    sessions: options.sessions,
    transcripts: options.transcripts,
    memories: options.memories,
    llm: {
      model: config.baseUrl ? new ChatCompletionsClient({ baseUrl: config.baseUrl, apiKey: config.apiKey }) : undefined,
      defaultModel: config.model,
      timeoutMs: config.timeoutMs,
    },
    durations: options.durations,
    eventRetainMs: options.eventRetainMs,
    // The answer and one repair, each within the timeout, and a margin.
    leaseMs: 2 * config.timeoutMs + 30_000,
    maxAttempts: 5,
    retryMs: config.retryMs,
    maxRunning: 4,
    onEventsQueued: options.onEventsQueued,
    onSettled: (sessionId, outcome, ms) => {
      // The customer sees the code; the operator needs the reason (the LLM's own message) to act on it.
      if (outcome.status === "failed")
        logger.warn({ session_id: sessionId, code: outcome.error.code, reason: outcome.error.message }, "analysis failed");
      settled.observe({ status: outcome.status }, ms / 1000);
    },
    onBackgroundError: (err, what) => logger.warn({ err: { message: err instanceof Error ? err.message : String(err) } }, `${what} failed`),
  });
  return {
    analysis,
    feature: {
      name: "analysis",
      operations: analysisOperations(new SessionAnalyses(options.sessions, analysis, options.memories)),
      timers: { analysis: (accountId: string, sessionId: string) => analysis.onTimer(accountId, sessionId) },
      // Nothing to start (the analyses run on their timers, not on a loop of their own); stopping waits
      // for those in flight, beside the other features' background work.
      background: [{ start: () => undefined, stop: () => analysis.stop() }],
    } satisfies Feature,
  };
}
