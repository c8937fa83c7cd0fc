import { ReplyError } from "ioredis";
import { describe, expect, it } from "vitest";
import { isRedisUnavailable } from "./guard.js";

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
const named = (name: string, message: string) => Object.assign(new Error(message), { name });

describe("isRedisUnavailable", () => {
  it.each([
    ["no offline queue while disconnected", new Error("Stream isn't writeable and enableOfflineQueue options is false"), true],
    ["a command timeout", new Error("Command timed out"), true],
    ["a closed connection", new Error("Connection is closed."), true],
    ["a refused connection", withCode("connect ECONNREFUSED 127.0.0.1:6379", "ECONNREFUSED"), true],
    ["a cluster that lost its nodes", named("ClusterAllFailedError", "Failed to refresh slots cache."), true],
    ["a cluster failing over", new ReplyError("CLUSTERDOWN The cluster is down"), true],
    ["a replica that is loading", new ReplyError("LOADING Redis is loading the dataset in memory"), true],
    ["a command Redis refuses", new ReplyError("ERR wrong number of arguments for 'zadd' command"), false],
    ["a script error", new ReplyError("ERR user_script:1: Script attempted to access nonexistent global variable"), false],
    ["a record that is not JSON", new SyntaxError("Unexpected token n in JSON at position 1"), false],
    ["an unexpected script reply", new Error("unexpected begin reply undefined"), false],
    ["something that is not an error", "boom", false],
  ])("%s: %s", (_name, error, want) => {
    expect(isRedisUnavailable(error)).toBe(want);
  });
});
