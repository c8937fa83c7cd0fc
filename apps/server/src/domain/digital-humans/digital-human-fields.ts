/**
 * The fields of an account's own digital human (contract guide, "Digital humans"), checked against what
 * the deployment offers, which the contract cannot know: its voices and their languages, the stock
 * digital humans the account may take an appearance from, the account's longest session. A create fills
 * what it was not given from the deployment's defaults; an update merges what it was given into what is
 * stored (fields not sent stay, `null` clears). Every problem is named by its field, at once.
 */
import type { DigitalHumanCreate, DigitalHumanUpdate } from "@dhs/contract";
import type { Mode } from "../accounts/api-keys.js";
import { analysisIssues, analysisWithDefaults } from "../analysis/analysis-settings.js";
import { AppError } from "../app-error.js";
import { toolIssues, withDefaults } from "../tools/tool-definitions.js";
import { type DigitalHumanCatalog, OFFLINE_HEARING } from "./digital-human-catalog.js";
import { DEFAULT_GREETING, DEFAULT_LANGUAGE } from "./persona.js";
import type { DigitalHumanRecord } from "./ports.js";

/** What the fields are checked against: the deployment's catalog, the caller's account and mode, its limit. */
export interface FieldRules {
  catalog: DigitalHumanCatalog;
  account: string;
  mode: Mode;
  /** The longest a session of the account may stay active in this mode (s). */
  maxSessionDurationS: number;
}

type Fields = Omit<DigitalHumanRecord, "id" | "owner" | "created_at" | "updated_at">;

interface Issue {
  location: "body";
  path: string;
  message: string;
}

/** A new digital human's fields: those given, checked, and the deployment's defaults for the rest. */
export function fieldsOfCreate(body: DigitalHumanCreate, rules: FieldRules): Fields {
  const voice = body.voice ?? (body.language === undefined ? undefined : rules.catalog.defaultVoice(body.language)?.id);
  const fields: Fields = {
    name: body.name,
    description: body.description ?? null,
    appearance: body.appearance?.toLowerCase() ?? rules.catalog.resolve(undefined, rules.account, rules.mode)?.id ?? "",
    instructions: body.instructions ?? null,
    greeting: body.greeting === undefined ? DEFAULT_GREETING : body.greeting,
    voice: voice ?? rules.catalog.defaultVoice()?.id ?? "",
    language: "",
    llm: { model: body.llm?.model ?? null, temperature: body.llm?.temperature ?? null },
    max_session_duration_s: body.max_session_duration_s ?? null,
    metadata: body.metadata ?? {},
    tools: withDefaults(body.tools),
    knowledge: { document_ids: body.knowledge?.document_ids ?? [] },
    analysis: analysisWithDefaults(body.analysis),
    memory: { enabled: body.memory?.enabled ?? false },
    recording: { audio: body.recording?.audio ?? false },
  };
  fields.language = body.language ?? rules.catalog.voice(fields.voice)?.language ?? DEFAULT_LANGUAGE;
  return checked(fields, body, rules, "all");
}

/** The stored fields with the update merged in, checked. */
export function fieldsOfUpdate(stored: DigitalHumanRecord, update: DigitalHumanUpdate, rules: FieldRules): Fields {
  const merged: Fields = {
    name: update.name ?? stored.name,
    description: update.description === undefined ? stored.description : update.description,
    appearance: update.appearance?.toLowerCase() ?? stored.appearance,
    instructions: update.instructions === undefined ? stored.instructions : update.instructions,
    greeting: update.greeting === undefined ? stored.greeting : update.greeting,
    voice: update.voice ?? stored.voice,
    language: update.language ?? stored.language,
    llm: update.llm === undefined ? stored.llm : { model: update.llm.model ?? null, temperature: update.llm.temperature ?? null },
    max_session_duration_s: update.max_session_duration_s === undefined ? stored.max_session_duration_s : update.max_session_duration_s,
    metadata: update.metadata ?? stored.metadata,
    tools: update.tools === undefined ? (stored.tools ?? []) : withDefaults(update.tools),
    knowledge:
      update.knowledge === undefined ? (stored.knowledge ?? { document_ids: [] }) : { document_ids: update.knowledge?.document_ids ?? [] },
    analysis: update.analysis === undefined ? (stored.analysis ?? null) : analysisWithDefaults(update.analysis),
    memory: { enabled: update.memory?.enabled ?? stored.memory?.enabled ?? false },
    recording: { audio: update.recording?.audio ?? stored.recording?.audio ?? false },
  };
  // A new voice alone brings its language; a new language alone, its default voice.
  if (update.voice !== undefined && update.language === undefined)
    merged.language = rules.catalog.voice(merged.voice)?.language ?? merged.language;
  if (update.language !== undefined && update.voice === undefined)
    merged.voice = rules.catalog.defaultVoice(merged.language)?.id ?? merged.voice;
  return checked(merged, update, rules, "sent");
}

