/**
 * Every environment variable the digital human worker and its job processes read, declared once with
 * @dhs/settings' builders, as the service declares its own (apps/server/src/config/variables.ts): its
 * default, what it accepts, what it does. The operators' table in docs/operators.md is generated from here
 * (`pnpm --filter @dhs/digital-human docs:config`; `pnpm lint` fails when it is stale). A value it does not
 * accept stops the start with one line naming the variable (`configuration error: ...`), never a silent
 * NaN; production refuses the development defaults. Nothing else in the worker reads `process.env`
 * (worker-config.test.ts checks): job processes inherit the environment, and the worker sets in it what
 * they need (worker.ts).
 */
import { ConfigError, choice, decimal, file, integer, readSettings, type SettingsOf, text, url, type Variable } from "@dhs/settings";

/** What the worker's own processes are told through the environment; not the operator's to set. */
const SET_BY_THE_WORKER = "set by the worker for its job processes";

export const WORKER_VARIABLES = {
  NODE_ENV: text({ default: "development" }, "`production` refuses every default marked *dev*."),
  LOG_LEVEL: choice(
    { default: "info", values: ["fatal", "error", "warn", "info", "debug", "trace", "silent"] },
    "The agents framework's pino level; JSON lines, each with the session's id.",
  ),
  LIVEKIT_URL: url(
    {
      default: "ws://localhost:7880",
      dev: "`ws://localhost:7880`",
      refusedInProduction: "the worker must reach the deployment's LiveKit",
      protocols: ["ws:", "wss:", "http:", "https:"],
    },
    "LiveKit, as the worker reaches it (the service's `LIVEKIT_URL`, or a private address of the same server).",
  ),
  LIVEKIT_API_KEY: text(
    { default: "devkey", dev: "`devkey`", refusedInProduction: "the development credentials are public" },
    "LiveKit API key the worker registers with; the service's own, since jobs sign the service tokens they post transcripts with.",
  ),
  LIVEKIT_API_SECRET: text(
    { default: "secret", dev: "`secret`", refusedInProduction: "the development credentials are public" },
    "LiveKit API secret.",
  ),
  LIVEKIT_OBSERVABILITY_URL: url(
    { default: undefined, protocols: ["http:", "https:"] },
    "Where the agents framework would upload a session's recording itself; set, recorded sessions are declined rather than sent there (recordings go to the service's bucket only).",
  ),
  DIGITAL_HUMANS_FILE: file(
    { default: undefined, derived: "`@dhs/catalog`'s `digital-humans.json`" },
    "The catalog whose agent names the worker registers and whose voices it speaks: the service's `DIGITAL_HUMANS_FILE`.",
  ),
  DHS_API_URL: url(
    { default: undefined, protocols: ["http:", "https:"] },
    "The service's address: where jobs post transcripts, recordings and tool calls, and take what backends queued; unset, they only caption.",
  ),
  OPENAI_BASE_URL: url(
    { default: undefined, protocols: ["http:", "https:"] },
    "The digital humans' LLM: the root (with `/v1`) of any server with OpenAI's Chat Completions API (OpenAI, Groq, vLLM, Ollama); unset, they greet, answer from their documents and acknowledge.",
  ),
  OPENAI_API_KEY: text({ default: undefined }, "The LLM's key; a local server that takes none may leave it unset."),
  DHS_LLM_MODEL: text({ default: "gpt-4o-mini" }, "The model of a persona that names none."),
  DHS_LLM_TIMEOUT_S: decimal(
    { default: 8, above: 0, max: 600 },
    "How long a reply may go without a token (before its first or between two) before the digital human apologizes.",
  ),
  DHS_STT_PROVIDER: choice(
    { default: "pocketsphinx", values: ["pocketsphinx", "openai", "deepgram"] },
    "What hears the participant: `pocketsphinx` (offline, English only), `openai` (any server with OpenAI's `POST /audio/transcriptions`: OpenAI, Groq, Azure OpenAI, vLLM, speaches, LocalAI; a turn at a time, cut by the VAD) or `deepgram` (Deepgram's streaming `/v1/listen`). The catalog's `hearing_languages` must be languages it hears.",
  ),
  DHS_STT_BASE_URL: url(
    { default: undefined, protocols: ["http:", "https:", "ws:", "wss:"] },
    "The speech-to-text provider's root: OpenAI's `https://api.openai.com/v1` (or the compatible server's, with `/v1`), Deepgram's `wss://api.deepgram.com` (or a self-hosted Deepgram's); unset, the provider's own.",
  ),
  DHS_STT_API_KEY: text(
    { default: undefined },
    "The speech-to-text provider's key; needed for `deepgram`, and for `openai` unless the server takes none.",
  ),
  DHS_STT_MODEL: text(
    { default: undefined, derived: "`whisper-1` for `openai`, `nova-3` for `deepgram`" },
    "The speech-to-text model, as the provider names it.",
  ),
  DHS_TTS_OPENAI_BASE_URL: url(
    { default: undefined, protocols: ["http:", "https:"] },
    "Where the catalog's `openai` voices are spoken: the root (with `/v1`) of any server with OpenAI's `POST /audio/speech` answering 24 kHz PCM (OpenAI, Kokoro-FastAPI, speaches, LocalAI). With `DHS_TTS_OPENAI_API_KEY` alone, OpenAI's own.",
  ),
  DHS_TTS_OPENAI_API_KEY: text(
    { default: undefined },
    "The key of the `openai` voices' server; a local server that takes none may leave it unset.",
  ),
  DHS_TTS_ELEVENLABS_API_KEY: text(
    { default: undefined },
    "ElevenLabs' key: set, the catalog's `elevenlabs` voices are spoken by ElevenLabs.",
  ),
  DHS_TTS_ELEVENLABS_BASE_URL: url(
    { default: undefined, protocols: ["http:", "https:", "ws:", "wss:"] },
    "ElevenLabs' API root (`https://api.elevenlabs.io/v1`, a regional or residency one); unset, ElevenLabs' own.",
  ),
  DHS_TTS_DEEPGRAM_API_KEY: text(
    { default: undefined },
    "Deepgram's key: set, the catalog's `deepgram` voices (Aura) are spoken by Deepgram.",
  ),
  DHS_TTS_DEEPGRAM_BASE_URL: url(
    { default: undefined, protocols: ["http:", "https:", "ws:", "wss:"] },
    "Deepgram's API root, without `/v1` (`https://api.deepgram.com`, or a self-hosted Deepgram's); unset, Deepgram's own.",
  ),
  DHS_TTS_TIMEOUT_S: decimal(
    { default: 4, above: 0, max: 60 },
    "How long a provider's voice may take to start a sentence, or go quiet within one, before that sentence and the rest of the reply are spoken by the offline voice.",
  ),
  AGENT_HTTP_PORT: integer(
    { default: 8081, min: 0, max: 65535 },
    "Each agent name's health endpoint: this port, the next name's the next one.",
  ),
  AGENT_HTTP_HOST: text(
    { default: "0.0.0.0" },
    "Address of the health and metrics endpoints; all interfaces, so an orchestrator's probe reaches them on the pod's address.",
  ),
  AGENT_MAX_JOBS: integer({ default: 20, min: 1, max: 1000 }, "Sessions one worker runs at once, at most."),
  AGENT_IDLE_PROCESSES: integer(
    { default: 2, min: 0, max: 100 },
    "Job processes kept loaded and waiting (about two seconds of CPU each to load), so the next sessions start at once.",
  ),
  AGENT_LOAD_THRESHOLD: decimal(
    { default: 0.7, above: 0, max: 1 },
    "LiveKit's target load: a worker whose load (host CPU, or its share of `AGENT_MAX_JOBS`) reaches it is sent no job.",
  ),
  AGENT_INITIALIZE_TIMEOUT_S: integer({ default: 30, min: 1, max: 600 }, "A job process not loaded by then is killed and another started."),
  AGENT_METRICS_PORT: integer(
    { default: 9465, min: 0, max: 65535 },
    "Port of Prometheus's `GET /metrics` (`0`: any free port, logged at start).",
  ),
  DHS_VOICE_URL: url(
    { default: undefined, derived: SET_BY_THE_WORKER, protocols: ["http:"] },
    "The worker's voice server on loopback, shared by its jobs; a job process run alone loads its own voice.",
  ),
  DHS_DEFAULT_VOICE: text(
    { default: "slt", derived: "set by the worker for its voice server" },
    "The voice of the catalog spoken for a voice this worker cannot speak: the catalog's first.",
  ),
  DHS_WORKER_REPORT_URL: url(
    { default: undefined, derived: SET_BY_THE_WORKER, protocols: ["http:"] },
    "Where job processes report what the worker's metrics count; a job run alone reports nothing.",
  ),
} satisfies Record<string, Variable>;

