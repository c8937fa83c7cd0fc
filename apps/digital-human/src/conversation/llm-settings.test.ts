import { ConfigError } from "@dhs/settings";
import { ChatCompletionsServer } from "@dhs/testkit";
import { initializeLogger, llm } from "@livekit/agents";
import { describe, expect, it } from "vitest";
import { testPersona } from "../job/persona.fixture.js";
import { readWorkerConfig } from "../worker/worker-config.js";
import { createLlm, llmSettings } from "./llm-settings.js";

describe("llmSettings", () => {
  it("has no LLM without OPENAI_BASE_URL (or with a blank one)", () => {
    expect(llmSettings(readWorkerConfig({}))).toEqual({ missing: "OPENAI_BASE_URL is not set" });
    expect(llmSettings(readWorkerConfig({ OPENAI_BASE_URL: "  " }))).toEqual({ missing: "OPENAI_BASE_URL is not set" });
  });

  it("reads the OpenAI SDK's variables, with a default model and an 8 s timeout", () => {
    expect(llmSettings(readWorkerConfig({ OPENAI_BASE_URL: "https://api.groq.com/openai/v1", OPENAI_API_KEY: "gsk_x" }))).toEqual({
      settings: { baseUrl: "https://api.groq.com/openai/v1", apiKey: "gsk_x", defaultModel: "gpt-4o-mini", timeoutMs: 8000 },
    });
  });

  it("lets a local server that takes no key go without one, and the deployment name its model and timeout", () => {
    const env = { OPENAI_BASE_URL: "http://127.0.0.1:11434/v1/", DHS_LLM_MODEL: "llama3.2", DHS_LLM_TIMEOUT_S: "2.5" };
    expect(llmSettings(readWorkerConfig(env))).toEqual({
      settings: { baseUrl: "http://127.0.0.1:11434/v1", apiKey: "none", defaultModel: "llama3.2", timeoutMs: 2500 },
    });
  });

  it.each([
    [{ OPENAI_BASE_URL: "localhost:11434" }, 'OPENAI_BASE_URL must start with http:// or https:// (got "localhost:11434")'],
    [{ OPENAI_BASE_URL: "not a url" }, 'OPENAI_BASE_URL must be a URL (got "not a url")'],
    [{ OPENAI_BASE_URL: "ftp://example.com/v1" }, 'OPENAI_BASE_URL must start with http:// or https:// (got "ftp://example.com/v1")'],
    [{ DHS_LLM_TIMEOUT_S: "0" }, 'DHS_LLM_TIMEOUT_S must be a number above 0 and at most 600 (got "0")'],
    [{ DHS_LLM_TIMEOUT_S: "soon" }, 'DHS_LLM_TIMEOUT_S must be a number above 0 and at most 600 (got "soon")'],
  ])("refuses %j at start, saying why", (env, message) => {
    expect(() => readWorkerConfig(env)).toThrow(new ConfigError(message));
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
