/**
 * Every environment variable the service reads, declared once: its default, what it accepts and what it
 * does, and (by its kind, @dhs/settings) how its value is read. The configuration's types are derived from
 * here (`Settings`), and the configuration reference of docs/operators.md is generated from it (`pnpm --filter
 * @dhs/server docs:config`; `pnpm lint` fails when it is stale). Development runs on embedded defaults
 * (in-memory store, LiveKit's `--dev` credentials, a published development key); production refuses them.
 */
import { fileURLToPath } from "node:url";
import { defaultCatalogFile } from "@dhs/catalog";
import { boolean, choice, file, integer, readSettings, type SettingsOf, secondsList, text, url, urls, type Variable } from "@dhs/settings";

const embedded = (name: string) => fileURLToPath(new URL(`../../config/${name}`, import.meta.url));

export const VARIABLES = {
  NODE_ENV: text({ default: "development" }, "`production` refuses every default marked *dev*."),
  PORT: integer({ default: 8080, min: 0, max: 65535 }, "Port to listen on (`0`: any free port)."),
  HOST: text({ default: "0.0.0.0" }, "Address to listen on."),
  METRICS_PORT: integer(
    { default: 9464, min: 0, max: 65535 },
    "Port of the Prometheus `GET /metrics` endpoint, served apart from the API so it never reaches the public ingress (`0`: any free port; the port is logged at start).",
  ),
  HEADERS_TIMEOUT_S: integer(
    { default: 10, min: 1, max: 300 },
    "A request whose headers have not all arrived by then is answered `408` and its connection closed.",
  ),
  REQUEST_TIMEOUT_S: integer(
    { default: 30, min: 1, max: 3_600 },
    "A request (headers and body) that has not all arrived by then is answered `408` and its connection closed; at least `HEADERS_TIMEOUT_S`.",
  ),
  MAX_CONNECTIONS: integer(
    { default: 10_000, min: 1, max: 1_000_000 },
    "Open connections one process accepts; beyond it new ones are closed at accept. Keep it below the process's open-file limit (`ulimit -n`) less a few hundred for Redis, LiveKit and logs.",
  ),
  LOG_LEVEL: choice(
    { default: "info", values: ["fatal", "error", "warn", "info", "debug", "trace", "silent"] },
    "pino level; logs are JSON lines, one per request (request id, route, status, duration), never a key or token.",
  ),
  SHUTDOWN_GRACE_MS: integer(
    { default: 10_000, min: 0, max: 600_000 },
    "How long SIGTERM waits for requests in flight before closing their connections.",
  ),
  REDIS_URL: urls(
    { dev: "in-memory store", refusedInProduction: "the in-memory store is for development only", protocols: ["redis:", "rediss:"] },
    "Redis for sessions, idempotency records, timers and rate limits. With `REDIS_MODE=cluster`, a comma-separated list of seed nodes. Needs `DATABASE_URL`: unset, both, everything is in process memory (development).",
  ),
  REDIS_MODE: choice(
    { default: "standalone", values: ["standalone", "cluster"] },
    "`cluster` for a Redis Cluster (sessions spread over 32 shards, each in one hash slot; see docs/storage.md, *Redis keys*).",
  ),
  REDIS_KEY_PREFIX: text(
    // Braces would change the keys' Redis Cluster hash tags.
    { default: "dhs", format: { pattern: /^[A-Za-z0-9_.:-]{1,32}$/, says: "1-32 characters of A-Z a-z 0-9 _ . : -" } },
    "Prefix of every Redis key (1-32 of `A-Z a-z 0-9 _ . : -`), so deployments or test runs can share one Redis.",
  ),
  REDIS_COMMAND_TIMEOUT_MS: integer(
    { default: 500, min: 50, max: 10_000 },
    "A Redis command not answered by then fails its request with `503`.",
  ),
  DATABASE_URL: url(
    {
      default: undefined,
      dev: "in-memory store",
      refusedInProduction: "production's record of history, configuration and knowledge is PostgreSQL",
      protocols: ["postgres:", "postgresql:"],
    },
    "PostgreSQL, the record of what outlives a session: ended sessions, their transcripts and usage (written there from a queue in Redis, read from there once Redis no longer holds them), the accounts' knowledge, and their digital humans and webhook endpoints with their delivery logs (endpoints and digital humans written there first), their memories; see docs/storage.md. Required in production; unset, with `REDIS_URL` unset too, everything is in process memory (development). Needs `REDIS_URL` and a schema made by `pnpm migrate`.",
  ),
  DATABASE_POOL_SIZE: integer(
    { default: 10, min: 1, max: 200 },
    "PostgreSQL connections one process keeps at most (reads of history and the history writer share them).",
  ),
  DATABASE_STATEMENT_TIMEOUT_MS: integer(
    { default: 2_000, min: 100, max: 60_000 },
    "A PostgreSQL statement or connection attempt not done by then fails: a read of history with `503`, a write of history is retried.",
  ),
  HISTORY_REDIS_KEEP_S: integer(
    { default: 3_600, min: 60, max: 86_400 },
    "With `DATABASE_URL`: how long an ended session stays in Redis once PostgreSQL has it, so the changes that still follow its end (its transcript's last segments and `transcript_ready`) find it; reads find it in either. Longer than `TRANSCRIPT_GRACE_S`. A session whose room's deletion is still owed keeps its retention.",
  ),
  LIVEKIT_URL: url(
    {
      default: "ws://localhost:7880",
      dev: "`ws://localhost:7880`",
      refusedInProduction: "browsers cannot reach the development default",
      protocols: ["ws:", "wss:", "http:", "https:"],
    },
    "LiveKit's address as browsers reach it, returned as `rtc_url`.",
  ),
  LIVEKIT_API_URL: url(
    { default: undefined, derived: "`LIVEKIT_URL` over http(s)", protocols: ["http:", "https:"] },
    "Where this service calls LiveKit's API, when not at `LIVEKIT_URL` (a private address, say).",
  ),
  // What `livekit-server --dev` uses; production refuses them set or not (cross-variable-rules.ts).
  LIVEKIT_API_KEY: text({ default: "devkey", dev: "`devkey`" }, "LiveKit API key: rooms, participant tokens, webhook verification."),
  LIVEKIT_API_SECRET: text({ default: "secret", dev: "`secret`" }, "LiveKit API secret."),
  LIVEKIT_TIMEOUT_MS: integer({ default: 800, min: 50, max: 30_000 }, "A LiveKit call not answered by then fails its request with `503`."),
  LIVEKIT_WEBHOOK_DEDUPE_S: integer(
    { default: 3600, min: 60, max: 86_400 },
    "How long a LiveKit event's id is remembered, so that LiveKit's redelivery of it changes nothing (LiveKit retries a webhook for minutes).",
  ),
  API_KEYS_FILE: file(
    {
      default: embedded("dev-api-keys.json"),
      dev: "`config/dev-api-keys.json`",
      refusedInProduction: "the embedded development key is public",
    },
    "JSON file of API keys (ids, accounts, scopes, SHA-256 of the secret; made with `create-api-key`) and optional per-account limits. Reloaded on SIGHUP and when it changes: a revoked key is refused within seconds.",
  ),
  DIGITAL_HUMANS_FILE: file(
    { default: defaultCatalogFile, derived: "`@dhs/catalog`'s `digital-humans.json` (Ava)" },
    '`{"digital_humans":[{"id":"<uuid>","name":"Ava","agent_name":"ava","description":"...","accounts":["acct_1"]}],"voices":[{"id":"slt","name":"SLT","language":"en"}]}`: the stock digital humans; `description`, `accounts` (who may use it; everyone when absent), `modes` (`["live"]`, `["test"]` or both, the default: which keys\' sessions get it) and the persona (`instructions`, `greeting`, `voice`, `language`, `llm_model`, `max_session_duration_s`) are optional; the first an account may use in a mode is its default there. `voices`, the voices the digital humans\' worker speaks (the first is the default; each with its `language`, its `provider`: `flite`, `espeak`, `openai`, `elevenlabs` or `deepgram`, the provider\'s `provider_voice` and an optional `model`; docs/operators.md, *Choosing the digital human\'s ears and voice*), are the embedded file\'s when absent. `hearing_languages` (`["en"]` when absent) are the languages the workers\' speech-to-text hears: a digital human in another is refused.',
  ),
  ACCOUNT_MAX_DIGITAL_HUMANS: integer(
    { default: 100, min: 1, max: 10_000 },
    "Digital humans of its own an account may have in each mode (`createDigitalHuman`); beyond it a create is answered `422 digital_human_limit_reached`.",
  ),
  ACCOUNT_MAX_OPEN_SESSIONS: integer(
    { default: 20, min: 1, max: 100_000 },
    'Sessions an account may have open (`created` or `active`) at once; beyond it a create is answered `429 concurrency_limit_exceeded`. Per account in the API keys file: `"accounts": [{"id": "acct_1", "max_open_sessions": 50}]`.',
  ),
  TEST_MAX_OPEN_SESSIONS: integer(
    { default: 5, min: 1, max: 100_000 },
    "Sessions an account's test keys may have open at once (their own, apart from the live ones); beyond it a test create is answered `429 concurrency_limit_exceeded`.",
  ),
  PARTICIPANT_TOKEN_TTL_S: integer({ default: 600, min: 30, max: 86_400 }, "Lifetime of a participant token."),
  SESSION_JOIN_TIMEOUT_S: integer(
    { default: 600, min: 1, max: 86_400 },
    "A session nobody joined by then is cancelled and its room deleted.",
  ),
  DIGITAL_HUMAN_JOIN_TIMEOUT_S: integer(
    { default: 60, min: 1, max: 3_600 },
    "An active session whose digital human has not joined by then fails.",
  ),
  DIGITAL_HUMAN_REDISPATCH_S: integer(
    { default: 5, min: 1, max: 300 },
    "While a session's digital human is absent (not joined yet, or left), LiveKit is asked this long after, then with backoff up to every 60 s, whether it still has a live job for it; if not, the agent is dispatched again.",
  ),
  SESSION_DEPARTURE_TIMEOUT_S: integer(
    { default: 30, min: 1, max: 3_600 },
    "An active session whose participant left and did not come back (same identity) by then is completed (`participant_left`) and its room deleted, releasing the digital human.",
  ),
  SESSION_MAX_DURATION_S: integer({ default: 1800, min: 1, max: 86_400 }, "An active session is completed this long after it started."),
  TEST_SESSION_MAX_DURATION_S: integer(
    { default: 300, min: 1, max: 86_400 },
    "A test session (made with a test key) is completed this long after it started, or at SESSION_MAX_DURATION_S if that is shorter.",
  ),
  TRANSCRIPT_GRACE_S: integer(
    { default: 60, min: 1, max: 3600 },
    "How long after its session ended a transcript still takes the digital human's segments, unless it said `final` first; then the transcript is complete and `session.transcript_ready` is sent.",
  ),
  OPENAI_BASE_URL: url(
    { default: undefined, protocols: ["http:", "https:"] },
    "An OpenAI-compatible Chat Completions API (`/v1` included), the same the digital human's worker uses: the service asks it for each session's analysis when its digital human has `analysis`. Unset: a live session's analysis is `failed` with `llm_not_configured` (a test session's waits for `setTestSessionAnalysis`).",
  ),
  OPENAI_API_KEY: text({ default: "" }, "The key sent to `OPENAI_BASE_URL` as a bearer token (empty: none)."),
  ANALYSIS_MODEL: text(
    { default: "gpt-4o-mini", format: { pattern: /^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$/, says: "a model name" } },
    "The model a session's analysis asks when its digital human's `llm.model` names none; it must take structured outputs (`response_format` with a strict JSON schema).",
  ),
  ANALYSIS_TIMEOUT_S: integer(
    { default: 60, min: 5, max: 600 },
    "How long one request for a session's analysis may take; one past it is tried again with growing waits (5 tries), then the analysis is `failed` with `llm_unavailable`.",
  ),
  ANALYSIS_RETRY_S: integer(
    { default: 10, min: 1, max: 600 },
    "How long after a failed request for a session's analysis (the LLM unreachable, past `ANALYSIS_TIMEOUT_S`, 429 or 5xx) the next try is made; each next wait is three times longer (10 s, 30 s, 90 s, 270 s by default: 5 tries in about 7 minutes).",
  ),
  MEMORY_RETENTION_DAYS: integer(
    { default: 90, min: 1, max: 3650 },
    "How long a digital human with `memory` keeps what it remembers about a participant after their last session with it (or the memory's last change); then it is forgotten.",
  ),
  RECORDING_DIR: text(
    { default: "", derived: "`dhs-recordings` in the system's temporary directory" },
    "Where recordings are kept when no `RECORDING_S3_BUCKET` is set: a directory of this machine, which the service serves at its own signed links (one replica, development, `pnpm demo`). Set it to a disk that survives a restart, or use a bucket.",
  ),
  RECORDING_PUBLIC_URL: url(
    { default: undefined, derived: "`http://127.0.0.1:` and the port the service listens on", protocols: ["http:", "https:"] },
    "The service's address as digital human workers and your backend reach it: the local store's upload targets and download links start with it (unused with a bucket).",
  ),
  RECORDING_S3_BUCKET: text(
    { default: "", format: { pattern: /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, says: "an S3 bucket name" } },
    "An S3-compatible bucket for recordings (empty: the local directory, `RECORDING_DIR`). Its credentials come from the environment as the AWS SDK reads them (`AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`, a profile, or the machine's role); digital humans never get them, only a presigned upload for their session's file.",
  ),
  RECORDING_S3_ENDPOINT: url(
    { default: undefined, derived: "AWS S3 in `RECORDING_S3_REGION`", protocols: ["http:", "https:"] },
    "The bucket's S3 endpoint, for any store but AWS's own (Ceph, Garage, SeaweedFS, versitygw, Cloudflare R2, ...).",
  ),
  RECORDING_S3_REGION: text(
    { default: "us-east-1", format: { pattern: /^[a-z0-9-]{1,64}$/, says: "a region name" } },
    "The bucket's region (what the store's signatures name; self-hosted stores usually take `us-east-1`).",
  ),
  RECORDING_S3_PREFIX: text(
    { default: "recordings/", format: { pattern: /^([A-Za-z0-9_-][A-Za-z0-9._-]*\/)*$/, says: "empty or folders each ending in /" } },
    "Where in the bucket the recordings go.",
  ),
  RECORDING_S3_FORCE_PATH_STYLE: boolean(
    false,
    "Address the bucket as `<endpoint>/<bucket>/<key>` rather than `<bucket>.<endpoint>/<key>`: what most self-hosted stores need.",
  ),
  RECORDING_URL_TTL_S: integer(
    { default: 3600, min: 60, max: 604_800 },
    "How long a recording's `url` works (each read of the recording makes a fresh one).",
  ),
  RECORDING_DELIVERY_TIMEOUT_S: integer(
    { default: 600, min: 10, max: 3600 },
    "How long after a recorded session's end its digital human may take to deliver the file; a recording not delivered by then is `failed` (`not_delivered`). Shorter than `HISTORY_REDIS_KEEP_S` with `DATABASE_URL`.",
  ),
  RECORDING_RETENTION_DAYS: integer(
    { default: 30, min: 1, max: 3650 },
    "How long a ready recording's file is kept; then it is deleted from the store (the session's record stays, its recording `deleted`).",
  ),
  SAY_TTL_S: integer(
    { default: 60, min: 1, max: 3600 },
    "How long an utterance of `say` waits to be started (the digital human not joined yet, or saying something else) before it is `expired`.",
  ),
  CONVERSATION_QUEUE_MAX: integer(
    { default: 20, min: 1, max: 50 },
    "Utterances and context notes a session may have queued at once (`429 conversation_queue_full` beyond).",
  ),
  CONVERSATION_CHARACTERS_PER_MINUTE: integer(
    { default: 3000, min: 100, max: 100_000 },
    "Characters of `say` and `addSessionContext` a session may be given a minute (`429 conversation_rate_limited` beyond).",
  ),
  CONVERSATION_MAX_NOTES: integer(
    { default: 50, min: 1, max: 50 },
    "Context notes a session may be given in all (each is handed again to a digital human dispatched again; `409 conversation_notes_limit_reached` beyond).",
  ),
  SESSION_RETENTION_S: integer(
    { default: 30 * 86_400, min: 60, max: 400 * 86_400 },
    "How long a session is kept after it ends (readable and listed); then it expires from Redis by itself, with no timer or sweep. At least `IDEMPOTENCY_KEY_TTL_S`.",
  ),
  IDEMPOTENCY_KEY_TTL_S: integer({ default: 86_400, min: 60, max: 30 * 86_400 }, "How long an `Idempotency-Key` is remembered."),
  IDEMPOTENCY_LOCK_TTL_S: integer(
    { default: 10, min: 1, max: 300 },
    "How long a create that died can hold its key; must exceed `LIVEKIT_TIMEOUT_MS` plus two `REDIS_COMMAND_TIMEOUT_MS`.",
  ),
  SWEEP_INTERVAL_MS: integer(
    { default: 1000, min: 50, max: 60_000 },
    "How often each replica looks for due session timers and customer webhook deliveries; the delivery queue is reconciled every 30 of these.",
  ),
  ROOM_RECONCILE_INTERVAL_S: integer(
    { default: 60, min: 1, max: 3600 },
    "How often one replica lists LiveKit's rooms of this deployment and deletes those whose session is terminal, or missing once the room is older than twice `IDEMPOTENCY_LOCK_TTL_S` and 60 s (a CreateRoom that timed out but happened, for a create nobody retried).",
  ),
  RATE_LIMIT_ENABLED: boolean(true, "Per-API-key rate limits (rate-limiter-flexible, on Redis or in memory)."),
  RATE_LIMIT_PER_SECOND: integer({ default: 100, min: 1, max: 1_000_000 }, "Steady requests per second per key."),
  RATE_LIMIT_BURST: integer(
    { default: 200, min: 1, max: 1_000_000 },
    "Requests a key may make at once (at least `RATE_LIMIT_PER_SECOND`); the allowance refills over 10 s.",
  ),
  WEBHOOK_RETRY_DELAYS_S: secondsList(
    { default: "5,300,1800,7200,18000,36000,36000", count: 20, min: 1, max: 86_400 },
    "Customer webhooks: seconds between attempts after the first (which is at once), comma-separated, 1 to 20 delays of 1 s to 1 day; each varies by up to 20%. The default is Standard Webhooks' schedule.",
  ),
  WEBHOOK_ATTEMPT_TIMEOUT_S: integer(
    { default: 10, min: 1, max: 60 },
    "Customer webhooks: an attempt that has not been answered in full by then fails (`timeout`).",
  ),
  WEBHOOK_CONCURRENCY: integer(
    { default: 50, min: 1, max: 10_000 },
    "Customer webhooks: attempts in flight per replica; one endpoint gets at most a quarter of them.",
  ),
  WEBHOOK_DISABLE_AFTER_S: integer(
    { default: 5 * 86_400, min: 1, max: 30 * 86_400 },
    "Customer webhooks: an endpoint whose every attempt failed for this long is disabled (`failing`).",
  ),
  WEBHOOK_ALLOW_PRIVATE_URLS: boolean(
    false,
    "Customer webhooks: allow endpoints on loopback, private and other internal addresses (tests, local development); refused in production. Plain `http` endpoints are accepted outside production only.",
  ),
  VALIDATE_RESPONSES: boolean(false, "Check every response against the contract (the tests do; costs CPU)."),
} satisfies Record<string, Variable>;

/** Each variable's value as its parser returns it: the types the configuration is made of. */
export type Settings = SettingsOf<typeof VARIABLES>;

/**
 * Reads every variable of the environment (blank counts as unset), refusing first, in production, each
 * development default that must not reach it.
 */
export function readVariables(env: Record<string, string | undefined>): Settings {
  return readSettings(VARIABLES, env);
}
