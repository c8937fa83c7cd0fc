/**
 * What the digital human reports of its conversation (reportConversation), pure. An utterance of `say`
 * is allowed to start once, for one job, and ends once; its own utterances and the participant's turns
 * are marked as they are reported, so each becomes one event however often it is posted.
 */
import type { ConversationReport } from "@dhs/contract";
import { shownTextProblem } from "@dhs/contract/shown-text";
import { AppError } from "../app-error.js";
import { type ConversationState, fields, iso, type StoredItem, type StoredSay } from "./conversation.js";
import { type Change, type ConversationEvent, sayEvent, settleSay } from "./conversation-machine.js";

/** A say's report also needs its item when it is no longer live (a retry after it ended). */
export interface ReportReads {
  /** The marks and items read for the reports (field -> value; null when absent). */
  field(name: string): string | null;
}

/** The fields a post's reports need read with the state. */
export function reportFields(reports: readonly ConversationReport[]): string[] {
  return reports.map((report) =>
    report.say ? fields.item(report.id) : fields.report(report.type === "participant_turn" ? "turn" : "utterance", report.id),
  );
}

/** What a report must carry beyond the contract's shape, checked before anything is stored. */
export function checkReports(reports: readonly ConversationReport[]): void {
  const problems: { location: string; path: string; message: string }[] = [];
  reports.forEach((report, i) => {
    const need = (field: keyof ConversationReport) => {
      if (report[field] === undefined)
        problems.push({ location: "body", path: `reports.${i}.${field}`, message: `is required with ${report.type}` });
    };
    if (report.type === "utterance_started") need("started_at");
    if (report.type === "utterance_ended") need("ended_at");
    if (report.type === "participant_turn") {
      need("started_at");
      need("ended_at");
      need("text");
      if (report.say) problems.push({ location: "body", path: `reports.${i}.say`, message: "is not allowed with participant_turn" });
    } else if (report.knowledge !== undefined) {
      problems.push({ location: "body", path: `reports.${i}.knowledge`, message: "is allowed with participant_turn only" });
    }
    for (const field of ["started_at", "ended_at"] as const) {
      const at = report[field];
      if (at !== undefined && !Number.isFinite(Date.parse(at)))
        problems.push({ location: "body", path: `reports.${i}.${field}`, message: "is not a time" });
    }
    const problem = report.text === undefined || report.text === "" ? undefined : shownTextProblem(report.text);
    if (problem !== undefined) problems.push({ location: "body", path: `reports.${i}.text`, message: problem });
  });
  if (problems.length > 0) throw new AppError("validation_failed", problems);
}

export interface ReportsApplied extends Change {
  accepted: boolean[];
  /** Marks to store (field -> value). */
  marks: Record<string, string>;
}

