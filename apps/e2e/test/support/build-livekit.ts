/**
 * Before the tier: a livekit-server binary of the pinned version (built once from the Go module proxy,
 * then cached), and a PostgreSQL database with the service's schema (made by `pnpm migrate`, as an
 * operator makes it) that each stack copies, handed to the tests through vitest's provide.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createDatabase } from "@dhs/testkit";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    livekitServer: string;
    /** The migrated database each stack's service copies (Redis is never without PostgreSQL). */
    databaseTemplate: string;
  }
}

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

export default async function setup(project: TestProject) {
  const script = `${ROOT}scripts/livekit-server.sh`;
  const binary = execFileSync("bash", [script], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
  project.provide("livekitServer", binary);
  const template = await createDatabase({ prefix: "dhs_e2e_template" });
  execFileSync("pnpm", ["--filter", "@dhs/server", "migrate"], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: template.url },
    stdio: ["ignore", "ignore", "inherit"],
  });
  project.provide("databaseTemplate", template.name);
  return () => template.drop();
}
