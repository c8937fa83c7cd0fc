/**
 * A persona: who a digital human is in a session (contract guide, "Digital humans"). A session takes the
 * persona of its digital human when it is created and keeps it (the store keeps it beside the session),
 * so that changing or deleting the digital human later changes no session that was already made; its
 * job is told it in the dispatch's metadata (DigitalHumanJob).
 */
import type { DigitalHumanAnalysis, Tool } from "@dhs/contract";
import type { DigitalHumanCatalog, DigitalHuman as StockEntry } from "./digital-human-catalog.js";
import type { DigitalHumanRecord } from "./ports.js";

export interface Persona {
  /** The digital human's id: the session's digital_human_id. */
  id: string;
  name: string;
  /** The stock digital human whose face it has. */
  appearance: string;
  /** The LiveKit agent its appearance's worker registered. */
  agentName: string;
  instructions: string | null;
  greeting: string | null;
  voice: string;
  language: string;
  llm: { model: string | null; temperature: number | null };
  /** Seconds its sessions may stay active, below the account's limit; null: that limit. */
  maxSessionDurationS: number | null;
  /** The tools its LLM may call (contract guide, "Tools"); absent from personas kept before tools existed. */
  tools?: Tool[];
  /** The documents it answers from (contract guide, "Knowledge"); absent from personas kept before knowledge existed. */
  knowledge?: { document_ids: string[] };
  /** What its sessions are analysed for once they end (contract guide, "Analysis"); null or absent: nothing. */
  analysis?: DigitalHumanAnalysis | null;
  /** Whether its sessions keep facts about returning participants (contract guide, "Memory"); absent: no. */
  memory?: boolean;
  /** Whether its sessions are recorded (contract guide, "Recordings"); absent: no. */
  recording?: boolean;
  /**
   * A session's persona only: what the digital human remembers about the session's participant, recalled
   * when the session was created (kept with the persona, so a job dispatched again is told the same).
   */
  participantMemory?: string[];
}

/** What a digital human says when the participant joins, unless its persona says otherwise. */
export const DEFAULT_GREETING = "Hello {participant_identity}! I'm {name}. It's good to meet you. Say something, and I will listen.";

/** The language a digital human speaks when neither it nor its voice says (the only one of this release). */
export const DEFAULT_LANGUAGE = "en";

/** A stock digital human's persona: what its catalog entry says, the deployment's defaults for the rest. */
export function stockPersona(entry: StockEntry, catalog: DigitalHumanCatalog): Persona {
  const voice = entry.voice ?? catalog.defaultVoice()?.id ?? "";
  return {
    id: entry.id,
    name: entry.name,
    appearance: entry.id,
    agentName: entry.agent_name,
    instructions: entry.instructions ?? null,
    greeting: entry.greeting === undefined ? DEFAULT_GREETING : entry.greeting,
    voice,
    language: entry.language ?? catalog.voice(voice)?.language ?? DEFAULT_LANGUAGE,
    llm: { model: entry.llm_model ?? null, temperature: null },
    maxSessionDurationS: entry.max_session_duration_s ?? null,
  };
}

/** One of an account's own digital humans as a persona, with the agent of its appearance. */
export function customPersona(record: DigitalHumanRecord, appearance: StockEntry): Persona {
  return {
    id: record.id,
    name: record.name,
    appearance: record.appearance,
    agentName: appearance.agent_name,
    instructions: record.instructions,
    greeting: record.greeting,
    voice: record.voice,
    language: record.language,
    llm: { ...record.llm },
    maxSessionDurationS: record.max_session_duration_s,
    tools: record.tools ?? [],
    knowledge: { document_ids: [...(record.knowledge?.document_ids ?? [])] },
    analysis: record.analysis ?? null,
    memory: record.memory?.enabled ?? false,
    recording: record.recording?.audio ?? false,
  };
}

/** The seconds a session of this persona may stay active, where the account may have up to `limitS`. */
export function sessionMaxDurationS(persona: Persona, limitS: number): number {
  return persona.maxSessionDurationS === null ? limitS : Math.min(persona.maxSessionDurationS, limitS);
}
