/**
 * The analysis operations of API keys (getSessionAnalysis, setTestSessionAnalysis): HTTP to
 * SessionAnalyses calls and back.
 */
import type { SessionAnalyses } from "../../domain/analysis/session-analyses.js";
import type { OperationHandlers } from "../operations.js";

export function analysisOperations(analyses: SessionAnalyses): Pick<OperationHandlers, "getSessionAnalysis" | "setTestSessionAnalysis"> {
  return {
    // GET /v1/sessions/{session_id}/analysis
    getSessionAnalysis: async ({ path }, principal) => ({ body: await analyses.read(principal, path.session_id) }),

    // POST /v1/test-helpers/sessions/{session_id}/analysis
    setTestSessionAnalysis: async ({ path, body }, principal) => ({ body: await analyses.setTest(principal, path.session_id, body) }),
  };
}
