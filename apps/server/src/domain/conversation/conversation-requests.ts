/**
 * What say and addSessionContext check beyond the contract: text people can be shown, the
 * Idempotency-Key's record (the same rules as createSession's, in one field beside the conversation) and
 * the answers of a full queue or a spent minute.
 */

import { shownTextProblem } from "@dhs/contract/shown-text";
import { AppError } from "../app-error.js";
import { fingerprint } from "../sessions/idempotency.js";
import type { QueueOutcome } from "./conversation-machine.js";

/** The text as given, or 422 at `text` when it cannot be said or shown. */
export function checkedText(text: string): string {
  const problem = shownTextProblem(text);
  if (problem !== undefined) throw new AppError("validation_failed", [{ location: "body", path: "text", message: problem }]);
  return text;
}

type Request = { kind: "say"; text: string; interrupt: boolean } | { kind: "context"; text: string; respond: boolean };

/**
 * What an Idempotency-Key's record (`<fingerprint>|<item id>`, or null) says of this request: its body is
 * fingerprinted with its operation and defaults filled in, so `{"text": "hi"}` and `{"text": "hi",
 * "interrupt": false}` are one request, and a say and a note never share a key.
 */
export function replayOf(
  request: Request,
  record: string | null,
): { fingerprint: string } & ({ kind: "new" } | { kind: "replay"; itemId: string } | { kind: "reused" }) {
  const print =
    request.kind === "say"
      ? fingerprint({ operation: "say", text: request.text, interrupt: request.interrupt })
      : fingerprint({ operation: "context", text: request.text, respond: request.respond });
  if (record === null) return { fingerprint: print, kind: "new" };
  const cut = record.lastIndexOf("|");
  if (record.slice(0, cut) !== print) return { fingerprint: print, kind: "reused" };
  return { fingerprint: print, kind: "replay", itemId: record.slice(cut + 1) };
}

export function queueRefusal(outcome: Exclude<QueueOutcome, { kind: "queued" }>): AppError {
  if (outcome.kind === "queue_full") return new AppError("conversation_queue_full", { limit: outcome.limit }, { retryAfterSeconds: 1 });
  if (outcome.kind === "notes_limit") return new AppError("conversation_notes_limit_reached", { limit: outcome.limit });
  return new AppError(
    "conversation_rate_limited",
    { characters_per_minute: outcome.limit, retry_after_s: outcome.retryAfterS },
    { retryAfterSeconds: outcome.retryAfterS },
  );
}
