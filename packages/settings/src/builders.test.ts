import { describe, expect, it } from "vitest";
import { boolean, choice, decimal, file, integer, secondsList, text, url, urls } from "./builders.js";
import { ConfigError } from "./config-error.js";

describe("the builders", () => {
  it.each([
    ["an integer in bounds", integer({ default: 5, min: 1, max: 10 }, ""), "7", 7],
    ["an integer unset", integer({ default: 5, min: 1, max: 10 }, ""), undefined, 5],
    ["a decimal", decimal({ default: 8, above: 0, max: 600 }, ""), "2.5", 2.5],
    ["a decimal at its bound", decimal({ default: 0.7, above: 0, max: 1 }, ""), "1", 1],
    ["true in capitals", boolean(false, ""), "TRUE", true],
    ["0 as false", boolean(true, ""), "0", false],
    ["a choice", choice({ default: "a", values: ["a", "b"] }, ""), "b", "b"],
    ["text without a default", text({ default: undefined }, ""), undefined, undefined],
    ["text in its format", text({ default: "x", format: { pattern: /^[a-z]+$/, says: "letters" } }, ""), "abc", "abc"],
    ["a file of the operator's", file({ default: undefined }, ""), "/etc/dhs/x.json", "/etc/dhs/x.json"],
    [
      "a URL, its trailing slashes gone",
      url({ default: undefined, protocols: ["https:"] }, ""),
      "https://x.test/v1//",
      "https://x.test/v1",
    ],
    ["seed nodes as written", urls({ protocols: ["redis:"] }, ""), "redis://a:1, redis://b:2", "redis://a:1, redis://b:2"],
    ["a schedule", secondsList({ default: "5,300", count: 3, min: 1, max: 86_400 }, ""), undefined, [5, 300]],
  ])("reads %s", (_, variable, raw, value) => {
    expect(variable.parse(raw, "X")).toEqual(value);
  });

  it.each([
    [integer({ default: 5, min: 1, max: 10 }, ""), "11", 'X must be an integer from 1 to 10 (got "11")'],
    [integer({ default: 5, min: 1, max: 10 }, ""), "1e1", 'X must be an integer from 1 to 10 (got "1e1")'],
    [decimal({ default: 0.7, above: 0, max: 1 }, ""), "0", 'X must be a number above 0 and at most 1 (got "0")'],
    [decimal({ default: 8, above: 0, max: 600 }, ""), "soon", 'X must be a number above 0 and at most 600 (got "soon")'],
    [decimal({ default: 8, above: 0, max: 600 }, ""), "-1", 'X must be a number above 0 and at most 600 (got "-1")'],
    [boolean(false, ""), "yes", 'X must be true or false (got "yes")'],
    [choice({ default: "a", values: ["a", "b"] }, ""), "c", 'X must be one of a, b (got "c")'],
    [text({ default: "x", format: { pattern: /^[a-z]+$/, says: "letters" } }, ""), "a{b}", 'X must be letters (got "a{b}")'],
    [url({ default: undefined, protocols: ["http:", "https:"] }, ""), "not a url", 'X must be a URL (got "not a url")'],
    [url({ default: undefined, protocols: ["ws:", "wss:"] }, ""), "http://x", 'X must start with ws:// or wss:// (got "http://x")'],
    [urls({ protocols: ["redis:"] }, ""), "redis://a:1,http://b", 'X must start with redis:// (got "http://b")'],
    [
      secondsList({ default: "5", count: 2, min: 1, max: 60 }, ""),
      "1,2,3",
      'X must be 1 to 2 comma-separated whole seconds from 1 to 60, got "1,2,3"',
    ],
  ])("refuses %#: one line naming the variable and the value", (variable, raw, message) => {
    expect(() => variable.parse(raw, "X")).toThrow(new ConfigError(message));
  });
});
