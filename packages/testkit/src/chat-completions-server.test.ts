import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import {
  ChatCompletionsServer,
  type ChatCompletionsServerOptions,
  type ChatRequest,
  messageText,
  toolCallsAsked,
  toolResults,
} from "./chat-completions-server.js";
import { askedSchema } from "./chat-structured-output.js";

/** One request as a client sends it, over plain fetch, so the wire itself is what the test reads. */
async function post(server: ChatCompletionsServer, body: Record<string, unknown>): Promise<any> {
  const response = await fetch(`${server.baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-test" },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], ...body }),
  });
  if (!body.stream) return response.json();
  const events = (await response.text()).split("\n\n").filter(Boolean);
  expect(events.every((event) => event.startsWith("data: "))).toBe(true);
  expect(events.at(-1)).toBe("data: [DONE]");
  return events.slice(0, -1).map((event) => JSON.parse(event.slice("data: ".length)));
}

/** The calls a stream carries, put together by index as OpenAI's clients do. */
function assemble(chunks: any[]): { id: string; name: string; arguments: string }[] {
  const calls: { id: string; name: string; arguments: string }[] = [];
  for (const chunk of chunks) {
    for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
      calls[delta.index] ??= { id: "", name: "", arguments: "" };
      const call = calls[delta.index] as { id: string; name: string; arguments: string };
      call.id = delta.id ?? call.id;
      call.name = delta.function?.name ?? call.name;
      call.arguments += delta.function?.arguments ?? "";
    }
  }
  return calls;
}

describe("ChatCompletionsServer", () => {
  const started: ChatCompletionsServer[] = [];
  const start = async (options: ChatCompletionsServerOptions = {}) => {
    const server = await new ChatCompletionsServer(options).start();
    started.push(server);
    return { server, client: new OpenAI({ baseURL: server.baseUrl, apiKey: "sk-test", maxRetries: 0 }) };
  };
  afterEach(async () => {
    await Promise.all(started.splice(0).map((server) => server.stop()));
  });

  it("streams the scripted tokens as OpenAI's SDK reads them, and keeps what was asked", async () => {
    const { server, client } = await start({ script: () => ({ tokens: ["It is ", "four ", "o'clock."], firstTokenMs: 50 }) });
    const stream = await client.chat.completions.create({
      model: "persona-model",
      temperature: 0.3,
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "You are Ada." },
        { role: "user", content: "What time is it?" },
      ],
    });
    const deltas: string[] = [];
    let finish: string | null = null;
    let usage: unknown;
    for await (const chunk of stream) {
      deltas.push(chunk.choices[0]?.delta.content ?? "");
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(deltas.join("")).toBe("It is four o'clock.");
    expect(finish).toBe("stop");
    expect(usage).toMatchObject({ completion_tokens: 3 });
    const [request] = server.requests;
    expect(request).toMatchObject({ model: "persona-model", temperature: 0.3, stream: true, apiKey: "sk-test" });
    expect(request?.messages.map((m) => [m.role, messageText(m)])).toEqual([
      ["system", "You are Ada."],
      ["user", "What time is it?"],
    ]);
  });

  it("waits as long as told before the first token", async () => {
    const { client } = await start({ script: () => ({ tokens: ["Hi."], firstTokenMs: 300 }) });
    const asked = Date.now();
    const stream = await client.chat.completions.create({ model: "m", stream: true, messages: [{ role: "user", content: "hi" }] });
    let firstTokenAt = 0;
    for await (const chunk of stream) if (chunk.choices[0]?.delta.content && firstTokenAt === 0) firstTokenAt = Date.now();
    expect(firstTokenAt - asked).toBeGreaterThanOrEqual(280);
  });

  it("answers without streaming as one completion", async () => {
    const { client } = await start({ script: () => ({ tokens: ["One ", "two."] }) });
    const completion = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "count" }] });
    expect(completion.choices[0]?.message.content).toBe("One two.");
  });

  it("answers a structured output with the scripted value, streamed or not, and keeps the schema it was asked for", async () => {
    const lead = { name: "Ada Lovelace", email: "ada@example.com" };
    const { server, client } = await start({ script: () => ({ json: lead }) });
    const schema = {
      type: "object",
      properties: { name: { type: "string" }, email: { type: ["string", "null"] } },
      required: ["name", "email"],
      additionalProperties: false,
    };
    const response_format = { type: "json_schema" as const, json_schema: { name: "lead", schema, strict: true } };
    const completion = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "extract" }],
      response_format,
    });
    expect(JSON.parse(completion.choices[0]?.message.content ?? "")).toEqual(lead);
    const chunks = await post(server, { stream: true, response_format });
    expect(JSON.parse(chunks.map((c: any) => c.choices[0]?.delta.content ?? "").join(""))).toEqual(lead);
    expect(askedSchema(server.requests[0]?.responseFormat)).toEqual(schema);
  });

  it("refuses a response_format the real API refuses: a bad name, or a strict schema that leaves a property optional or allows others", async () => {
    const { server } = await start();
    const asked = (json_schema: Record<string, unknown>) => post(server, { response_format: { type: "json_schema", json_schema } });
    expect((await asked({ name: "a lead", schema: {} })).error.message).toMatch(/json_schema\.name/);
    const optional = { type: "object", properties: { name: { type: "string" } }, required: [], additionalProperties: false };
    expect((await asked({ name: "lead", strict: true, schema: optional })).error.message).toMatch(/'required'.*Missing 'name'/);
    const open = {
      type: "object",
      properties: { tags: { type: "array", items: { type: "object", properties: {} } } },
      required: ["tags"],
      additionalProperties: false,
    };
    expect((await asked({ name: "lead", strict: true, schema: open })).error.message).toMatch(
      /context=\('tags', 'items'\).*additionalProperties/,
    );
    // Not strict: the API takes any schema, and so does this server.
    expect((await asked({ name: "lead", schema: optional })).choices).toHaveLength(1);
    expect(server.requests).toHaveLength(1);
  });

  it("refuses with OpenAI's error body and status, Retry-After included", async () => {
    const { client } = await start({ script: () => ({ status: 429, message: "slow down", retryAfterS: 7 }) });
    const refused = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] }).catch((e) => e);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect(refused.message).toContain("slow down");
    expect(refused.headers.get("retry-after")).toBe("7");
  });

  it("refuses a wrong key with 401 when it is given one", async () => {
    const { server } = await start({ apiKey: "sk-right" });
    const client = new OpenAI({ baseURL: server.baseUrl, apiKey: "sk-wrong", maxRetries: 0 });
    const refused = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] }).catch((e) => e);
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(server.requests).toHaveLength(0);
  });

  it("breaks a stream mid-reply without [DONE]", async () => {
    const { client } = await start({ script: () => ({ tokens: ["Let ", "me ", "think ", "about ", "that."], breakAfter: 2 }) });
    const stream = await client.chat.completions.create({ model: "m", stream: true, messages: [{ role: "user", content: "hi" }] });
    const deltas: string[] = [];
    const broken = await (async () => {
      for await (const chunk of stream) deltas.push(chunk.choices[0]?.delta.content ?? "");
    })().catch((e) => e);
    expect(deltas.join("")).toBe("Let me ");
    expect(broken).toBeInstanceOf(Error);
  });

  it("hangs when told, until the client gives up", async () => {
    const { server, client } = await start({ script: () => "hang" });
    const gaveUp = await client.chat.completions
      .create({ model: "m", messages: [{ role: "user", content: "hi" }] }, { timeout: 200 })
      .catch((e) => e);
    expect(gaveUp).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    expect(server.requests).toHaveLength(1);
  });

  it("lists a model and answers 404 to anything else", async () => {
    const { server, client } = await start();
    expect((await client.models.list()).data.map((m) => m.id)).toEqual(["test-model"]);
    expect((await fetch(`${server.baseUrl}/embeddings`, { method: "POST" })).status).toBe(404);
  });

  it("streams a function call as OpenAI does: its id and name first, then its arguments in pieces", async () => {
    const weather = { city: "Paris", unit: "celsius" };
    const { server } = await start({ script: () => ({ toolCalls: [{ name: "get_weather", arguments: weather }], argumentPieces: 4 }) });
    const chunks = await post(server, { stream: true, stream_options: { include_usage: true } });
    const deltas = chunks.filter((c: any) => c.choices.length > 0).map((c: any) => c.choices[0].delta);
    expect(deltas[0]).toEqual({ role: "assistant", content: null });
    expect(deltas[1]).toEqual({
      tool_calls: [
        { index: 0, id: expect.stringMatching(/^call_\w+$/), type: "function", function: { name: "get_weather", arguments: "" } },
      ],
    });
    const pieces = deltas.slice(2, -1);
    expect(pieces).toHaveLength(4);
    for (const piece of pieces) expect(piece).toEqual({ tool_calls: [{ index: 0, function: { arguments: expect.any(String) } }] });
    expect(deltas.at(-1)).toEqual({});
    expect(chunks.at(-2).choices[0].finish_reason).toBe("tool_calls");
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: 1 } });
    const [call] = assemble(chunks);
    expect(call?.name).toBe("get_weather");
    expect(JSON.parse(call?.arguments ?? "")).toEqual(weather);
  });

  it("calls several functions in one reply after its words, each with its own index and id", async () => {
    const { server } = await start({
      script: () => ({
        tokens: ["Let me ", "check."],
        toolCalls: [
          { id: "call_weather", name: "get_weather", arguments: '{"city":"Oslo"}' },
          { name: "get_time", arguments: { zone: "Europe/Oslo" } },
        ],
      }),
    });
    const chunks = await post(server, { stream: true });
    expect(chunks[0].choices[0].delta).toEqual({ role: "assistant", content: "" });
    const text = chunks.map((c: any) => c.choices[0]?.delta.content ?? "").join("");
    expect(text).toBe("Let me check.");
    const firstCall = chunks.findIndex((c: any) => c.choices[0]?.delta.tool_calls);
    const lastWord = chunks.findLastIndex((c: any) => c.choices[0]?.delta.content);
    expect(lastWord).toBeLessThan(firstCall);
    const calls = assemble(chunks);
    expect(calls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
      ["get_weather", { city: "Oslo" }],
      ["get_time", { zone: "Europe/Oslo" }],
    ]);
    expect(calls[0]?.id).toBe("call_weather");
    expect(calls[1]?.id).toMatch(/^call_\w+$/);
    expect(chunks.at(-1).choices[0].finish_reason).toBe("tool_calls");
  });

  it("answers function calls without streaming as one assistant message", async () => {
    const { server } = await start({ script: () => ({ toolCalls: [{ id: "call_1", name: "end_call", arguments: {} }] }) });
    const completion = await post(server, {});
    expect(completion.choices).toEqual([
      {
        index: 0,
        message: {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: "end_call", arguments: "{}" } }],
        },
        finish_reason: "tool_calls",
      },
    ]);
  });

  it("keeps the tools offered and reads back the calls and results the next request sends", async () => {
    const { server } = await start({
      script: (request) =>
        request.messages.length === 1
          ? {
              toolCalls: [
                { name: "a", arguments: {} },
                { name: "b", arguments: {} },
              ],
            }
          : { tokens: ["Done."] },
    });
    const tools = [{ type: "function", function: { name: "a", parameters: { type: "object", properties: {} } } }];
    const first = await post(server, { tools });
    const asked = first.choices[0].message.tool_calls;
    await post(server, {
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: null, tool_calls: asked },
        { role: "tool", tool_call_id: asked[0].id, content: "sunny" },
        { role: "tool", tool_call_id: asked[1].id, content: [{ type: "text", text: "noon" }] },
      ],
    });
    const [offered, answered] = server.requests as [ChatRequest, ChatRequest];
    expect(offered.tools).toEqual(tools);
    expect(answered.tools).toEqual([]);
    expect(toolCallsAsked(answered)).toEqual(asked);
    expect(toolResults(answered)).toEqual([
      { toolCallId: asked[0].id, content: "sunny" },
      { toolCallId: asked[1].id, content: "noon" },
    ]);
    expect(answered.messages.map(messageText)).toEqual(["hi", "", "sunny", "noon"]);
  });

  it("streams a call that OpenAI's SDK assembles, and takes its result back", async () => {
    const { server, client } = await start({
      script: (request) =>
        toolResults(request).length === 0
          ? { toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }], betweenTokensMs: 5 }
          : { tokens: [`It is ${toolResults(request)[0]?.content}.`] },
    });
    const tools = [
      {
        type: "function" as const,
        function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } },
      },
    ];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "Weather in Paris?" }];
    const stream = client.chat.completions.stream({ model: "m", stream: true, tools, messages });
    const completion = await stream.finalChatCompletion();
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe("tool_calls");
    const call = choice?.message.tool_calls?.[0];
    if (call?.type !== "function") throw new Error("no function call assembled");
    expect(call.function.name).toBe("get_weather");
    expect(JSON.parse(call.function.arguments)).toEqual({ city: "Paris" });
    messages.push(choice?.message as OpenAI.ChatCompletionMessageParam, { role: "tool", tool_call_id: call.id, content: "sunny" });
    const answer = await client.chat.completions.create({ model: "m", tools, messages });
    expect(answer.choices[0]?.message.content).toBe("It is sunny.");
    expect(toolCallsAsked(server.requests[1] as ChatRequest).map((c) => c.id)).toEqual([call.id]);
  });
});
