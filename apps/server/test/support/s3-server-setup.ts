/**
 * The storage tier's S3 server: versitygw's binary, built from the Go module proxy the first time
 * (scripts/s3-server.sh, cached per version), its path handed to the tests through vitest's provide;
 * each test file starts its own gateway on a directory of its own (s3-server.ts).
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    versitygwPath: string;
  }
}

const SCRIPT = fileURLToPath(new URL("../../../../scripts/s3-server.sh", import.meta.url));

export default function setup(project: TestProject) {
  // Minutes on a machine that never built it: the build's own output goes to the run's log.
  const path = execFileSync("bash", [SCRIPT], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], timeout: 900_000 }).trim();
  project.provide("versitygwPath", path);
}
