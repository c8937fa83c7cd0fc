/**
 * Reads a process's declared variables from its environment, all at once at start: the one place either
 * process (the service, the digital human worker) takes a setting from `process.env`.
 */
import type { Variable } from "./builders.js";
import { ConfigError } from "./config-error.js";

/** Each variable's value as its parser returns it: the types a configuration is made of. */
export type SettingsOf<D extends Record<string, Variable>> = { [N in keyof D]: ReturnType<D[N]["parse"]> };

/**
 * Every declared variable of the environment (blank counts as unset), refusing first, in production, each
 * development default that must not reach it; ConfigError names the first that is wrong.
 */
export function readSettings<D extends Record<string, Variable>>(declared: D, env: Record<string, string | undefined>): SettingsOf<D> {
  const names = Object.keys(declared);
  const raw = new Map(names.map((name) => [name, env[name]?.trim() || undefined]));
  if (env.NODE_ENV?.trim() === "production") {
    for (const name of names) {
      const why = declared[name]?.refusedInProduction;
      if (why !== undefined && raw.get(name) === undefined) throw new ConfigError(`${name} must be set in production (${why})`);
    }
  }
  return Object.fromEntries(names.map((name) => [name, declared[name]?.parse(raw.get(name), name)])) as SettingsOf<D>;
}
