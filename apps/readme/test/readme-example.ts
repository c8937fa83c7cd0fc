/**
 * A backend teams' example of the docs (docs/backend.md, found by its heading in whichever file holds
 * it), run as written against `pnpm demo`: its first TypeScript block under the heading, compiled as it
 * stands (TypeScript's own transpiler, no type check: the docs show code, not a project), started with
 * the environment the docs name, and the demo's API called as the docs' reader would, with its test key.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { until } from "@dhs/testkit";
import ts from "typescript";
import type { DocFile } from "./readme-blocks.js";

/** The demo's public test key (its own data, and the test helpers). */
export const TEST_KEY = "dhs_test_dev_insecure_local_key";

/** The first TypeScript block after the heading, in the one file of the docs that has it. */
export function exampleUnder(docs: readonly DocFile[], heading: string): string {
  const holders = docs.filter((doc) => doc.text.includes(heading));
  const [doc] = holders;
  if (holders.length !== 1 || !doc) throw new Error(`${holders.length} files of the docs have the heading "${heading.trim()}"; one must`);
  const block = doc.text.slice(doc.text.indexOf(heading)).match(/```ts\n([\s\S]*?)```/);
  if (!block?.[1]) throw new Error(`${doc.path} has no TypeScript block under "${heading.trim()}"`);
  return block[1];
}

/** Calls the demo's API with its test key; a failure throws with the answer. */
export function apiOf(apiUrl: string) {
  return async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${apiUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${TEST_KEY}`, "Content-Type": "application/json", "Idempotency-Key": randomUUID() },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as Record<string, any>;
  };
}

export interface RunningExample {
  /** What it printed so far. */
  output: () => string;
  stop: () => void;
}

/**
 * Compiles the example into this package's node_modules (so that its imports, @dhs/client and express,
 * resolve as a backend's would), starts it on `port` (PORT) with `env`, and waits until it listens.
 */
export async function startExample(source: string, root: string, port: number, env: Record<string, string>): Promise<RunningExample> {
  const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  const dir = join(root, "apps/readme/node_modules/.readme-examples");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `example-${port}.mjs`);
  writeFileSync(file, js);
  let output = "";
  const child: ChildProcess = spawn(process.execPath, [file], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  try {
    await until(
      () =>
        fetch(`http://localhost:${port}/`).then(
          () => true,
          () => undefined,
        ),
      { what: `the example listening (${output})`, timeoutMs: 20_000 },
    );
  } catch (error) {
    child.kill();
    throw error;
  }
  return { output: () => output, stop: () => void child.kill() };
}
