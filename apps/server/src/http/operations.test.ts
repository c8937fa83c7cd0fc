import { readFileSync } from "node:fs";
import { openapiDocumentPath } from "@dhs/contract";
import type { NextFunction, Request, Response } from "express";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { AppError } from "../domain/app-error.js";
import { dispatch, type OperationHandlers } from "./operations.js";
import { accountOperations } from "./routes/account.js";
import { analysisOperations } from "./routes/analysis.js";
import { conversationOperations } from "./routes/conversation.js";
import { digitalHumanOperations } from "./routes/digital-humans.js";
import { documentOperations } from "./routes/documents.js";
import { memoryOperations } from "./routes/memories.js";
import { principalOperations } from "./routes/principal.js";
import { recordingOperations } from "./routes/recordings.js";
import { sessionOperations } from "./routes/sessions.js";
import { toolCallOperations } from "./routes/tool-calls.js";
import { transcriptOperations } from "./routes/transcripts.js";
import { webhookEndpointOperations } from "./routes/webhook-endpoints.js";

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

function contractOperationIds(): string[] {
  const document = parse(readFileSync(openapiDocumentPath, "utf8")) as { paths: Record<string, Record<string, { operationId?: string }>> };
  return Object.values(document.paths).flatMap((item) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([, operation]) => operation.operationId ?? "(an operation without an operationId)"),
  );
}

/** A request as the validator leaves it once it matched an operation (or none). */
function requestFor(operationId: string | undefined): Request {
  return {
    method: "GET",
    originalUrl: "/v1/somewhere?x=1",
    openapi: operationId === undefined ? undefined : { schema: { operationId }, openApiRoute: "/v1/somewhere" },
  } as unknown as Request;
}

describe("the operation table", () => {
  it("has a handler for every operation an API key calls, and none for an operation the contract does not have", () => {
    const table = {
      ...sessionOperations({} as never, {} as never),
      ...transcriptOperations({} as never, {} as never),
      ...webhookEndpointOperations({} as never, {} as never),
      ...accountOperations({} as never),
      ...digitalHumanOperations({} as never, {} as never),
      ...principalOperations({} as never),
      ...conversationOperations({} as never),
      ...toolCallOperations({} as never),
      ...analysisOperations({} as never),
      ...memoryOperations({} as never),
      ...recordingOperations({} as never),
      ...documentOperations({} as never, {} as never),
    };
    // The digital human's own operations are answered ahead of the table (routes/digital-human-routes.ts).
    const digitalHumans = [
      "appendTranscriptSegments",
      "pullConversation",
      "reportConversation",
      "runToolCall",
      "searchSessionKnowledge",
      "startSessionRecording",
      "createRecordingUpload",
      "finishSessionRecording",
    ];
    expect(Object.keys(table).sort()).toEqual(
      contractOperationIds()
        .filter((id) => !digitalHumans.includes(id))
        .sort(),
    );
  });
});

describe("dispatch", () => {
  const called: string[] = [];
  const principal = { keyId: "key_1" };
  const handlers = Object.fromEntries(
    contractOperationIds().map((id) => [
      id,
      (_request: unknown, caller: unknown) => {
        called.push(id);
        return { body: { id, caller } };
      },
    ]),
  ) as unknown as OperationHandlers;

  it("calls the handler of the operation the contract matched, and names the operation for the request's span", async () => {
    let error: unknown = "next not called";
    const sent: unknown[] = [];
    const res = {
      locals: { principal },
      status: (status: number) => {
        sent.push(status);
        return res;
      },
      json: (body: unknown) => void sent.push(body),
    } as unknown as Response;
    await dispatch(handlers)(requestFor("getSession"), res, ((e?: unknown) => (error = e)) as NextFunction);
    expect(called).toEqual(["getSession"]);
    expect(error).toBe("next not called");
    expect(res.locals).toEqual({ principal, operationId: "getSession", route: "/v1/somewhere" });
    // The handler's reply, for the principal authentication found, is the answer: 200 unless it says.
    expect(sent).toEqual([200, { id: "getSession", caller: principal }]);
  });

  it.each([
    ["no operation was matched", undefined],
    ["the matched operation has no handler", "notAnOperation"],
    ["the operation id is an Object property", "constructor"],
  ])("answers 404 not_found when %s", (_case, operationId) => {
    let error: unknown;
    dispatch(handlers)(requestFor(operationId), {} as Response, ((e?: unknown) => (error = e)) as NextFunction);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: "not_found", detail: "No route GET /v1/somewhere." });
  });
});
