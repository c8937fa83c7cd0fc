/**
 * Backend teams in Go: the "Other languages" commands of docs/backend.md, run as written in a new Go module,
 * generate a client from openapi/v1.yaml with oapi-codegen's defaults; docs/backend.md's Go example and a
 * program that walks the API with it (go-client/check) must build, and run against the real server (on
 * Redis, with a real LiveKit), a digital human's webhook tool included (called with the test helper, posted
 * to a receiver of the test's). A contract change that breaks Go generation, or a doc that no longer works
 * for a Go team, fails here.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createClient, verifyToolCall } from "@dhs/client";
import { until, WebhookReceiver } from "@dhs/testkit";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { DEV_API_KEY, DEV_TEST_API_KEY, type Stack, startStack, TIMEOUTS } from "./support/stack.js";

const run = promisify(execFile);
const root = (path: string) => fileURLToPath(new URL(`../../../${path}`, import.meta.url));

/** The "Other languages" section of docs/backend.md: its shell commands and its Go example. */
function readmeGo(): { commands: string[]; example: string } {
  const readme = readFileSync(root("docs/backend.md"), "utf8");
  const start = readme.indexOf("\n## Other languages");
  if (start < 0) throw new Error('docs/backend.md has no "## Other languages" section');
  const end = readme.slice(start + 1).search(/\n##+ /);
  const section = end < 0 ? readme.slice(start) : readme.slice(start, start + 1 + end);
  const block = (fence: string) => new RegExp(`\`\`\`${fence}\\n([\\s\\S]*?)\`\`\``).exec(section)?.[1];
  const sh = block("sh");
  const example = block("go");
  if (!sh || !example) throw new Error("the Other languages section of docs/backend.md lacks its ```sh or ```go block");
  return { commands: sh.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("#")), example };
}

// Go itself: the local toolchain only (a module's go line never downloads another), modules from the proxy.
const goEnv = { ...process.env, GOTOOLCHAIN: "local", GOFLAGS: "" };

let dir: string;
let stack: Stack;
/**
 * The endpoint of the Go program's webhook tool, on loopback (the stack allows private webhook URLs): it
 * keeps every POST and answers each as the customer's order_status tool would.
 */
const toolEndpoint = new WebhookReceiver({
  answer: () => ({ status: 200, body: JSON.stringify({ result: { status: "shipped" } }) }),
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "dhs-go-client-"));
  await toolEndpoint.start();
  stack = await startStack(inject("livekitServer"), TIMEOUTS, "api");
});

afterAll(async () => {
  await stack?.stop();
  await toolEndpoint.stop();
});

