/**
 * The backend teams' "Bring your own brain" example (docs/backend.md, found by its heading in whichever
 * file of the docs holds it), run as written against `pnpm demo`: its TypeScript block is compiled as it
 * stands (TypeScript's own transpiler, no type check: the docs show code, not a project), started with
 * the environment the docs name, given a webhook endpoint of its own, and sent a participant's turn by
 * the test helpers; the utterance it queues with `say` must be its answer.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort, until } from "@dhs/testkit";
import ts from "typescript";
import type { DocFile } from "./readme-blocks.js";

/** The demo's public test key (its own data, and the test helpers). */
const TEST_KEY = "dhs_test_dev_insecure_local_key";
const HEADING = "\n## Bring your own brain";

/** The first TypeScript block after the heading, in the one file of the docs that has it. */
export function brainExample(docs: readonly DocFile[]): string {
  const holders = docs.filter((doc) => doc.text.includes(HEADING));
  const [doc] = holders;
  if (holders.length !== 1 || !doc) throw new Error(`${holders.length} files of the docs have the heading "${HEADING.trim()}"; one must`);
  const block = doc.text.slice(doc.text.indexOf(HEADING)).match(/```ts\n([\s\S]*?)```/);
  if (!block?.[1]) throw new Error(`${doc.path} has no TypeScript block under "${HEADING.trim()}"`);
  return block[1];
}

export async function checkBrainExample(docs: readonly DocFile[], root: string, apiUrl: string): Promise<{ answer: string }> {
  const source = ts.transpileModule(brainExample(docs), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  // Inside this package's node_modules, so that its imports (@dhs/client, express) resolve as a backend's would.
  const dir = join(root, "apps/readme/node_modules/.readme-brain");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "brain.mjs");
  writeFileSync(file, source);

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${apiUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${TEST_KEY}`, "Content-Type": "application/json", "Idempotency-Key": randomUUID() },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as Record<string, any>;
  };
  const port = await freePort();
  const endpoint = await call("POST", "/v1/webhook-endpoints", {
    url: `http://localhost:${port}/dhs-turns`,
    event_types: ["session.participant_turn"],
  });
  let brain: ChildProcess | undefined;
  let output = "";
  try {
    brain = spawn(process.execPath, [file], {
      env: { ...process.env, DHS_URL: apiUrl, DHS_API_KEY: TEST_KEY, DHS_WEBHOOK_SECRET: endpoint.secret, PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    brain.stdout?.on("data", (chunk) => (output += chunk));
    brain.stderr?.on("data", (chunk) => (output += chunk));
    await until(
      () =>
        fetch(`http://localhost:${port}/`).then(
          () => true,
          () => undefined,
        ),
      { what: `the example listening (${output})`, timeoutMs: 20_000 },
    );

    const session = await call("POST", "/v1/sessions", {});
    await call("POST", `/v1/test-helpers/sessions/${session.id}/events`, { type: "participant_turn", text: "Where is my order?" });
    // What the example queued: an interruption drops it and names it (the demo's test session has nobody to say it to).
    const dropped = await until(
      async () => {
        const { utterance_ids } = await call("POST", `/v1/sessions/${session.id}/interrupt`);
        return utterance_ids.length > 0 ? (utterance_ids as string[]) : undefined;
      },
      { what: `the example's say (its output: ${output})`, timeoutMs: 20_000 },
    );
    const utterance = await call("GET", `/v1/sessions/${session.id}/say/${dropped[0]}`);
    await call("POST", `/v1/sessions/${session.id}/end`);
    return { answer: utterance.text };
  } finally {
    brain?.kill();
    await call("DELETE", `/v1/webhook-endpoints/${endpoint.id}`).catch(() => undefined);
  }
}
