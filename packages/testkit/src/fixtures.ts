/**
 * The operator's files the in-process tiers run the service with: API keys of two accounts (every
 * scope split the way the tests need it, and a test-mode key) and a catalog of two digital humans, with
 * the LiveKit credentials the fake LiveKit and the signed LiveKit webhooks share. Written as an operator
 * writes them (each key's SHA-256), never with the service's code.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const KEYS = {
  a: "dhs_live_account_a_read_write",
  aRead: "dhs_live_account_a_read_only",
  aWrite: "dhs_live_account_a_write_only",
  aOther: "dhs_live_account_a_second_key",
  b: "dhs_live_account_b_read_write",
  /** Webhook scopes only: read and write, read only. */
  aHooks: "dhs_live_account_a_webhooks",
  aHooksRead: "dhs_live_account_a_webhooks_read",
  bHooks: "dhs_live_account_b_webhooks",
  /** Digital human scopes only: read and write (account A's, account B's), read only. */
  aPersonas: "dhs_live_account_a_digital_humans",
  aPersonasRead: "dhs_live_account_a_digital_humans_read",
  bPersonas: "dhs_live_account_b_digital_humans",
  /** Account A's documents (knowledge:read and knowledge:write). */
  aKnowledge: "dhs_live_account_a_knowledge",
  /** Account A's documents, read only. */
  aKnowledgeRead: "dhs_live_account_a_knowledge_read",
  /** Account B's documents. */
  bKnowledge: "dhs_live_account_b_knowledge",
  /** Account A's test mode: every scope. */
  aTest: "dhs_test_account_a_every_scope",
} as const;

export const DIGITAL_HUMANS = [
  { id: "6f1c2d0e-8b7a-4c55-9a9e-2f3b1d4c5e6f", name: "Ava", agent_name: "ava" },
  { id: "0b8e4d1c-2a3f-4e5d-8c7b-9a0f1e2d3c4b", name: "Leo", agent_name: "leo-agent" },
] as const;

/** `livekit-server --dev`'s credentials, which the fake LiveKit checks and signs with by default. */
export const LIVEKIT = { url: "wss://livekit.test", apiKey: "devkey", apiSecret: "secret" } as const;

export type Scope =
  | "sessions:read"
  | "sessions:write"
  | "digital_humans:read"
  | "digital_humans:write"
  | "webhooks:read"
  | "webhooks:write"
  | "knowledge:read"
  | "knowledge:write";

/** One entry of API_KEYS_FILE: the key's id, account, scopes and mode, and the SHA-256 of its secret. */
export interface ApiKeyRecord {
  id: string;
  account_id: string;
  scopes: Scope[];
  sha256: string;
  mode: "live" | "test";
}

export function apiKeyRecord(id: string, accountId: string, secret: string, scopes: Scope[], mode: "live" | "test" = "live"): ApiKeyRecord {
  return { id, account_id: accountId, scopes, sha256: createHash("sha256").update(secret).digest("hex"), mode };
}

const RW: Scope[] = ["sessions:read", "sessions:write"];
const HOOKS: Scope[] = ["webhooks:read", "webhooks:write"];
const PERSONAS: Scope[] = ["digital_humans:read", "digital_humans:write"];
const KNOWLEDGE: Scope[] = ["knowledge:read", "knowledge:write"];

/** The keys of KEYS as API_KEYS_FILE lists them. */
export const API_KEY_RECORDS: readonly ApiKeyRecord[] = [
  apiKeyRecord("key_a", "acct_a", KEYS.a, RW),
  apiKeyRecord("key_a_read", "acct_a", KEYS.aRead, ["sessions:read"]),
  apiKeyRecord("key_a_write", "acct_a", KEYS.aWrite, ["sessions:write"]),
  apiKeyRecord("key_a_other", "acct_a", KEYS.aOther, RW),
  apiKeyRecord("key_b", "acct_b", KEYS.b, RW),
  apiKeyRecord("key_a_hooks", "acct_a", KEYS.aHooks, HOOKS),
  apiKeyRecord("key_a_hooks_read", "acct_a", KEYS.aHooksRead, ["webhooks:read"]),
  apiKeyRecord("key_b_hooks", "acct_b", KEYS.bHooks, HOOKS),
  apiKeyRecord("key_a_personas", "acct_a", KEYS.aPersonas, PERSONAS),
  apiKeyRecord("key_a_personas_read", "acct_a", KEYS.aPersonasRead, ["digital_humans:read"]),
  apiKeyRecord("key_b_personas", "acct_b", KEYS.bPersonas, PERSONAS),
  apiKeyRecord("key_a_knowledge", "acct_a", KEYS.aKnowledge, KNOWLEDGE),
  apiKeyRecord("key_a_knowledge_read", "acct_a", KEYS.aKnowledgeRead, ["knowledge:read"]),
  apiKeyRecord("key_b_knowledge", "acct_b", KEYS.bKnowledge, KNOWLEDGE),
  apiKeyRecord("key_a_test", "acct_a", KEYS.aTest, [...RW, ...PERSONAS, ...HOOKS, ...KNOWLEDGE], "test"),
];

/** A stock digital human as DIGITAL_HUMANS_FILE lists it, with its optional persona. */
export interface StockDigitalHuman {
  id: string;
  name: string;
  agent_name: string;
  description?: string;
  accounts?: string[];
  modes?: ("live" | "test")[];
  instructions?: string | null;
  greeting?: string | null;
  voice?: string;
  language?: string;
  llm_model?: string | null;
  max_session_duration_s?: number | null;
}

/** What a test adds to the operator's files: per-account limits, more digital humans, voices of its own. */
export interface Fixtures {
  accounts?: { id: string; max_open_sessions?: number }[];
  digitalHumans?: StockDigitalHuman[];
  voices?: {
    id: string;
    name: string;
    language: string;
    description?: string;
    provider?: string;
    provider_voice?: string;
    model?: string | null;
  }[];
  /** The languages the workers hear (the catalog's `hearing_languages`; the offline default's `en` without it). */
  hearingLanguages?: string[];
}

/** API_KEYS_FILE and DIGITAL_HUMANS_FILE with the fixtures and what the test adds, in a directory of their own. */
export function writeOperatorFiles(fixtures: Fixtures = {}): { apiKeysFile: string; digitalHumansFile: string } {
  const dir = mkdtempSync(join(tmpdir(), "dhs-test-"));
  const apiKeysFile = join(dir, "api-keys.json");
  writeFileSync(apiKeysFile, JSON.stringify({ keys: API_KEY_RECORDS, ...(fixtures.accounts ? { accounts: fixtures.accounts } : {}) }));
  const digitalHumansFile = join(dir, "digital-humans.json");
  const catalog = {
    digital_humans: [...DIGITAL_HUMANS, ...(fixtures.digitalHumans ?? [])],
    ...(fixtures.voices ? { voices: fixtures.voices } : {}),
    ...(fixtures.hearingLanguages ? { hearing_languages: fixtures.hearingLanguages } : {}),
  };
  writeFileSync(digitalHumansFile, JSON.stringify(catalog));
  return { apiKeysFile, digitalHumansFile };
}
