/**
 * The analysis's part of the composition root: the sessions' analyses asked of the operator's LLM
 * (OPENAI_BASE_URL, the one the digital human's worker uses), or of none, which the log says at start.
 */
import type { Logger } from "pino";
import type { Config } from "./config.js";
import { AnalysisService, type AnalysisServiceDeps } from "./domain/analysis/analysis-service.js";
import { ChatCompletionsClient } from "./llm/chat-completions-client.js";

export type AnalysisOptions = Pick<AnalysisServiceDeps, "sessions" | "transcripts" | "memories" | "durations" | "eventRetainMs"> & {
  onEventsQueued: (sessionId: string) => void;
  logger: Logger;
  onSettled?: (status: "complete" | "failed", ms: number) => void;
};

export function analysisOf(config: Config["analysis"], options: AnalysisOptions): AnalysisService {
  const { logger } = options;
  if (!config.baseUrl) {
    logger.warn("no OPENAI_BASE_URL: sessions' analyses fail with llm_not_configured (test sessions' wait for setTestSessionAnalysis)");
  }
  return new AnalysisService({
    sessions: options.sessions,
    transcripts: options.transcripts,
    ...(options.memories ? { memories: options.memories } : {}),
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
      options.onSettled?.(outcome.status, ms);
    },
    onBackgroundError: (err, what) => logger.warn({ err: { message: err instanceof Error ? err.message : String(err) } }, `${what} failed`),
  });
}
