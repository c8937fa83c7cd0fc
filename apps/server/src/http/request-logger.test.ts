import { describe, expect, it } from "vitest";
import { loggedPath } from "./request-logger.js";

describe("loggedPath", () => {
  it.each([
    ["a plain path", "/v1/sessions/3fa85f64-5717-4562-b3fc-2c963f66afa6", "/v1/sessions/3fa85f64-5717-4562-b3fc-2c963f66afa6"],
    ["the query", "/v1/sessions?cursor=abc&limit=5", "/v1/sessions"],
    ["an API key in a segment", "/v1/sessions/dhs_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdEf", "/v1/sessions/[redacted]"],
    ["an API key with an encoded underscore", "/v1/dhs%5FAbCdEfGhIjKlMnOp/end", "/v1/[redacted]/end"],
    ["a JWT", "/v1/sessions/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJl/token", "/v1/sessions/[redacted]/token"],
    ["a word that merely starts like a key", "/v1/dhs_", "/v1/dhs_"],
  ])("%s", (_name, url, want) => {
    expect(loggedPath(url)).toBe(want);
  });
});
