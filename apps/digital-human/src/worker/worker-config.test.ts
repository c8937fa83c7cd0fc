import { describe, expect, it } from "vitest";
import { readWorkerConfig, WorkerConfigError } from "./worker-config.js";

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
      LOG_LEVEL: "info",
    });
  });

  it("reads what is set", () => {
    const config = readWorkerConfig({ AGENT_MAX_JOBS: "4", AGENT_LOAD_THRESHOLD: "0.5", DHS_API_URL: "http://127.0.0.1:8080" });
    expect([config.AGENT_MAX_JOBS, config.AGENT_LOAD_THRESHOLD, config.DHS_API_URL]).toEqual([4, 0.5, "http://127.0.0.1:8080"]);
  });

  it.each([
    ["AGENT_MAX_JOBS", "twenty", 'AGENT_MAX_JOBS must be an integer from 1 to 1000 (got "twenty")'],
    ["AGENT_HTTP_PORT", "80801", 'AGENT_HTTP_PORT must be an integer from 0 to 65535 (got "80801")'],
    ["AGENT_IDLE_PROCESSES", "-1", 'AGENT_IDLE_PROCESSES must be an integer from 0 to 100 (got "-1")'],
    ["AGENT_LOAD_THRESHOLD", "1.5", 'AGENT_LOAD_THRESHOLD must be a number above 0 and at most 1 (got "1.5")'],
    ["AGENT_LOAD_THRESHOLD", "0", 'AGENT_LOAD_THRESHOLD must be a number above 0 and at most 1 (got "0")'],
    ["LIVEKIT_URL", "localhost:7880", 'LIVEKIT_URL must be a ws or wss or http or https URL (got "localhost:7880")'],
    ["DHS_API_URL", "not a url", 'DHS_API_URL must be a URL (got "not a url")'],
    ["LOG_LEVEL", "loud", 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")'],
  ])("refuses %s=%j with one line naming it (a typo was a silent NaN)", (name, value, message) => {
    expect(() => readWorkerConfig({ [name]: value })).toThrow(new WorkerConfigError(message));
  });
});
