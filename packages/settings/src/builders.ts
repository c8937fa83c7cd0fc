/**
 * The kinds of environment variable. Each builder makes one variable's whole declaration: what the
 * operators' configuration table shows of it (its kind, default, bounds or choices, description) and how
 * its value is read (`parse`). A parser is given the value trimmed, or undefined when unset or blank, and
 * returns what the configuration holds (the default when unset), or throws one line that names the
 * variable and the value. The configuration's types are what these parsers return: nothing restates them.
 */
import { ConfigError } from "./config-error.js";

/**
 * What the configuration table shows instead of a default: `dev`, a development default production refuses (saying
 * why in `refusedInProduction` when production must set the variable); `derived`, one computed at start.
 */
export interface Defaults {
  dev?: string;
  derived?: string;
  refusedInProduction?: string;
}

/** Any declaration, as the configuration table and the reader of the environment see it. */
export type Variable = Defaults & {
  description: string;
  parse(raw: string | undefined, name: string): unknown;
} & (
    | { kind: "text" | "file"; default: string | undefined }
    | { kind: "url"; default: string | undefined; protocols: readonly string[] }
    | { kind: "integer"; default: number; min: number; max: number }
    | { kind: "number"; default: number; above: number; max: number }
    | { kind: "boolean"; default: boolean }
    | { kind: "choice"; default: string; values: readonly string[] }
  );

export function integer(bounds: Defaults & { default: number; min: number; max: number }, description: string) {
  const { min, max } = bounds;
  return {
    kind: "integer" as const,
    ...bounds,
    description,
    parse(raw: string | undefined, name: string): number {
      if (raw === undefined) return bounds.default;
      if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
        throw new ConfigError(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      }
      return Number(raw);
    },
  };
}

/** A decimal number above `above` and at most `max` (a share of the machine, seconds with a fraction). */
export function decimal(bounds: Defaults & { default: number; above: number; max: number }, description: string) {
  const { above, max } = bounds;
  return {
    kind: "number" as const,
    ...bounds,
    description,
    parse(raw: string | undefined, name: string): number {
      if (raw === undefined) return bounds.default;
      const value = Number(raw);
      if (!/^\d*\.?\d+$/.test(raw) || !(value > above && value <= max)) {
        throw new ConfigError(`${name} must be a number above ${above} and at most ${max} (got "${raw}")`);
      }
      return value;
    },
  };
}

/** `true`/`false` or `1`/`0`, in any case. */
export function boolean(fallback: boolean, description: string) {
  return {
    kind: "boolean" as const,
    default: fallback,
    description,
    parse(raw: string | undefined, name: string): boolean {
      const value = raw?.toLowerCase();
      if (value === undefined) return fallback;
      if (value === "true" || value === "1") return true;
      if (value === "false" || value === "0") return false;
      throw new ConfigError(`${name} must be true or false (got "${value}")`);
    },
  };
}

export function choice<const V extends readonly [string, ...string[]]>(spec: { default: V[number]; values: V }, description: string) {
  const isValue = (raw: string): raw is V[number] => spec.values.includes(raw);
  return {
    kind: "choice" as const,
    ...spec,
    description,
    parse(raw: string | undefined, name: string): V[number] {
      if (raw === undefined) return spec.default;
      if (!isValue(raw)) throw new ConfigError(`${name} must be one of ${spec.values.join(", ")} (got "${raw}")`);
      return raw;
    },
  };
}

/**
 * Free text, undefined by default when `default` is; `format`, when given, is a pattern the value must
 * match and how the error says it in words.
 */
export function text<D extends string | undefined>(
  spec: Defaults & { default: D; format?: { pattern: RegExp; says: string } },
  description: string,
) {
  return {
    kind: "text" as const,
    ...spec,
    description,
    parse(raw: string | undefined, name: string): string | D {
      if (raw === undefined) return spec.default;
      if (spec.format && !spec.format.pattern.test(raw)) throw new ConfigError(`${name} must be ${spec.format.says} (got "${raw}")`);
      return raw;
    },
  };
}

/** The path of one of the operator's files; the default is the file the package carries, or none. */
export function file<D extends string | undefined>(spec: Defaults & { default: D }, description: string) {
  return { kind: "file" as const, ...spec, description, parse: (raw: string | undefined): string | D => raw ?? spec.default };
}

/** A URL with one of `protocols` (`"https:"`), without its trailing slashes. */
export function url<D extends string | undefined>(spec: Defaults & { default: D; protocols: readonly string[] }, description: string) {
  return {
    kind: "url" as const,
    ...spec,
    description,
    parse: (raw: string | undefined, name: string): string | D =>
      raw === undefined ? spec.default : checkedUrl(name, raw, spec.protocols),
  };
}

/** A comma-separated list of URLs (seed nodes), each with one of `protocols`; held as it was written. */
export function urls(spec: Defaults & { protocols: readonly string[] }, description: string) {
  return {
    kind: "url" as const,
    default: undefined,
    ...spec,
    description,
    parse(raw: string | undefined, name: string): string | undefined {
      for (const seed of raw?.split(",") ?? []) checkedUrl(name, seed.trim(), spec.protocols);
      return raw;
    },
  };
}

/** A schedule: 1 to `count` comma-separated whole seconds, each from `min` to `max`; the configuration table shows it as text. */
export function secondsList(spec: { default: string; count: number; min: number; max: number }, description: string) {
  const { count, min, max } = spec;
  const digits = new RegExp(`^[0-9]{1,${String(max).length}}$`);
  return {
    kind: "text" as const,
    default: spec.default,
    description,
    parse(raw: string | undefined, name: string): number[] {
      const value = raw ?? spec.default;
      const seconds = value.split(",").map((part) => part.trim());
      if (seconds.length > count || seconds.some((s) => !digits.test(s) || Number(s) < min || Number(s) > max)) {
        throw new ConfigError(`${name} must be 1 to ${count} comma-separated whole seconds from ${min} to ${max}, got "${value}"`);
      }
      return seconds.map(Number);
    },
  };
}

function checkedUrl(name: string, raw: string, protocols: readonly string[]): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL (got "${raw}")`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.map((p) => `${p}//`).join(" or ")} (got "${raw}")`);
  }
  return raw.replace(/\/+$/, "");
}