export function applyReports(
  sessionId: string,
  state: ConversationState,
  reports: readonly ConversationReport[],
  identity: string,
  reads: ReportReads,
  nowMs: number,
): ReportsApplied {
  let live = state.live;
  const items: StoredItem[] = [];
  const events: ConversationEvent[] = [];
  const marks: Record<string, string> = {};
  const accepted: boolean[] = [];
  const field = (name: string) => marks[name] ?? reads.field(name);
  for (const report of reports) {
    if (report.say) {
      const index = live.findIndex((item) => item.id === report.id && item.kind === "say");
      const current = index >= 0 ? (live[index] as StoredSay) : sayOutsideLive(items, report.id, field(fields.item(report.id)));
      const outcome = current ? sayReport(sessionId, current, report, identity, nowMs) : { accepted: false };
      accepted.push(outcome.accepted);
      if (!("say" in outcome) || !outcome.say) continue;
      items.push(outcome.say);
      if (outcome.event) events.push(outcome.event);
      live =
        outcome.say.status === "speaking"
          ? live.map((item, i) => (i === index ? (outcome.say as StoredSay) : item))
          : live.filter((_, i) => i !== index);
      continue;
    }
    accepted.push(true);
    const kind = report.type === "participant_turn" ? "turn" : "utterance";
    const mark = fields.report(kind, report.id);
    const seen = field(mark);
    if (report.type === "participant_turn") {
      if (seen !== null) continue;
      marks[mark] = "1";
      events.push({
        type: "session.participant_turn",
        data: {
          session_id: sessionId,
          turn_id: report.id,
          text: report.text ?? "",
          started_at: new Date(Date.parse(report.started_at as string)).toISOString(),
          ended_at: new Date(Date.parse(report.ended_at as string)).toISOString(),
          knowledge: (report.knowledge ?? []).map(({ document_id, score }) => ({ document_id, score })),
        },
      });
      continue;
    }
    // An utterance of the job's own: its mark holds what started (`s` and its text), then that it ended.
    const started = seen === null ? null : (JSON.parse(seen) as { state: "s" | "e"; text: string; at: number | null });
    if (report.type === "utterance_started") {
      if (started !== null) continue;
      const at = Date.parse(report.started_at as string);
      marks[mark] = JSON.stringify({ state: "s", text: report.text ?? "", at });
      events.push(ownEvent(sessionId, report.id, "session.utterance_started", report.text ?? "", at, null, "speaking"));
      continue;
    }
    if (started?.state === "e") continue;
    const text = started?.text ?? report.text ?? "";
    const endedAt = Date.parse(report.ended_at as string);
    marks[mark] = JSON.stringify({ state: "e", text: "", at: null });
    events.push(
      ownEvent(
        sessionId,
        report.id,
        "session.utterance_ended",
        text,
        started?.at ?? null,
        endedAt,
        report.interrupted ? "interrupted" : "spoken",
      ),
    );
  }
  return { state: { ...state, live }, items, events, accepted, marks };
}

/** A say no longer live: as this post changed it, or as stored. */
function sayOutsideLive(changed: readonly StoredItem[], id: string, json: string | null): StoredSay | undefined {
  const recent = changed.findLast((item) => item.id === id);
  const item = recent ?? (json === null ? undefined : (JSON.parse(json) as StoredItem));
  return item?.kind === "say" ? item : undefined;
}

/** A report about an utterance of `say`: started once by one job, ended once. */
function sayReport(
  sessionId: string,
  say: StoredSay,
  report: ConversationReport,
  identity: string,
  nowMs: number,
): { accepted: boolean; say?: StoredSay; event?: ConversationEvent } {
  if (report.type === "utterance_started") {
    if (say.status === "speaking" || say.status === "spoken") return { accepted: say.speaker === identity };
    if (say.status !== "queued" || say.expiresAtMs <= nowMs) return { accepted: false };
    const started: StoredSay = {
      ...say,
      status: "speaking",
      speaker: identity,
      startedAtMs: nowMs,
      deliveredAtMs: say.deliveredAtMs ?? nowMs,
    };
    return { accepted: true, say: started, event: sayEvent(sessionId, "session.utterance_started", started) };
  }
  if (report.type !== "utterance_ended") return { accepted: false };
  if (say.status !== "speaking") return { accepted: say.speaker === identity };
  if (say.speaker !== identity) return { accepted: false };
  // The job's clock says when it ended; never before the service saw it start.
  const endedAtMs = Math.max(say.startedAtMs ?? nowMs, Date.parse(report.ended_at as string));
  const { settled, event } = settleSay(sessionId, say, report.interrupted ? "interrupted" : "spoken", endedAtMs);
  return { accepted: true, say: settled, event };
}

function ownEvent(
  sessionId: string,
  id: string,
  type: "session.utterance_started" | "session.utterance_ended",
  text: string,
  startedAtMs: number | null,
  endedAtMs: number | null,
  status: "speaking" | "spoken" | "interrupted",
): ConversationEvent {
  return {
    type,
    data: {
      session_id: sessionId,
      utterance_id: id,
      source: "digital_human",
      text,
      status,
      started_at: iso(startedAtMs),
      ended_at: iso(endedAtMs),
    },
  };
}
