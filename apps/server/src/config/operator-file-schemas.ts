/**
 * The JSON Schemas of the operator's files (API_KEYS_FILE, DIGITAL_HUMANS_FILE), checked with Ajv (its
 * JSON Schema 2020-12 validator, which express-openapi-validator loads anyway), and Ajv's first error
 * turned into the one line an operator reads: the file's entry and field as they would write them
 * (`keys[2].sha256`) and what it must be. That last part is the `x-error` of the nearest schema on the
 * error's path. What no single entry can say (an id listed twice) is operator-files.ts's.
 */
import { modeValues, scopeValues, voiceProviderValues } from "@dhs/contract";
import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import type { AccountRecord } from "../domain/accounts/account-limits.js";
import { ACCOUNT_ID_PATTERN, type ApiKeyRecord, KEY_ID_PATTERN, type Mode } from "../domain/accounts/api-keys.js";
import type { DigitalHuman, Voice } from "../domain/digital-humans/digital-human-catalog.js";
import { ConfigError } from "./config-error.js";
import { VARIABLES } from "./variables.js";

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  /** What the value must be, said after its place in the file (`keys[0].sha256 must be ...`). */
  "x-error"?: string;
  [keyword: string]: unknown;
}

/** An API keys file that passed its schema. */
export interface ApiKeysFile {
  // A mode of null reads as live, as an absent one does (keys files written before test mode).
  keys: (Omit<ApiKeyRecord, "mode"> & { mode?: Mode | null })[];
  accounts?: AccountRecord[];
  allow_no_keys?: boolean;
}

/** A digital humans file that passed its schema. */
export interface DigitalHumansFile {
  digital_humans: [FileDigitalHuman, ...FileDigitalHuman[]];
  voices?: [FileVoice, ...FileVoice[]];
  hearing_languages?: [string, ...string[]];
}
type FileDigitalHuman = Omit<DigitalHuman, "description"> & { description?: string };
// The offline voices' provider and engine voice follow from their ids (files written before providers).
type FileVoice = Omit<Voice, "description" | "provider" | "provider_voice" | "model"> &
  Partial<Pick<Voice, "provider" | "provider_voice">> & { description?: string; model?: string | null };

const ID = "must be 1-64 characters of A-Z a-z 0-9 _ . : -";
const accountId = { type: "string", pattern: ACCOUNT_ID_PATTERN.source };
const limit = VARIABLES.ACCOUNT_MAX_OPEN_SESSIONS;

const API_KEYS: Schema = {
  type: "object",
  required: ["keys"],
  properties: {
    keys: {
      type: "array",
      items: {
        type: "object",
        required: ["id", "account_id", "sha256", "scopes"],
        properties: {
          id: { type: "string", pattern: KEY_ID_PATTERN.source, "x-error": ID },
          account_id: { ...accountId, "x-error": ID },
          sha256: { type: "string", pattern: "^[0-9a-fA-F]{64}$", "x-error": "must be 64 hexadecimal characters" },
          scopes: { type: "array", items: { enum: scopeValues }, "x-error": `must be a list of ${scopeValues.join(", ")}` },
          mode: { enum: [...modeValues, null], "x-error": `must be one of ${modeValues.join(", ")}` },
        },
        "x-error": "must be an object",
      },
    },
    accounts: {
      type: "array",
      items: {
        type: "object",
        required: ["id"],
        properties: {
          id: { ...accountId, "x-error": ID },
          max_open_sessions: {
            type: "integer",
            minimum: limit.min,
            maximum: limit.max,
            "x-error": `must be an integer from ${limit.min} to ${limit.max}`,
          },
        },
        "x-error": "must be an object",
      },
      "x-error": "must be a list",
    },
    allow_no_keys: { type: "boolean", "x-error": "must be true or false" },
  },
  "x-error": 'must hold {"keys": [...]}',
};

// What the contract's DigitalHuman and Voice allow, so a stock digital human is shown as the contract says.
const NO_CONTROL = "^[^\\u0000-\\u001f\\u007f]+$";
const TEXT = "^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f]+$";
const VOICE_ID = {
  type: "string",
  pattern: "^[a-z0-9][a-z0-9_.-]{0,63}$",
  "x-error": "must be 1-64 characters of a-z 0-9 _ . - (a voice id)",
};
const LANGUAGE = {
  type: "string",
  pattern: "^[a-z]{2,3}(-[A-Za-z0-9]{1,8})*$",
  maxLength: 35,
  "x-error": "must be a BCP 47 language tag (en)",
};
const NAME = {
  type: "string",
  minLength: 1,
  maxLength: 100,
  pattern: NO_CONTROL,
  "x-error": "must be 1-100 characters, no control character",
};
const DESCRIPTION = {
  type: "string",
  minLength: 1,
  maxLength: 500,
  pattern: NO_CONTROL,
  "x-error": "must be a string of 1-500 characters, no control character",
};
/** The schema, or null; its `x-error` says what the value must be. */
const nullable = ({ "x-error": error, ...schema }: Schema): Schema => ({ anyOf: [schema, { type: "null" }], "x-error": error ?? "" });

