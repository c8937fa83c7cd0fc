import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError } from "@dhs/settings";
import { describe, expect, it } from "vitest";
import { readWorkerConfig } from "./worker-config.js";

const SRC = fileURLToPath(new URL("..", import.meta.url));

describe("readWorkerConfig", () => {
  it("takes the defaults for what is unset or blank", () => {
    expect(readWorkerConfig({ AGENT_MAX_JOBS: " " })).toMatchObject({
      LIVEKIT_URL: "ws://localhost:7880",
      LIVEKIT_API_KEY: "devkey",
      AGENT_HTTP_PORT: 8081,
      AGENT_MAX_JOBS: 20,
      AGENT_LOAD_THRESHOLD: 0.7,
      AGENT_INITIALIZE_TIMEOUT_S: 30,
      DHS_API_URL: undefined,
      DHS_LLM_TIMEOUT_S: 8,
      DHS_DEFAULT_VOICE: "slt",
      LOG_LEVEL: "info",
    });
  });

  it("reads what is set", () => {
    const config = readWorkerConfig({ AGENT_MAX_JOBS: "4", AGENT_LOAD_THRESHOLD: "0.5", DHS_API_URL: "http://127.0.0.1:8080/" });
    expect([config.AGENT_MAX_JOBS, config.AGENT_LOAD_THRESHOLD, config.DHS_API_URL]).toEqual([4, 0.5, "http://127.0.0.1:8080"]);
  });

  it.each([
    ["AGENT_MAX_JOBS", "twenty", 'AGENT_MAX_JOBS must be an integer from 1 to 1000 (got "twenty")'],
    ["AGENT_HTTP_PORT", "80801", 'AGENT_HTTP_PORT must be an integer from 0 to 65535 (got "80801")'],
    ["AGENT_IDLE_PROCESSES", "-1", 'AGENT_IDLE_PROCESSES must be an integer from 0 to 100 (got "-1")'],
    ["AGENT_LOAD_THRESHOLD", "1.5", 'AGENT_LOAD_THRESHOLD must be a number above 0 and at most 1 (got "1.5")'],
    ["AGENT_LOAD_THRESHOLD", "0", 'AGENT_LOAD_THRESHOLD must be a number above 0 and at most 1 (got "0")'],
    ["LIVEKIT_URL", "localhost:7880", 'LIVEKIT_URL must start with ws:// or wss:// or http:// or https:// (got "localhost:7880")'],
    ["DHS_API_URL", "not a url", 'DHS_API_URL must be a URL (got "not a url")'],
    ["LIVEKIT_OBSERVABILITY_URL", "ftp://x", 'LIVEKIT_OBSERVABILITY_URL must start with http:// or https:// (got "ftp://x")'],
    ["LOG_LEVEL", "loud", 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")'],
  ])("refuses %s=%j with one line naming it (a typo was a silent NaN)", (name, value, message) => {
    expect(() => readWorkerConfig({ [name]: value })).toThrow(new ConfigError(message));
  });

  it.each([
    ["DHS_STT_PROVIDER", "whisper", 'DHS_STT_PROVIDER must be one of pocketsphinx, openai, deepgram (got "whisper")'],
    ["DHS_STT_BASE_URL", "api.deepgram.com", 'DHS_STT_BASE_URL must be a URL (got "api.deepgram.com")'],
    ["DHS_TTS_OPENAI_BASE_URL", "ws://x", 'DHS_TTS_OPENAI_BASE_URL must start with http:// or https:// (got "ws://x")'],
    ["DHS_TTS_TIMEOUT_S", "0", 'DHS_TTS_TIMEOUT_S must be a number above 0 and at most 60 (got "0")'],
  ])("refuses the speech setting %s=%j with one line naming it", (name, value, message) => {
    expect(() => readWorkerConfig({ [name]: value })).toThrow(new ConfigError(message));
  });

  it("takes a speech-to-text provider only with what it needs, and a provider's settings only with the provider", () => {
    expect(() => readWorkerConfig({ DHS_STT_PROVIDER: "deepgram" })).toThrow(
      new ConfigError("DHS_STT_API_KEY must be set for DHS_STT_PROVIDER=deepgram (Deepgram takes no request without a key)"),
    );
    expect(() => readWorkerConfig({ DHS_STT_PROVIDER: "openai" })).toThrow(/^DHS_STT_PROVIDER=openai needs DHS_STT_BASE_URL/);
    expect(() => readWorkerConfig({ DHS_STT_MODEL: "nova-3" })).toThrow(
      /^DHS_STT_BASE_URL, DHS_STT_API_KEY and DHS_STT_MODEL are for a provider/,
    );
    const local = readWorkerConfig({ DHS_STT_PROVIDER: "openai", DHS_STT_BASE_URL: "http://127.0.0.1:8000/v1" });
    expect([local.DHS_STT_PROVIDER, local.DHS_STT_BASE_URL, local.DHS_STT_API_KEY, local.DHS_STT_MODEL]).toEqual([
      "openai",
      "http://127.0.0.1:8000/v1",
      undefined,
      undefined,
    ]);
    expect(readWorkerConfig({}).DHS_STT_PROVIDER).toBe("pocketsphinx");
    expect(readWorkerConfig({}).DHS_TTS_TIMEOUT_S).toBe(4);
  });

  it("refuses in production LiveKit's development address and credentials, set or not", () => {
    const production = { NODE_ENV: "production", LIVEKIT_URL: "wss://livekit.example.com" };
    expect(() => readWorkerConfig({ NODE_ENV: "production" })).toThrow(
      new ConfigError("LIVEKIT_URL must be set in production (the worker must reach the deployment's LiveKit)"),
    );
    expect(() => readWorkerConfig(production)).toThrow(/^LIVEKIT_API_KEY must be set in production/);
    expect(() => readWorkerConfig({ ...production, LIVEKIT_API_KEY: "devkey", LIVEKIT_API_SECRET: "secret" })).toThrow(
      new ConfigError("LIVEKIT_API_KEY and LIVEKIT_API_SECRET must not be the development ones in production (they are public)"),
    );
    const config = readWorkerConfig({ ...production, LIVEKIT_API_KEY: "APIabc", LIVEKIT_API_SECRET: "a-secret-of-the-deployment" });
    expect(config.LIVEKIT_API_KEY).toBe("APIabc");
  });
});

describe("the worker's reading of its environment", () => {
  it("is this module's alone: no other module reads process.env (the worker writes what its children inherit)", () => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory()
          ? files(join(dir, entry.name))
          : entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")
            ? [join(dir, entry.name)]
            : [],
      );
    const readers = files(SRC).flatMap((path) => {
      if (path === fileURLToPath(new URL("worker-config.ts", import.meta.url))) return [];
      const name = relative(SRC, path);
      const lines = readFileSync(path, "utf8").split("\n");
      return lines.flatMap((line, i) => {
        if (!line.includes("process.env")) return [];
        // The worker hands its environment on to the processes it starts; PATH is the system's search for programs, not a setting.
        if (name === "worker.ts" && /^const env = process\.env;$/.test(line)) return [];
        if (line.includes("process.env.PATH")) return [];
        return [`${name}:${i + 1}: ${line.trim()}`];
      });
    });
    expect(readers).toEqual([]);
  });
});
