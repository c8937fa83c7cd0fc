/**
 * One SessionRecord and one SessionSettings for the unit and model tests, each test overriding only
 * what it is about, so a new field of either is added here once.
 */

import type { DigitalHumanCatalog, Voice } from "../../src/domain/digital-humans/digital-human-catalog.js";
import { DEFAULT_GREETING, type Persona, stockPersona } from "../../src/domain/digital-humans/persona.js";
import { roomNameFor, type SessionRecord } from "../../src/domain/sessions/session.js";
import type { PersonaSource } from "../../src/domain/sessions/session-deps.js";
import type { Durations } from "../../src/domain/sessions/session-machine.js";
import type { SessionSettings } from "../../src/domain/sessions/session-service.js";

/** The service's defaults (config.ts), so a test reads as the product behaves. */
export const DURATIONS: Durations = {
  joinTimeoutS: 600,
  digitalHumanJoinTimeoutS: 60,
  maxDurationS: 1800,
  departureTimeoutS: 30,
  redispatchS: 5,
  retentionS: 30 * 86_400,
};

export function sessionSettings(overrides: Partial<SessionSettings> = {}): SessionSettings {
  return {
    rtcUrl: "wss://livekit.test",
    participantTokenTtlS: 600,
    idempotencyKeyTtlMs: 86_400_000,
    idempotencyLockTtlMs: 10_000,
    durations: DURATIONS,
    eventRetainMs: 3 * 86_400_000,
    livekitEventDedupeMs: 3_600_000,
    recordingDeliveryMs: 600_000,
    ...overrides,
  };
}

/** A session just created: nobody joined yet. */
export function sessionRecord(overrides: Partial<SessionRecord> = {}): SessionRecord {
  const id = overrides.id ?? "3fa85f64-5717-4562-b3fc-2c963f66afa6";
  return {
    id,
    account_id: "acct_1",
    status: "created",
    room_name: roomNameFor(id),
    participant_identity: "u",
    digital_human_id: "6f1c2d0e-8b7a-4c55-9a9e-2f3b1d4c5e6f",
    tags: [],
    metadata: {},
    end_reason: null,
    digital_human_joined_at: null,
    digital_human_left_at: null,
    participant_sid: null,
    participant_left_at: null,
    created_at: "2026-11-22T09:00:00.000Z",
    started_at: null,
    ended_at: null,
    ...overrides,
  };
}

/** The voices of the embedded catalog's first two, for tests that build a catalog by hand. */
export const VOICES: [Voice, ...Voice[]] = [
  { id: "slt", name: "SLT", language: "en", description: null, provider: "flite", provider_voice: "slt", model: null },
  { id: "espeak-en-us", name: "eSpeak", language: "en", description: null, provider: "espeak", provider_voice: "en-us", model: null },
];

/** Ava's persona, as a stock digital human of the embedded catalog has it. */
export function persona(overrides: Partial<Persona> = {}): Persona {
  return {
    id: "6f1c2d0e-8b7a-4c55-9a9e-2f3b1d4c5e6f",
    name: "Ava",
    appearance: "6f1c2d0e-8b7a-4c55-9a9e-2f3b1d4c5e6f",
    agentName: "ava",
    instructions: null,
    greeting: DEFAULT_GREETING,
    voice: "slt",
    language: "en",
    llm: { model: null, temperature: null },
    maxSessionDurationS: null,
    ...overrides,
  };
}

/** Personas of the catalog's stock digital humans only: for tests of sessions that make no digital human of their own. */
export function stockPersonas(catalog: DigitalHumanCatalog): PersonaSource {
  return {
    personaFor: async (principal, id) => {
      const entry = catalog.resolve(id, principal.account, principal.mode);
      return entry === undefined ? undefined : stockPersona(entry, catalog);
    },
  };
}
