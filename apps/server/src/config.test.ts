import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";

describe("loadConfig", () => {
  it("has embedded defaults for development", () => {
    expect(loadConfig({})).toEqual({
      nodeEnv: "development",
      production: false,
      port: 8080,
      host: "0.0.0.0",
      logLevel: "info",
      shutdownGraceMs: 10_000,
    });
  });

  it.each([
    ["PORT", { PORT: "3000" }, { port: 3000 }],
    ["PORT 0 (any free port)", { PORT: "0" }, { port: 0 }],
    ["HOST", { HOST: "127.0.0.1" }, { host: "127.0.0.1" }],
    ["LOG_LEVEL", { LOG_LEVEL: "debug" }, { logLevel: "debug" }],
    ["NODE_ENV=production", { NODE_ENV: "production" }, { production: true, nodeEnv: "production" }],
    ["blank values fall back", { PORT: " ", LOG_LEVEL: "" }, { port: 8080, logLevel: "info" }],
  ])("reads %s", (_name, env, want) => {
    expect(loadConfig(env)).toMatchObject(want);
  });

  it.each([
    ["PORT", { PORT: "http" }, 'PORT must be an integer from 0 to 65535 (got "http")'],
    ["PORT", { PORT: "65536" }, 'PORT must be an integer from 0 to 65535 (got "65536")'],
    ["PORT", { PORT: "-1" }, 'PORT must be an integer from 0 to 65535 (got "-1")'],
    ["LOG_LEVEL", { LOG_LEVEL: "loud" }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")'],
    ["SHUTDOWN_GRACE_MS", { SHUTDOWN_GRACE_MS: "1.5" }, 'SHUTDOWN_GRACE_MS must be an integer from 0 to 600000 (got "1.5")'],
  ])("refuses a bad %s with one line naming it", (_name, env, message) => {
    expect(() => loadConfig(env)).toThrow(new ConfigError(message));
  });
});
