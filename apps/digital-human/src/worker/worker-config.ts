/**
 * Every environment variable the worker process reads, declared once with its default, what it accepts
 * and what it does, as the service declares its own (apps/server/src/config/variables.ts). A value it
 * does not accept stops the start with one line naming the variable (`configuration error: ...`), never
 * a silent NaN. The LLM's variables are read by conversation/llm-settings.ts, which checks them alike.
 * Job processes inherit the environment; the worker sets in it what they need (worker.ts).
 */

export class WorkerConfigError extends Error {
  override readonly name = "WorkerConfigError";
}

type Parser<T> = (raw: string | undefined, name: string) => T;

function integer(fallback: number, min: number, max: number): Parser<number> {
  return (raw, name) => {
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      throw new WorkerConfigError(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
    }
    return Number(raw);
  };
}

/** A share of the machine: above 0, at most 1. */
function fraction(fallback: number): Parser<number> {
  return (raw, name) => {
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!/^\d*\.?\d+$/.test(raw) || !(value > 0 && value <= 1)) {
      throw new WorkerConfigError(`${name} must be a number above 0 and at most 1 (got "${raw}")`);
    }
    return value;
  };
}

function text(fallback: string): Parser<string> {
  return (raw) => raw ?? fallback;
}

function optionalText(): Parser<string | undefined> {
  return (raw) => raw;
}

function url<D extends string | undefined>(protocols: readonly string[], fallback: D): Parser<string | D> {
  return (raw, name) => {
    if (raw === undefined) return fallback;
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      throw new WorkerConfigError(`${name} must be a URL (got "${raw}")`);
    }
    if (!protocols.includes(parsed.protocol.slice(0, -1))) {
      throw new WorkerConfigError(`${name} must be a ${protocols.join(" or ")} URL (got "${raw}")`);
    }
    return raw;
  };
}

function choice<V extends string>(fallback: V, values: readonly V[]): Parser<V> {
  return (raw, name) => {
    if (raw === undefined) return fallback;
    if (!(values as readonly string[]).includes(raw))
      throw new WorkerConfigError(`${name} must be one of ${values.join(", ")} (got "${raw}")`);
    return raw as V;
  };
}

export const WORKER_VARIABLES = {
  NODE_ENV: text("development"),
  LOG_LEVEL: choice("info", ["fatal", "error", "warn", "info", "debug", "trace", "silent"]),
  /** LiveKit, as the service reaches it; `livekit-server --dev`'s by default. */
  LIVEKIT_URL: url(["ws", "wss", "http", "https"], "ws://localhost:7880"),
  LIVEKIT_API_KEY: text("devkey"),
  LIVEKIT_API_SECRET: text("secret"),
  /** The catalog whose agent names it registers (the deployment's default one otherwise). */
  DIGITAL_HUMANS_FILE: optionalText(),
  /** The service's address: where jobs post transcripts and take what backends queued; without it they only caption. */
  DHS_API_URL: url(["http", "https"], undefined),
  /** Each agent name's health endpoint: this port, the next name's the next one. */
  AGENT_HTTP_PORT: integer(8081, 0, 65535),
  /** All interfaces by default, so an orchestrator's probe reaches the health endpoint on the pod's address. */
  AGENT_HTTP_HOST: text("0.0.0.0"),
  /** Sessions one worker runs at once, at most. */
  AGENT_MAX_JOBS: integer(20, 1, 1000),
  /** Job processes kept loaded and waiting, so the next sessions start at once. */
  AGENT_IDLE_PROCESSES: integer(2, 0, 100),
  /** LiveKit's target load (agents.target_load): it sends no job to a worker whose load reaches it. */
  AGENT_LOAD_THRESHOLD: fraction(0.7),
  /** A job process not loaded by then is killed and another started. */
  AGENT_INITIALIZE_TIMEOUT_S: integer(30, 1, 600),
  /** Prometheus's GET /metrics; 0: any free port, logged at start. */
  AGENT_METRICS_PORT: integer(9465, 0, 65535),
};

export type WorkerConfig = { [K in keyof typeof WORKER_VARIABLES]: ReturnType<(typeof WORKER_VARIABLES)[K]> };

/** The worker's settings from the environment (blank counts as unset); WorkerConfigError names the first bad one. */
export function readWorkerConfig(env: NodeJS.ProcessEnv): WorkerConfig {
  const read = Object.entries(WORKER_VARIABLES).map(([name, parse]) => {
    const raw = env[name]?.trim();
    return [name, parse(raw === "" ? undefined : raw, name)] as const;
  });
  return Object.fromEntries(read) as WorkerConfig;
}