describe("a Go client generated from openapi/v1.yaml with oapi-codegen's defaults", () => {
  it("the doc's commands generate it in a new module, and it builds with the doc's example and the check program", async () => {
    mkdirSync(join(dir, "openapi"));
    copyFileSync(root("openapi/v1.yaml"), join(dir, "openapi/v1.yaml"));
    await run("go", ["mod", "init", "example.com/app"], { cwd: dir, env: goEnv });
    for (const command of readmeGo().commands) {
      await run("bash", ["-c", command], { cwd: dir, env: goEnv, timeout: 300_000 }).catch((error: { stderr?: string }) => {
        throw new Error(`docs/backend.md command failed: ${command}\n${error.stderr ?? error}`);
      });
    }
    mkdirSync(join(dir, "example"));
    writeFileSync(join(dir, "example/main.go"), readmeGo().example);
    mkdirSync(join(dir, "check"));
    copyFileSync(root("apps/e2e/go-client/check/main.go"), join(dir, "check/main.go"));
    await run("go", ["vet", "./..."], { cwd: dir, env: goEnv, timeout: 300_000 });
    await run("go", ["build", "-o", "bin/", "./check", "./example"], { cwd: dir, env: goEnv, timeout: 300_000 });
  }, 600_000);

  it("creates with an Idempotency-Key, replays, gets 409 on a reused key, gets, lists, drives the session (says, replays, reads, adds context, interrupts), ends, is refused a say after the end, reads 401 and 422 codes as strings, makes, uses, changes and deletes a digital human, and calls a digital human's webhook tool with the test helper", async () => {
    const { stdout } = await run(join(dir, "bin/check"), [], {
      env: {
        ...goEnv,
        DHS_URL: stack.apiUrl,
        DHS_API_KEY: DEV_API_KEY,
        DHS_TEST_API_KEY: DEV_TEST_API_KEY,
        DHS_TOOL_URL: toolEndpoint.url,
      },
      timeout: 60_000,
    }).catch((error: { stderr?: string }) => {
      throw new Error(`the Go check program failed: ${error.stderr ?? error}`);
    });
    const seen = JSON.parse(stdout) as Record<string, unknown>;
    expect(seen).toMatchObject({
      replayed: "true",
      replayed_same_id: true,
      reused_key_code: "idempotency_key_reused",
      got_status: "created",
      listed: true,
      bad_key_code: "unauthorized",
      invalid_code: "validation_failed",
      invalid_code_known: true,
      // Ended before anyone joined.
      ended_status: "cancelled",
      persona_kind: "custom",
      persona_renamed: "Go Mia",
      persona_greeting_cleared: true,
      persona_deleted: true,
      // Nothing joined (this stack has no digital human worker): the utterance and the note wait for it,
      // and the interruption drops the utterance.
      utterance_status: "queued",
      say_replayed: "true",
      say_replayed_same_id: true,
      got_utterance_status: "queued",
      context_note_status: "queued",
      interrupted_utterance_ids: [seen.utterance_id],
      interrupted_utterance_status: "interrupted",
      say_after_end_status: 409,
      say_after_end_code: "session_ended",
      say_after_end_code_known: true,
    });
    expect(seen.utterance_id).toMatch(/^utt_[0-9a-f]{24}$/);
    expect(seen.context_note_id).toMatch(/^ctx_[0-9a-f]{24}$/);
    // The server's own view of what the Go client did.
    const api = createClient({ baseUrl: stack.apiUrl, apiKey: DEV_API_KEY, maxRetries: 0 });
    const { data: session } = await api.getSession(seen.session_id as string);
    expect(session).toMatchObject({ id: seen.session_id, room_name: seen.room_name, status: "cancelled" });
    // One utterance for the said-twice key, still interrupted, never said.
    const { data: utterance } = await api.getUtterance(seen.session_id as string, seen.utterance_id as string);
    expect(utterance).toMatchObject({ id: seen.utterance_id, session_id: seen.session_id, status: "interrupted", started_at: null });
    const { data: list } = await api.listSessions({ limit: 100 });
    expect(list?.data.find((item) => item.id === seen.session_id)?.tags).toEqual(["go-client"]);
    // The session the Go client made of its digital human names it, and the digital human is gone.
    expect(list?.data.find((item) => item.id === seen.persona_session_id)?.digital_human_id).toBe(seen.persona_id);
    expect((await api.getDigitalHuman(seen.persona_id as string)).response.status).toBe(404);

    // The webhook tool, with the test key: the union Tool built and read back, the call answered with what
    // the endpoint said, and listed.
    expect(seen).toMatchObject({
      tool_type: "webhook",
      tool_endpoint_echoed: true,
      tool_timeout_ms: 5000,
      tool_call_type: "webhook",
      tool_call_status: "succeeded",
      tool_call_succeeded: true,
      tool_call_result: { status: "shipped" },
      tool_call_arguments: { order_id: "A-1" },
      tool_calls_listed: [seen.tool_call_id],
      tool_session_ended_status: "cancelled",
    });
    expect(seen.tool_call_id).toMatch(/^call_test_/);
    // The endpoint got the call once, signed with its secret, as a customer's receiver verifies it.
    const posted = toolEndpoint.of("session.tool_call");
    expect(posted).toHaveLength(1);
    const call = verifyToolCall(posted[0]?.raw ?? "", posted[0]?.headers ?? {}, seen.tool_endpoint_secret as string);
    expect(call).toMatchObject({
      type: "session.tool_call",
      mode: "test",
      data: {
        tool_call_id: seen.tool_call_id,
        session_id: seen.tool_session_id,
        digital_human_id: seen.tool_persona_id,
        name: "order_status",
        arguments: { order_id: "A-1" },
      },
    });
    // Then the session.tool_called event the endpoint asked for, with the call as recorded.
    const toolCalled = await until(() => toolEndpoint.of("session.tool_called")[0], {
      what: "the session.tool_called event",
      timeoutMs: 15_000,
    });
    expect(toolCalled.body.data).toMatchObject({
      session_id: seen.tool_session_id,
      tool_call: { id: seen.tool_call_id, status: "succeeded", result: { status: "shipped" } },
    });
    const test = createClient({ baseUrl: stack.apiUrl, apiKey: DEV_TEST_API_KEY, maxRetries: 0 });
    const { data: calls } = await test.listSessionToolCalls(seen.tool_session_id as string);
    expect(calls?.data).toMatchObject([
      { id: seen.tool_call_id, name: "order_status", status: "succeeded", result: { status: "shipped" } },
    ]);
  });

  it("docs/backend.md's Go example creates a session and prints its room's address", async () => {
    const { stdout } = await run(join(dir, "bin/example"), [], {
      env: { ...goEnv, DHS_URL: stack.apiUrl, DHS_API_KEY: DEV_API_KEY },
      timeout: 60_000,
    });
    expect(stdout).toContain(stack.livekitUrl);
  });
});
