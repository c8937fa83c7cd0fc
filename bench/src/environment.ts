/** What the results say they were measured on: the versions of what runs, and the commit of the service. */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { here } from "./settings.js";

export function version(command: string, args: string[]): string {
  try {
    return execFileSync(command, args, { encoding: "utf8" }).trim().split("\n")[0] ?? "";
  } catch {
    return "unknown";
  }
}

export function packageVersion(name: string, from = "../../apps/server/"): string {
  // Resolve the package's entry, then walk up to its package.json (exports may hide that path).
  try {
    let dir = dirname(createRequire(here(`${from}package.json`)).resolve(name));
    while (dir !== dirname(dir)) {
      const manifest = join(dir, "package.json");
      if (existsSync(manifest)) {
        const { name: found, version } = JSON.parse(readFileSync(manifest, "utf8")) as { name?: string; version: string };
        if (found === name) return version;
      }
      dir = dirname(dir);
    }
  } catch {
    // unknown
  }
  return "?";
}

/** The commit the service was built from, marked when the tree had changes. */
export function commit(): string {
  // With BENCH_SERVER the service measured is that build's, so its checkout names the commit.
  const server = process.env.BENCH_SERVER;
  const cwd = server ? dirname(server) : undefined;
  try {
    const sha = execFileSync("git", ["rev-parse", "--short=12", "HEAD"], { encoding: "utf8", cwd }).trim();
    const root = execFileSync("git", ["rev-parse", "--show-toplevel"], { encoding: "utf8", cwd }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--", "apps", "packages"], { encoding: "utf8", cwd: root }).trim();
    const what = `${sha}${dirty ? " with uncommitted changes" : ""}`;
    return server ? `${what} (BENCH_SERVER=${server})` : what;
  } catch {
    return server ? `unknown (BENCH_SERVER=${server})` : "unknown";
  }
}
