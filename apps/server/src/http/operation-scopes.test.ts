import { openapiDocumentPath } from "@dhs/contract";
import { describe, expect, it } from "vitest";
import { OperationScopes } from "./operation-scopes.js";

const scopes = OperationScopes.fromFile(openapiDocumentPath);

describe("OperationScopes, read from the contract", () => {
  it.each([
    ["POST", "/v1/sessions", ["sessions:write"]],
    ["GET", "/v1/sessions", ["sessions:read"]],
    ["GET", "/v1/sessions/abc", ["sessions:read"]],
    ["POST", "/v1/sessions/abc/token", ["sessions:write"]],
    ["POST", "/v1/sessions/abc/end", ["sessions:write"]],
    ["GET", "/v1/me", []],
    ["DELETE", "/v1/sessions", undefined],
    ["GET", "/v1/sessions/abc/end", undefined],
    ["GET", "/v1/sessions/a/b/c", undefined],
  ])("%s %s requires %j", (method, path, want) => {
    expect(scopes.required(method, path)).toEqual(want);
  });
});