/**
 * Refuses what the deployment does not offer, each problem named by the field the caller sent (or, when
 * a default does not fit, by the field that made it so). An update checks only what it changes: a digital
 * human whose appearance the operator has since withdrawn can still be renamed (and a session is never
 * given that appearance: DigitalHumanService.personaFor).
 */
function checked(fields: Fields, sent: DigitalHumanCreate | DigitalHumanUpdate, rules: FieldRules, which: "all" | "sent"): Fields {
  const { catalog } = rules;
  const issues: Issue[] = [];
  const issue = (path: string, message: string) => issues.push({ location: "body", path, message });
  const checks = (...names: (keyof DigitalHumanUpdate)[]) => which === "all" || names.some((name) => sent[name] !== undefined);
  if (checks("appearance") && catalog.resolve(fields.appearance, rules.account, rules.mode) === undefined) {
    issue("appearance", "is not a stock digital human your account may use (listDigitalHumans with kind=stock)");
  }
  const voice = catalog.voice(fields.voice);
  const languages = [...new Set(catalog.voices().map((v) => v.language))];
  if (!checks("voice", "language")) {
    // neither changes
  } else if (voice === undefined) {
    issue(
      sent.voice === undefined ? "language" : "voice",
      `is not a voice of this deployment (listVoices): ${catalog
        .voices()
        .map((v) => v.id)
        .join(", ")}`,
    );
  } else if (!languages.includes(fields.language)) {
    issue("language", `is not a language of this deployment: ${languages.join(", ")}`);
  } else if (voice.language !== fields.language) {
    issue(sent.voice === undefined ? "language" : "voice", `voice ${voice.id} speaks ${voice.language}, not ${fields.language}`);
  } else if (!catalog.hears(fields.language)) {
    issue("language", notHeard(catalog.hearingLanguages()));
  }
  if (
    checks("max_session_duration_s") &&
    fields.max_session_duration_s !== null &&
    fields.max_session_duration_s > rules.maxSessionDurationS
  ) {
    issue("max_session_duration_s", `is more than your account's limit of ${rules.maxSessionDurationS} s`);
  }
  if (checks("tools")) issues.push(...toolIssues(fields.tools ?? []));
  if (checks("analysis") && fields.analysis) issues.push(...analysisIssues(fields.analysis));
  // Memory is kept by the session's analysis: without one there is nothing to keep it with.
  if (checks("analysis", "memory") && fields.memory?.enabled && !fields.analysis) {
    issue(
      sent.memory === undefined ? "analysis" : "memory.enabled",
      "memory needs an analysis: its facts are kept by each session's analysis",
    );
  }
  if (issues.length > 0) throw new AppError("validation_failed", issues);
  return fields;
}

/** Why a language is refused: what the deployment hears, and, on the offline default, why no more. */
export function notHeard(hearing: readonly string[]): string {
  const offline = hearing.length === OFFLINE_HEARING.length && hearing.every((language, i) => language === OFFLINE_HEARING[i]);
  return `is not a language this deployment hears: ${hearing.join(", ")}${
    offline ? " (PocketSphinx, offline, hears English only; the operator chooses a speech-to-text provider for more)" : ""
  }`;
}
