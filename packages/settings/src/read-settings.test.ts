import { describe, expect, it } from "vitest";
import { integer, text } from "./builders.js";
import { ConfigError } from "./config-error.js";
import { readSettings } from "./read-settings.js";

const DECLARED = {
  NODE_ENV: text({ default: "development" }, ""),
  PORT: integer({ default: 8080, min: 0, max: 65535 }, ""),
  SECRET: text({ default: "devsecret", dev: "`devsecret`", refusedInProduction: "the development secret is public" }, ""),
};

describe("readSettings", () => {
  it("reads every declared variable, trimmed, blank as unset, and nothing else", () => {
    const settings = readSettings(DECLARED, { PORT: " 9000 ", SECRET: "  ", OTHER: "x" });
    expect(settings).toEqual({ NODE_ENV: "development", PORT: 9000, SECRET: "devsecret" });
  });

  it("refuses in production a development default that must be set, naming it and why", () => {
    expect(() => readSettings(DECLARED, { NODE_ENV: "production" })).toThrow(
      new ConfigError("SECRET must be set in production (the development secret is public)"),
    );
    expect(readSettings(DECLARED, { NODE_ENV: "production", SECRET: "s3" }).SECRET).toBe("s3");
  });

  it("names the first variable that is wrong", () => {
    expect(() => readSettings(DECLARED, { PORT: "http" })).toThrow(/^PORT must be an integer/);
  });
});
