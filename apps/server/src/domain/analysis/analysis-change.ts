/**
 * One compare-and-set of a session's analysis (session-part-change.ts), the only way the analysis
 * service changes it.
 */

import type { OutboundEvent } from "../customer-webhooks/ports.js";
import type { SessionRecord } from "../sessions/session.js";
import { changeSessionPart, type SessionPartDeps } from "../sessions/session-part-change.js";
import type { StoredAnalysis } from "./stored-analysis.js";

export type AnalysisChangeDeps = SessionPartDeps;

export type AnalysisDecision =
  | { analysis: StoredAnalysis; events?: OutboundEvent[]; atMs?: number | undefined; cancel?: boolean }
  | undefined;

export function changeAnalysis(
  deps: AnalysisChangeDeps,
  now: () => Date,
  accountId: string,
  sessionId: string,
  decide: (analysis: StoredAnalysis, record: SessionRecord, now: Date) => AnalysisDecision,
): Promise<void> {
  return changeSessionPart(deps, now, "analysis", accountId, sessionId, (analysis, record, at) => {
    const next = decide(analysis, record, at);
    if (!next) return undefined;
    const { analysis: value, ...rest } = next;
    return { value, ...rest };
  });
}