const DIGITAL_HUMANS: Schema = {
  type: "object",
  required: ["digital_humans"],
  properties: {
    digital_humans: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        required: ["id", "name", "agent_name"],
        properties: {
          id: { type: "string", pattern: "^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$", "x-error": "must be a UUID" },
          name: NAME,
          agent_name: { type: "string", minLength: 1, "x-error": "must be a non-empty string" },
          description: DESCRIPTION,
          instructions: nullable({
            type: "string",
            minLength: 1,
            maxLength: 10_000,
            pattern: TEXT,
            "x-error": "must be null or 1-10000 characters, no control character but line breaks and tabs",
          }),
          greeting: nullable({
            type: "string",
            minLength: 1,
            maxLength: 1000,
            pattern: NO_CONTROL,
            "x-error": "must be null or 1-1000 characters, no control character",
          }),
          voice: VOICE_ID,
          language: LANGUAGE,
          llm_model: nullable({
            type: "string",
            minLength: 1,
            maxLength: 128,
            pattern: "^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$",
            "x-error": "must be null or a model name",
          }),
          max_session_duration_s: nullable({
            type: "integer",
            minimum: 1,
            maximum: 86_400,
            "x-error": "must be null or an integer from 1 to 86400",
          }),
          accounts: { type: "array", items: accountId, "x-error": "must be a list of account ids" },
          modes: { type: "array", items: { enum: modeValues }, "x-error": `must be a list of ${modeValues.join(", ")}` },
        },
        "x-error": "must be an object",
      },
    },
    voices: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        required: ["id", "name", "language"],
        properties: {
          id: VOICE_ID,
          name: NAME,
          language: LANGUAGE,
          description: DESCRIPTION,
          provider: { enum: voiceProviderValues, "x-error": `must be one of ${voiceProviderValues.join(", ")}` },
          provider_voice: {
            type: "string",
            minLength: 1,
            maxLength: 128,
            pattern: NO_CONTROL,
            "x-error": "must be the provider's voice id, 1-128 characters, no control character",
          },
          model: nullable({
            type: "string",
            minLength: 1,
            maxLength: 128,
            pattern: NO_CONTROL,
            "x-error": "must be null or the provider's model, 1-128 characters",
          }),
        },
        "x-error": "must be an object",
      },
      "x-error": "must be a list of at least one voice",
    },
    hearing_languages: {
      type: "array",
      minItems: 1,
      maxItems: 100,
      items: LANGUAGE,
      "x-error": "must be a list of at least one BCP 47 language tag: the languages the workers' speech recognition hears",
    },
  },
  "x-error": 'must hold {"digital_humans": [...]} with at least one entry',
};

// Strict: a schema Ajv would read otherwise than it is written here fails at load, not on an operator.
const ajv = new Ajv2020({ strict: true, keywords: ["x-error"] });

/** The data of API_KEYS_FILE (`file`), or a ConfigError naming its first mistake. */
export const checkApiKeysFile = checker<ApiKeysFile>("API_KEYS_FILE", API_KEYS);
/** The data of DIGITAL_HUMANS_FILE (`file`), or a ConfigError naming its first mistake. */
export const checkDigitalHumansFile = checker<DigitalHumansFile>("DIGITAL_HUMANS_FILE", DIGITAL_HUMANS);

function checker<T>(variable: string, schema: Schema): (data: unknown, file: string) => T {
  const validate = ajv.compile<T>(schema);
  return (data, file) => {
    if (validate(data)) return data;
    throw new ConfigError(`${variable}: ${errorLine(schema, validate.errors?.[0], file)}`);
  };
}

/**
 * Walks the schema along the error's path and keeps the last `x-error` met, with the place it belongs
 * to: the file itself, a top-level field in quotes (`"accounts"`), or an entry's field (`keys[2].sha256`).
 */
function errorLine(schema: Schema, error: ErrorObject | undefined, file: string): string {
  const steps = (error?.instancePath ?? "").split("/").slice(1);
  if (error?.keyword === "required") steps.push(String(error.params.missingProperty));
  let line = `${file} ${schema["x-error"]}`;
  let node: Schema | undefined = schema;
  let path = "";
  for (const step of steps.map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"))) {
    const inArray: boolean = node?.type === "array";
    node = inArray ? node?.items : node?.properties?.[step];
    path = inArray ? `${path}[${step}]` : path === "" ? step : `${path}.${step}`;
    const place = /[.[]/.test(path) ? path : `"${path}"`;
    if (node?.["x-error"] !== undefined) line = `${place} ${node["x-error"]}`;
  }
  return line;
}
