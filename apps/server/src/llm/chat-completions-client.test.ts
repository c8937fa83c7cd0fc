import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { askedSchema, ChatCompletionsServer, type ChatScript, freePort } from "@dhs/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { readAnalysisAnswer } from "../domain/analysis/analysis-answer.js";
import { analysisRequest } from "../domain/analysis/analysis-request.js";
import { type JsonCompletion, LlmCallError } from "../domain/analysis/ports.js";
import { ChatCompletionsClient, MAX_RESPONSE_BYTES } from "./chat-completions-client.js";

const KEY = "sk-test-analysis";
const SCHEMA = { type: "object", additionalProperties: false, required: ["summary"], properties: { summary: { type: "string" } } };
const CALL: JsonCompletion = {
  model: "gpt-test",
  messages: [
    { role: "system", content: "Analyse." },
    { role: "user", content: "1. Participant: Hi." },
  ],
  schemaName: "session_analysis",
  schema: SCHEMA,
  timeoutMs: 5_000,
};

let server: ChatCompletionsServer | undefined;
let raw: Server | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
  raw?.closeAllConnections();
  await new Promise((resolve) => (raw ? raw.close(resolve) : resolve(undefined)));
  raw = undefined;
});

async function serve(script: (n: number) => ChatScript): Promise<{ server: ChatCompletionsServer; client: ChatCompletionsClient }> {
  let n = 0;
  server = await new ChatCompletionsServer({ apiKey: KEY, script: () => script(n++) }).start();
  return { server, client: new ChatCompletionsClient({ baseUrl: server.baseUrl, apiKey: KEY }) };
}

async function failure(promise: Promise<unknown>): Promise<LlmCallError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof LlmCallError)) throw new Error(`expected an LlmCallError, got ${String(error)}`);
  return error;
}

describe("ChatCompletionsClient", () => {
  it("asks for a strict structured output with the key as bearer, and returns the text", async () => {
    const { server, client } = await serve(() => ({ json: { summary: "They said hi." } }));
    expect(JSON.parse(await client.completeJson(CALL))).toEqual({ summary: "They said hi." });
    const [request] = server.requests;
    expect(request?.apiKey).toBe(KEY);
    expect(request?.model).toBe("gpt-test");
    expect(request?.stream).toBe(false);
    expect(request?.messages).toEqual(CALL.messages);
    expect(request?.responseFormat).toEqual({
      type: "json_schema",
      json_schema: { name: "session_analysis", schema: SCHEMA, strict: true },
    });
  });

  it("carries an analysis request the strict rules take, and its answer reads", async () => {
    const settings = { summary: true, data_schema: SCHEMA, success_criteria: ["Said hi"] };
    const segments = [{ id: "s1", speaker: "participant" as const, text: "Hi.", startedAtMs: 0, endedAtMs: 1 }];
    const analysis = analysisRequest({ settings, segments, digitalHumanName: "Ava", memory: { facts: [] } });
    const answer = {
      summary: "Hi.",
      data: { summary: "hi" },
      success_criteria: [{ index: 0, result: "met", reason: "Said hi." }],
      memory_facts: [],
    };
    const { server, client } = await serve(() => ({ json: answer }));
    const text = await client.completeJson({ ...CALL, messages: analysis.messages, schema: analysis.schema });
    expect(askedSchema(server.requests[0]?.responseFormat)).toEqual(analysis.schema);
    expect(readAnalysisAnswer(text, analysis)).toMatchObject({
      ok: true,
      result: { success_criteria: [{ criterion: "Said hi", result: "met" }] },
    });
  });

  it("is refused, not retryably, when the schema breaks the strict rules", async () => {
    const { client } = await serve(() => ({ json: {} }));
    const error = await failure(client.completeJson({ ...CALL, schema: { type: "object", properties: { a: { type: "string" } } } }));
    expect(error).toMatchObject({ kind: "refused", status: 400, retryable: false });
    expect(error.message).toMatch(/^400 Invalid schema for response_format 'session_analysis'/);
  });

  it.each([
    [400, "refused", false],
    [401, "refused", false],
    [403, "refused", false],
    [404, "refused", false],
    [429, "refused", true],
    [500, "failed", true],
    [503, "failed", true],
  ] as const)("classifies a %i as %s, retryable %s", async (status, kind, retryable) => {
    const { server, client } = await serve(() => ({ status, message: `scripted ${status} for the test` }));
    const error = await failure(client.completeJson(CALL));
    expect(error).toMatchObject({ kind, retryable, status, message: `${status} scripted ${status} for the test` });
    // maxRetries 0: the SDK does not try again on its own.
    expect(server.requests).toHaveLength(1);
  });

  it("is refused with a wrong key", async () => {
    const { server } = await serve(() => ({ json: {} }));
    const client = new ChatCompletionsClient({ baseUrl: server.baseUrl, apiKey: "sk-wrong" });
    expect(await failure(client.completeJson(CALL))).toMatchObject({ kind: "refused", status: 401, retryable: false });
  });

  it("asks a deployment's LLM that takes no key (OPENAI_API_KEY empty) with none, rather than refuse to start", async () => {
    server = await new ChatCompletionsServer({ script: () => ({ json: { summary: "Hi." } }) }).start();
    const client = new ChatCompletionsClient({ baseUrl: server.baseUrl, apiKey: "" });
    expect(await client.completeJson(CALL)).toBe(JSON.stringify({ summary: "Hi." }));
    expect(server.requests[0]?.apiKey).toBe("none");
  });

  it("times out on a hang", async () => {
    const { client } = await serve(() => "hang");
    const started = Date.now();
    const error = await failure(client.completeJson({ ...CALL, timeoutMs: 300 }));
    expect(error).toMatchObject({ kind: "timed_out", retryable: true });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("times out on an answer whose body stalls after its headers", async () => {
    raw = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"id": "chatcmpl-1", ');
    });
    await new Promise<void>((resolve) => raw?.listen(0, "127.0.0.1", resolve));
    const client = new ChatCompletionsClient({ baseUrl: `http://127.0.0.1:${(raw.address() as AddressInfo).port}/v1`, apiKey: KEY });
    expect(await failure(client.completeJson({ ...CALL, timeoutMs: 300 }))).toMatchObject({ kind: "timed_out", retryable: true });
  });

  it("is unreachable where nothing listens", async () => {
    const client = new ChatCompletionsClient({ baseUrl: `http://127.0.0.1:${await freePort()}/v1`, apiKey: KEY });
    expect(await failure(client.completeJson(CALL))).toMatchObject({ kind: "unreachable", retryable: true });
  });

  it("reads no more than MAX_RESPONSE_BYTES of an answer: one of 2 MB is refused, not retryably", async () => {
    const { client } = await serve(() => ({ json: { summary: "a".repeat(2_000_000) } }));
    const error = await failure(client.completeJson(CALL));
    expect([error.kind, error.retryable, error.message]).toEqual(["empty", false, `the answer is more than ${MAX_RESPONSE_BYTES} bytes`]);
  });

  it("says an answer without text is empty", async () => {
    const { client } = await serve(() => ({ tokens: ["  "] }));
    expect(await failure(client.completeJson(CALL))).toMatchObject({ kind: "empty", retryable: false });
  });

  it("lets the caller's own abort through as it is", async () => {
    const { client } = await serve(() => "hang");
    const controller = new AbortController();
    const call = client.completeJson({ ...CALL, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(LlmCallError);
  });
});
