/**
 * The job metadata the service writes on each dispatch: the contract's DigitalHumanJob (its guide, "Your
 * own digital human"). A dispatch made by hand (the LiveKit CLI, a test) may have none, or only part of
 * it: each field is kept only when it has the contract's type, and what is missing has a default (the
 * job then greets whoever joins as "there").
 */
import type { DigitalHumanJob } from "@dhs/contract";

export interface JobInfo {
  sessionId: string | undefined;
  digitalHuman: { id: string; name: string };
  participantIdentity: string | undefined;
  maxDurationS: number | undefined;
}

/**
 * Every field of the contract's type, each possibly absent (objects field by field). Every field, even
 * an optional one, must be read: a field added to the contract does not compile until readJob reads it.
 */
type Read<T> = {
  [K in keyof T]-?: NonNullable<T[K]> extends readonly unknown[]
    ? T[K] | undefined
    : NonNullable<T[K]> extends object
      ? Read<NonNullable<T[K]>>
      : NonNullable<T[K]> | undefined;
};

const text = (value: unknown) => (typeof value === "string" ? value : undefined);
const fieldsOf = (value: unknown): Record<string, unknown> =>
  value && typeof value === "object" ? (value as Record<string, unknown>) : {};

function readJob(metadata: string): Read<DigitalHumanJob> {
  let raw: Record<string, unknown> = {};
  try {
    raw = fieldsOf(JSON.parse(metadata || "{}"));
  } catch {
    // not the service's: every field absent
  }
  const human = fieldsOf(raw.digital_human);
  return {
    session_id: text(raw.session_id),
    account_id: text(raw.account_id),
    digital_human: { id: text(human.id), name: text(human.name) || undefined },
    participant_identity: text(raw.participant_identity),
    max_duration_s: typeof raw.max_duration_s === "number" && raw.max_duration_s > 0 ? raw.max_duration_s : undefined,
  };
}

export function parseJobMetadata(metadata: string, agentName: string): JobInfo {
  const job = readJob(metadata);
  return {
    sessionId: job.session_id,
    digitalHuman: { id: job.digital_human.id ?? agentName, name: job.digital_human.name ?? agentName },
    participantIdentity: job.participant_identity,
    maxDurationS: job.max_duration_s,
  };
}
