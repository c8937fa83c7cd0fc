/**
 * The job metadata the service writes on each dispatch (README, "The digital human"). A dispatch made by
 * hand (the LiveKit CLI, a test) may have none: the job then greets whoever joins as "there".
 */
export interface JobInfo {
  sessionId: string | undefined;
  digitalHuman: { id: string; name: string };
  participantIdentity: string | undefined;
  maxDurationS: number | undefined;
}

export function parseJobMetadata(metadata: string, agentName: string): JobInfo {
  let raw: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(metadata || "{}");
    if (parsed && typeof parsed === "object") raw = parsed as Record<string, unknown>;
  } catch {
    // not the service's: defaults below
  }
  const human = (raw.digital_human ?? {}) as Record<string, unknown>;
  return {
    sessionId: typeof raw.session_id === "string" ? raw.session_id : undefined,
    digitalHuman: {
      id: typeof human.id === "string" ? human.id : agentName,
      name: typeof human.name === "string" && human.name !== "" ? human.name : agentName,
    },
    participantIdentity: typeof raw.participant_identity === "string" ? raw.participant_identity : undefined,
    maxDurationS: typeof raw.max_duration_s === "number" && raw.max_duration_s > 0 ? raw.max_duration_s : undefined,
  };
}
