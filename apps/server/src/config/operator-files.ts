/**
 * The files the operator changes while the service runs: API_KEYS_FILE (API keys and per-account limits)
 * and DIGITAL_HUMANS_FILE (the catalog). Each is read and checked as a whole (its JSON Schema, in
 * operator-file-schemas.ts, then what no single entry can say: an id or a secret listed twice) at start
 * and on every reload, which swaps them all into the running service at once or, when one does not pass,
 * keeps the previous ones in force.
 *
 * They are reloaded on SIGHUP and when either file changes. Changes are found by polling each file's
 * status once a second rather than by inotify on its directory: polling follows what the path points to,
 * so an editor's rename-into-place, a deploy tool's copy and a Kubernetes ConfigMap's symlink swap are
 * all seen, and writes to other files beside it (a log, say) cost nothing. A change is read once, 200 ms
 * after it settles.
 */
import { readFileSync, type Stats, unwatchFile, watchFile } from "node:fs";
import { OFFLINE_VOICE_IDS } from "@dhs/catalog";
import { voiceProviderValues } from "@dhs/contract";
import type { Logger } from "pino";
import type { AccountLimits, AccountRecord } from "../domain/accounts/account-limits.js";
import type { ApiKeyRecord, ApiKeyRing } from "../domain/accounts/api-keys.js";
import { type DigitalHuman, DigitalHumanCatalog, OFFLINE_HEARING, type Voice } from "../domain/digital-humans/digital-human-catalog.js";
import { notHeard } from "../domain/digital-humans/digital-human-fields.js";
import { ConfigError } from "./config-error.js";
import { checkApiKeysFile, checkDigitalHumansFile, type DigitalHumansFile } from "./operator-file-schemas.js";
import { VARIABLES } from "./variables.js";

export interface OperatorFiles {
  /**
   * `allowNoKeys`: the file says `"allow_no_keys": true`, so a reload may take every key away (without
   * it, a reload to an empty list is refused as the slip it almost always is).
   */
  apiKeys: { file: string; records: ApiKeyRecord[]; accounts: AccountRecord[]; allowNoKeys: boolean };
  digitalHumans: {
    file: string;
    entries: [DigitalHuman, ...DigitalHuman[]];
    voices: [Voice, ...Voice[]];
    /** What the workers' speech recognition hears (`hearing_languages`; the offline default's English without it). */
    hearingLanguages: [string, ...string[]];
  };
}

/** Logged whenever the keys in force become none: at start, or by a reload the file allowed. */
export const NO_KEYS = "API_KEYS_FILE lists no keys: every request is refused 401 until keys are added";

const POLL_MS = 1000;
const DEBOUNCE_MS = 200;

export interface OperatorFilePaths {
  apiKeysFile: string;
  digitalHumansFile: string;
}

/** Both files, read and checked; a ConfigError names the first mistake. */
export function readOperatorFiles(files: OperatorFilePaths): OperatorFiles {
  return {
    apiKeys: { file: files.apiKeysFile, ...readApiKeys(files.apiKeysFile) },
    digitalHumans: readDigitalHumans(files.digitalHumansFile),
  };
}

/**
 * Reads the files again and swaps them into the service's key ring, account limits and catalog, all
 * three between two requests: none is served with half of the new files. Returns the error, if any.
 */
export function operatorFilesReloader(
  files: OperatorFilePaths,
  live: { apiKeys: ApiKeyRing; accounts: AccountLimits; catalog: DigitalHumanCatalog },
  logger: Logger,
): () => ConfigError | undefined {
  return () => {
    try {
      const { apiKeys, digitalHumans } = readOperatorFiles(files);
      if (apiKeys.records.length === 0 && live.apiKeys.size > 0 && !apiKeys.allowNoKeys) {
        throw new ConfigError(
          `API_KEYS_FILE: ${apiKeys.file} lists no keys, which would refuse every request; to mean it, write "allow_no_keys": true beside "keys"`,
        );
      }
      live.apiKeys.replace(apiKeys.records);
      live.accounts.replace(apiKeys.accounts);
      live.catalog.replace(digitalHumans.entries, digitalHumans.voices, digitalHumans.hearingLanguages);
      logger.info({ api_keys: apiKeys.records.length, digital_humans: digitalHumans.entries.length }, "operator files reloaded");
      if (apiKeys.records.length === 0) logger.error({ file: apiKeys.file }, NO_KEYS);
      return undefined;
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      logger.error({ cause: error.message }, "operator files not reloaded; the previous ones stay in force");
      return error;
    }
  };
}

/** Calls `reload` on SIGHUP and once each change of the files has settled, until closed. */
export function watchOperatorFiles(files: readonly string[], reload: () => void): { close(): void } {
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(reload, DEBOUNCE_MS);
    timer.unref();
  };
  const changed = (now: Stats, before: Stats) => {
    if (now.mtimeMs !== before.mtimeMs || now.ino !== before.ino || now.size !== before.size) schedule();
  };
  const paths = [...new Set(files)];
  for (const path of paths) watchFile(path, { interval: POLL_MS, persistent: false }, changed);
  const onHup = () => schedule();
  process.on("SIGHUP", onHup);
  return {
    close: () => {
      clearTimeout(timer);
      process.off("SIGHUP", onHup);
      for (const path of paths) unwatchFile(path, changed);
    },
  };
}

