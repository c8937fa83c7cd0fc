/**
 * The job metadata the service writes on each dispatch: the contract's DigitalHumanJob (its guide, "Your
 * own digital human"). A dispatch made by hand (the LiveKit CLI, a test) may have none, or only part of
 * it: each field is kept only when it has the contract's type, and what is missing has a default (the
 * job then greets whoever joins as "there").
 */
import type { DigitalHumanJob, Tool } from "@dhs/contract";
import { readTools } from "./job-tools.js";

export interface JobInfo {
  sessionId: string | undefined;
  digitalHuman: { id: string; name: string };
  /** Who to be (contract guide, "Digital humans"); the reference's defaults for a dispatch made by hand. */
  persona: JobPersona;
  participantIdentity: string | undefined;
  maxDurationS: number | undefined;
  /** Whether to record the session's audio (contract guide, "Recordings"); false when the job says nothing. */
  recording: boolean;
}

export interface JobPersona {
  /** The system prompt of the conversation; undefined: the worker's own default. */
  instructions: string | undefined;
  /** What to say when the participant joins, with its placeholders (lines.ts fills them); null: nothing. */
  greeting: string | null;
  /** One of the deployment's voices; undefined: the worker's default. */
  voice: string | undefined;
  language: string;
  llm: { model: string | undefined; temperature: number | undefined };
  /** The tools its LLM may call (contract guide, "Tools"); none for a dispatch made by hand. */
  tools: Tool[];
  /** Whether it has documents to search on each turn (contract guide, "Knowledge"); none for a dispatch made by hand. */
  knowledge: boolean;
  /**
   * What it remembers about the participant from earlier sessions (contract guide, "Memory"), [] when
   * nothing yet; undefined when it has no memory of participants at all.
   */
  memory: string[] | undefined;
}

/** What a digital human says when the participant joins, unless its persona says otherwise (the service's too). */
export const DEFAULT_GREETING = "Hello {participant_identity}! I'm {name}. It's good to meet you. Say something, and I will listen.";

/**
 * Every field of the contract's type, each possibly absent (objects field by field). Every field, even
 * an optional one, must be read: a field added to the contract does not compile until readJob reads it.
 */
type Read<T> = {
  [K in keyof T]-?: NonNullable<T[K]> extends readonly unknown[]
    ? T[K] | undefined
    : NonNullable<T[K]> extends object
      ? Read<NonNullable<T[K]>>
      : Exclude<T[K], undefined> | undefined;
};

const text = (value: unknown) => (typeof value === "string" ? value : undefined);
const flag = (value: unknown) => (typeof value === "boolean" ? value : undefined);
const nullableText = (value: unknown) => (value === null ? null : text(value));
const nullableNumber = (value: unknown) =>
  value === null ? null : typeof value === "number" && Number.isFinite(value) ? value : undefined;
const fieldsOf = (value: unknown): Record<string, unknown> =>
  value && typeof value === "object" ? (value as Record<string, unknown>) : {};

const DOCUMENT_ID = /^doc_[0-9a-f]{24}$/;
// The contract's MemoryFact: one line of at most 200 characters, at most 10 of them.
const MAX_FACTS = 10;
const MAX_FACT_CHARS = 200;
const ONE_LINE = /^[^\p{Cc}\u202a-\u202e\u2066-\u2069]+$/u;

function readFacts(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const facts = value.filter(
    (fact): fact is string => typeof fact === "string" && ONE_LINE.test(fact) && [...fact].length <= MAX_FACT_CHARS,
  );
  return facts.slice(0, MAX_FACTS);
}

function readDocumentIds(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((id): id is string => typeof id === "string" && DOCUMENT_ID.test(id)) : undefined;
}

function readJob(metadata: string): Read<DigitalHumanJob> {
  let raw: Record<string, unknown> = {};
  try {
    raw = fieldsOf(JSON.parse(metadata || "{}"));
  } catch {
    // not the service's: every field absent
  }
  const human = fieldsOf(raw.digital_human);
  const llm = fieldsOf(human.llm);
  return {
    session_id: text(raw.session_id),
    account_id: text(raw.account_id),
    digital_human: {
      id: text(human.id),
      name: text(human.name) || undefined,
      appearance: text(human.appearance),
      instructions: nullableText(human.instructions),
      greeting: nullableText(human.greeting),
      voice: text(human.voice),
      language: text(human.language),
      llm: { model: nullableText(llm.model), temperature: nullableNumber(llm.temperature) },
      tools: readTools(human.tools),
      knowledge: { document_ids: readDocumentIds(fieldsOf(human.knowledge).document_ids) },
    },
    participant_identity: text(raw.participant_identity),
    participant_memory: { facts: raw.participant_memory === undefined ? undefined : readFacts(fieldsOf(raw.participant_memory).facts) },
    recording: { audio: flag(fieldsOf(raw.recording).audio) },
    max_duration_s: typeof raw.max_duration_s === "number" && raw.max_duration_s > 0 ? raw.max_duration_s : undefined,
  };
}

export function parseJobMetadata(metadata: string, agentName: string): JobInfo {
  const job = readJob(metadata);
  const { instructions, greeting, voice, language, llm, tools, knowledge } = job.digital_human;
  return {
    sessionId: job.session_id,
    digitalHuman: { id: job.digital_human.id ?? agentName, name: job.digital_human.name ?? agentName },
    persona: {
      instructions: instructions ?? undefined,
      greeting: greeting === undefined ? DEFAULT_GREETING : greeting,
      voice,
      language: language ?? "en",
      llm: { model: llm.model ?? undefined, temperature: llm.temperature ?? undefined },
      tools: tools ?? [],
      knowledge: (knowledge.document_ids ?? []).length > 0,
      memory: job.participant_memory.facts,
    },
    participantIdentity: job.participant_identity,
    maxDurationS: job.max_duration_s,
    recording: job.recording.audio === true,
  };
}
