import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { ChatCompletionsServer, type ChatCompletionsServerOptions, messageText } from "./chat-completions-server.js";

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
});