export type WorkerConfig = SettingsOf<typeof WORKER_VARIABLES>;

/** The worker's settings from the environment (blank counts as unset); ConfigError names the first bad one. */
export function readWorkerConfig(env: Record<string, string | undefined>): WorkerConfig {
  const config = readSettings(WORKER_VARIABLES, env);
  const dev = (name: "LIVEKIT_API_KEY" | "LIVEKIT_API_SECRET") => config[name] === WORKER_VARIABLES[name].default;
  if (config.NODE_ENV === "production" && (dev("LIVEKIT_API_KEY") || dev("LIVEKIT_API_SECRET"))) {
    throw new ConfigError("LIVEKIT_API_KEY and LIVEKIT_API_SECRET must not be the development ones in production (they are public)");
  }
  if (config.DHS_STT_PROVIDER === "deepgram" && config.DHS_STT_API_KEY === undefined) {
    throw new ConfigError("DHS_STT_API_KEY must be set for DHS_STT_PROVIDER=deepgram (Deepgram takes no request without a key)");
  }
  if (config.DHS_STT_PROVIDER === "openai" && config.DHS_STT_BASE_URL === undefined && config.DHS_STT_API_KEY === undefined) {
    throw new ConfigError("DHS_STT_PROVIDER=openai needs DHS_STT_BASE_URL (a compatible server) or DHS_STT_API_KEY (OpenAI's own)");
  }
  if (
    config.DHS_STT_PROVIDER === "pocketsphinx" &&
    (config.DHS_STT_BASE_URL ?? config.DHS_STT_API_KEY ?? config.DHS_STT_MODEL) !== undefined
  ) {
    throw new ConfigError(
      "DHS_STT_BASE_URL, DHS_STT_API_KEY and DHS_STT_MODEL are for a provider: set DHS_STT_PROVIDER (openai or deepgram) too",
    );
  }
  return config;
}

let ofThisProcess: WorkerConfig | undefined;

/**
 * This process's settings, read once: the worker's, checked at its start (worker.ts), or a job process's,
 * which inherits that environment and what the worker added to it.
 */
export function workerConfig(): WorkerConfig {
  ofThisProcess ??= readWorkerConfig(process.env);
  return ofThisProcess;
}