function readApiKeys(file: string): Omit<OperatorFiles["apiKeys"], "file"> {
  const { keys, accounts = [], allow_no_keys } = checkApiKeysFile(readJson("API_KEYS_FILE", file), file);
  const ids = firstRepeat(keys.map((key) => key.id));
  if (ids) throw new ConfigError(`API_KEYS_FILE: keys[${ids.at}].id "${keys[ids.at]?.id}" is used twice`);
  // A hash listed twice would authenticate its secret as whichever entry came last: an operator's
  // copy-paste slip would move one customer into another's account. Refused like a duplicate id.
  const hashes = firstRepeat(keys.map((key) => key.sha256.toLowerCase()));
  if (hashes) {
    throw new ConfigError(
      `API_KEYS_FILE: keys[${hashes.at}].sha256 is the same key as keys[${hashes.first}]: each secret belongs to one key`,
    );
  }
  const accountIds = firstRepeat(accounts.map((account) => account.id));
  if (accountIds) throw new ConfigError(`API_KEYS_FILE: accounts[${accountIds.at}].id "${accounts[accountIds.at]?.id}" is listed twice`);
  return {
    records: keys.map((key) => ({
      id: key.id,
      account_id: key.account_id,
      sha256: key.sha256.toLowerCase(),
      scopes: key.scopes,
      mode: key.mode ?? "live",
    })),
    accounts: accounts.map((account) => ({ id: account.id, max_open_sessions: account.max_open_sessions })),
    allowNoKeys: allow_no_keys === true,
  };
}

/**
 * The stock digital humans and the voices. A file without voices offers the embedded file's (the
 * reference worker's); every persona's voice must be one of them, and speak its language.
 */
function readDigitalHumans(file: string): OperatorFiles["digitalHumans"] {
  const {
    digital_humans: list,
    voices: listed,
    hearing_languages: hearingLanguages = [...OFFLINE_HEARING],
  } = checkDigitalHumansFile(readJson("DIGITAL_HUMANS_FILE", file), file);
  // Ids are UUIDs: another case is the same id.
  const ids = firstRepeat(list.map((entry) => entry.id.toLowerCase()));
  if (ids) throw new ConfigError(`DIGITAL_HUMANS_FILE: digital_humans[${ids.at}].id "${list[ids.at]?.id}" is listed twice`);
  const voices = listed === undefined ? embeddedVoices() : voicesOf(listed);
  const voiceIds = firstRepeat(voices.map((voice) => voice.id));
  if (voiceIds) throw new ConfigError(`DIGITAL_HUMANS_FILE: voices[${voiceIds.at}].id "${voices[voiceIds.at]?.id}" is listed twice`);
  list.forEach((entry, i) => {
    const voice = voices.find((v) => v.id === entry.voice);
    if (entry.voice !== undefined && voice === undefined) {
      throw new ConfigError(`DIGITAL_HUMANS_FILE: digital_humans[${i}].voice "${entry.voice}" is not one of the voices`);
    }
    const language = voice?.language ?? (voices[0] as Voice).language;
    if (entry.language !== undefined && entry.language !== language) {
      throw new ConfigError(`DIGITAL_HUMANS_FILE: digital_humans[${i}].language "${entry.language}" is not its voice's (${language})`);
    }
    const catalog = new DigitalHumanCatalog([entry], voices, hearingLanguages);
    if (!catalog.hears(entry.language ?? language)) {
      throw new ConfigError(
        `DIGITAL_HUMANS_FILE: digital_humans[${i}].language "${entry.language ?? language}" ${notHeard(hearingLanguages)}`,
      );
    }
  });
  const entries = list.map((entry) => ({ ...entry, id: entry.id.toLowerCase(), description: entry.description ?? null }));
  return { file, entries: entries as [DigitalHuman, ...DigitalHuman[]], voices, hearingLanguages };
}

/** The voices of the embedded catalog: the reference digital human's. */
function embeddedVoices(): [Voice, ...Voice[]] {
  const embedded = VARIABLES.DIGITAL_HUMANS_FILE.default;
  const { voices } = checkDigitalHumansFile(readJson("DIGITAL_HUMANS_FILE", embedded), embedded);
  if (!voices) throw new Error(`${embedded} lists no voices`);
  return voicesOf(voices);
}

/** The file's voices with every field: a provider's voice must say which it is, an offline one may leave it to its id. */
function voicesOf(listed: NonNullable<DigitalHumansFile["voices"]>): [Voice, ...Voice[]] {
  const voices = listed.map((voice, i) => {
    const known = OFFLINE_VOICE_IDS[voice.id];
    const provider = voice.provider ?? known?.provider;
    if (provider === undefined)
      throw new ConfigError(`DIGITAL_HUMANS_FILE: voices[${i}].provider is missing (${voiceProviderValues.join(", ")})`);
    const providerVoice = voice.provider_voice ?? (known !== undefined && provider === known.provider ? known.provider_voice : undefined);
    if (providerVoice === undefined) {
      throw new ConfigError(`DIGITAL_HUMANS_FILE: voices[${i}].provider_voice is missing: the voice as ${provider} names it`);
    }
    return { ...voice, description: voice.description ?? null, provider, provider_voice: providerVoice, model: voice.model ?? null };
  });
  return voices as [Voice, ...Voice[]];
}

function readJson(variable: string, file: string): unknown {
  let content: string;
  try {
    content = readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigError(`${variable}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  try {
    return JSON.parse(content);
  } catch (error) {
    throw new ConfigError(`${variable}: ${file} is not valid JSON (${(error as Error).message})`);
  }
}

/** The first value listed again (`at`), and where it was first (`first`). */
function firstRepeat(values: readonly string[]): { at: number; first: number } | undefined {
  const seen = new Map<string, number>();
  for (const [at, value] of values.entries()) {
    const first = seen.get(value);
    if (first !== undefined) return { at, first };
    seen.set(value, at);
  }
  return undefined;
}
