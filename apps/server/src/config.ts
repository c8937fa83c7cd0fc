/**
 * All configuration comes from the environment and is parsed here, once, at start. A bad value stops the
 * start with one line that names the variable, so an operator sees the mistake rather than a stack.
 */

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
const LOG_LEVELS: readonly LogLevel[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

export interface Config {
  nodeEnv: string;
  production: boolean;
  port: number;
  host: string;
  logLevel: LogLevel;
  /** How long SIGTERM waits for in-flight requests before closing them. */
  shutdownGraceMs: number;
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === "") return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(", ")} (got "${raw}")`);
  }
  return raw as T;
}

export function loadConfig(env: Env = process.env): Config {
  const nodeEnv = env.NODE_ENV?.trim() || "development";
  return {
    nodeEnv,
    production: nodeEnv === "production",
    port: integer(env, "PORT", 8080, 0, 65535),
    host: env.HOST?.trim() || "0.0.0.0",
    logLevel: oneOf(env, "LOG_LEVEL", LOG_LEVELS, "info"),
    shutdownGraceMs: integer(env, "SHUTDOWN_GRACE_MS", 10_000, 0, 600_000),
  };
}
