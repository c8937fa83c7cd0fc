/**
 * Before the tier: a livekit-server binary of the pinned version (built once from the Go module proxy,
 * then cached), handed to the tests through vitest's provide.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    livekitServer: string;
  }
}

export default function setup(project: TestProject) {
  const script = fileURLToPath(new URL("../../../../scripts/livekit-server.sh", import.meta.url));
  const binary = execFileSync("bash", [script], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
  project.provide("livekitServer", binary);
}
