import { ChatCompletionsServer } from "@dhs/testkit";
import { initializeLogger, llm } from "@livekit/agents";
import { describe, expect, it } from "vitest";
import { testPersona } from "../job/persona.fixture.js";
import { createLlm, llmSettings } from "./llm-settings.js";

describe("llmSettings", () => {
  it("has no LLM without OPENAI_BASE_URL (or with a blank one)", () => {
    expect(llmSettings({})).toEqual({ missing: "OPENAI_BASE_URL is not set" });
    expect(llmSettings({ OPENAI_BASE_URL: "  " })).toEqual({ missing: "OPENAI_BASE_URL is not set" });
  });

  it("reads the OpenAI SDK's variables, with a default model and an 8 s timeout", () => {
    expect(llmSettings({ OPENAI_BASE_URL: "https://api.groq.com/openai/v1", OPENAI_API_KEY: "gsk_x" })).toEqual({
      settings: { baseUrl: "https://api.groq.com/openai/v1", apiKey: "gsk_x", defaultModel: "gpt-4o-mini", timeoutMs: 8000 },
    });
  });

  it("lets a local server that takes no key go without one, and the deployment name its model and timeout", () => {
    const lookup = llmSettings({ OPENAI_BASE_URL: "http://127.0.0.1:11434/v1", DHS_LLM_MODEL: "llama3.2", DHS_LLM_TIMEOUT_S: "2.5" });
    expect(lookup).toEqual({
      settings: { baseUrl: "http://127.0.0.1:11434/v1", apiKey: "none", defaultModel: "llama3.2", timeoutMs: 2500 },
    });
  });

  it.each([
    [{ OPENAI_BASE_URL: "localhost:11434" }, /not an http\(s\) address|not an address/],
    [{ OPENAI_BASE_URL: "not a url" }, /not an address/],
    [{ OPENAI_BASE_URL: "ftp://example.com/v1" }, /not an http\(s\) address/],
    [{ OPENAI_BASE_URL: "http://127.0.0.1/v1", DHS_LLM_TIMEOUT_S: "0" }, /DHS_LLM_TIMEOUT_S/],
    [{ OPENAI_BASE_URL: "http://127.0.0.1/v1", DHS_LLM_TIMEOUT_S: "soon" }, /DHS_LLM_TIMEOUT_S/],
  ])("refuses %j, saying why", (env, why) => {
    const lookup = llmSettings(env);
    expect("invalid" in lookup && lookup.invalid).toMatch(why);
  });
});

describe("createLlm", () => {
  initializeLogger({ pretty: false, level: "warn" });

  it.each([
    [0, 0],
    [0.4, 0.4],
    [undefined, undefined],
  ])("sends a persona's temperature %s as %s, through the plugin to a Chat Completions server", async (given, sent) => {
    const server = await new ChatCompletionsServer().start();
    try {
      const settings = { baseUrl: server.baseUrl, apiKey: "k", defaultModel: "m", timeoutMs: 8000 };
      const model = createLlm(settings, testPersona({ llm: { model: undefined, temperature: given } }));
      const chatCtx = llm.ChatContext.empty();
      chatCtx.addMessage({ role: "user", content: "Hello?" });
      for await (const _chunk of model.chat({ chatCtx })) void _chunk;
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]?.body.temperature).toBe(sent);
    } finally {
      await server.stop();
    }
  });
});
