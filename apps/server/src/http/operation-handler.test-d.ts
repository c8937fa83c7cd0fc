import type { Session, SessionCreate, TestSessionEvent, TranscriptSegmentsAppend, WebhookEndpoint, WebhookEvent } from "@dhs/contract";
import { describe, expectTypeOf, it } from "vitest";
import { answer, type OperationReply, type OperationRequest } from "./operation-handler.js";
import type { OperationHandler, OperationHandlers } from "./operations.js";
import { sessionOperations } from "./routes/sessions.js";

declare const session: Session;
declare const endpoint: WebhookEndpoint;
declare const event: WebhookEvent;

describe("a handler's request, from the contract", () => {
  it("has the operation's path parameters, query, header parameters and body", () => {
    expectTypeOf<OperationRequest<"getSession">["path"]>().toEqualTypeOf<{ session_id: string }>();
    expectTypeOf<OperationRequest<"listSessions">["query"]["limit"]>().toEqualTypeOf<number | undefined>();
    expectTypeOf<OperationRequest<"createSession">["header"]>().toEqualTypeOf<{ "Idempotency-Key": string }>();
    // The contract makes createSession's body optional.
    expectTypeOf<OperationRequest<"createSession">["body"]>().toEqualTypeOf<SessionCreate | undefined>();
    expectTypeOf<OperationRequest<"sendTestSessionEvent">["body"]>().toEqualTypeOf<TestSessionEvent>();
    expectTypeOf<OperationRequest<"appendTranscriptSegments">["body"]>().toEqualTypeOf<TranscriptSegmentsAppend>();
  });

  it("has nothing the operation does not define", () => {
    expectTypeOf<OperationRequest<"getPrincipal">["path"]>().toEqualTypeOf<Record<string, never>>();
    expectTypeOf<OperationRequest<"getSession">["query"]>().toEqualTypeOf<Record<string, never>>();
    expectTypeOf<OperationRequest<"endSession">["body"]>().toEqualTypeOf<undefined>();
  });
});

describe("a handler's reply, from the contract", () => {
  it("is the success body, with the status where it is not simply 200", () => {
    expectTypeOf<OperationReply<"getSession">["body"]>().toEqualTypeOf<Session>();
    expectTypeOf<OperationReply<"getSession">["status"]>().toEqualTypeOf<200 | undefined>();
    const created: OperationReply<"createSession"> = { status: 201, body: session, headers: { "Idempotent-Replayed": "true" } };
    const tested: OperationReply<"testWebhookEndpoint"> = { status: 202, body: event };
    void [created, tested];
  });

  it("refuses another body", () => {
    // @ts-expect-error a getSession answers a Session, not part of one
    const partial: OperationHandler<"getSession"> = async () => ({ body: { id: session.id } });
    // @ts-expect-error nor a webhook endpoint
    const other: OperationHandler<"getSession"> = async () => ({ body: endpoint });
    // @ts-expect-error nor nothing: the handler answers by returning, never through res
    const none: OperationHandler<"endSession"> = async () => undefined;
    void [partial, other, none];
  });

  it("refuses a missing or wrong status, and headers the response does not declare", () => {
    // @ts-expect-error createSession answers 201
    const implicit: OperationReply<"createSession"> = { body: session };
    // @ts-expect-error and only 201
    const ok: OperationReply<"createSession"> = { status: 200, body: session };
    // @ts-expect-error testWebhookEndpoint answers 202
    const accepted: OperationReply<"testWebhookEndpoint"> = { status: 200, body: event };
    // @ts-expect-error Idempotent-Replayed is only ever "true"
    const replayed: OperationReply<"createSession"> = { status: 201, body: session, headers: { "Idempotent-Replayed": "yes" } };
    // @ts-expect-error getSession's 200 declares no such header
    const undeclared: OperationReply<"getSession"> = { body: session, headers: { "Idempotent-Replayed": "true" } };
    void [implicit, ok, accepted, replayed, undeclared];
  });

  it("types the digital human's operation, answered ahead of the table, the same way", () => {
    // @ts-expect-error appendTranscriptSegments answers TranscriptSegmentsAppended
    answer("appendTranscriptSegments", async () => ({ body: session }));
  });
});

describe("the operation table", () => {
  it("needs a handler for every operation an API key calls", () => {
    // @ts-expect-error the webhook endpoints, principal, transcripts and account operations are missing
    const partial: OperationHandlers = { ...sessionOperations({} as never, {} as never) };
    void partial;
  });
});
