import type { ApiKeyOperationId, Document } from "@dhs/contract";
import { describe, expectTypeOf, it } from "vitest";
import {
  type ApiError,
  type ContextNote,
  createClient,
  type DhsClient,
  type Interruption,
  type ParticipantTurnData,
  type Principal,
  type Session,
  type SessionAnalysis,
  type SessionEventData,
  type SessionList,
  type TranscriptReadyData,
  type Utterance,
  type UtteranceEventData,
  unwrap,
  verifyWebhook,
  type WebhookPayload,
  type WebhookTestData,
} from "../src/index.js";

const client = createClient({ baseUrl: "http://dhs.test", apiKey: "dhs_x" });

describe("what the types promise", () => {
  it("has one method per operation an API key calls, named by its operationId, and raw", () => {
    expectTypeOf<keyof DhsClient>().toEqualTypeOf<ApiKeyOperationId | "raw">();
    expectTypeOf<"appendTranscriptSegments">().not.toExtend<keyof DhsClient>();
    // The digital human's side of a conversation, with its own token, is not an API key's.
    expectTypeOf<"pullConversation" | "reportConversation">().not.toExtend<keyof DhsClient>();
  });

  it("types each operation's data and error from the contract", async () => {
    const created = await client.createSession();
    expectTypeOf(created.data).toEqualTypeOf<Session | undefined>();
    expectTypeOf(created.error).toEqualTypeOf<ApiError | undefined>();
    expectTypeOf((await client.getSession("id")).data).toEqualTypeOf<Session | undefined>();
    expectTypeOf((await client.listSessions()).data).toEqualTypeOf<SessionList | undefined>();
    expectTypeOf((await client.refreshSessionToken("id")).data).toEqualTypeOf<Session | undefined>();
    expectTypeOf((await client.endSession("id")).data).toEqualTypeOf<Session | undefined>();
    expectTypeOf((await client.getPrincipal()).data).toEqualTypeOf<Principal | undefined>();
    expectTypeOf((await client.say("id", { text: "Hi." })).data).toEqualTypeOf<Utterance | undefined>();
    expectTypeOf((await client.getUtterance("id", "utt")).data).toEqualTypeOf<Utterance | undefined>();
    expectTypeOf((await client.interruptSession("id")).data).toEqualTypeOf<Interruption | undefined>();
    expectTypeOf((await client.addSessionContext("id", { text: "A note." })).data).toEqualTypeOf<ContextNote | undefined>();
    expectTypeOf((await client.say("id", { text: "Hi." })).error).toEqualTypeOf<ApiError | undefined>();
  });

  it("narrows data once error is ruled out", async () => {
    const { data, error } = await client.getSession("id");
    if (error) {
      expectTypeOf(error.code).toEqualTypeOf<string>();
      return;
    }
    expectTypeOf(data.participant_token).toEqualTypeOf<string | null>();
    expectTypeOf(data.status).toEqualTypeOf<"created" | "active" | "completed" | "failed" | "cancelled">();
  });

  it("unwrap gives the success type", async () => {
    expectTypeOf(unwrap(await client.getSession("id"))).toEqualTypeOf<Session>();
  });

  it("refuses what the contract refuses", () => {
    // @ts-expect-error SessionCreate allows no other fields
    void client.createSession({ participant_name: "x" });
    // @ts-expect-error tags are strings
    void client.createSession({ tags: [1] });
    // @ts-expect-error status must be one of the five states
    void client.listSessions({ status: "running" });
    // @ts-expect-error the id is required
    void client.getSession();
    // @ts-expect-error say needs text
    void client.say("id", { interrupt: true });
    // @ts-expect-error SayRequest allows no other fields
    void client.say("id", { text: "Hi.", voice: "slt" });
    // @ts-expect-error interrupt is a boolean
    void client.say("id", { text: "Hi.", interrupt: "yes" });
    // @ts-expect-error ContextRequest allows no other fields
    void client.addSessionContext("id", { text: "A note.", interrupt: true });
    // @ts-expect-error an utterance is read by its session and its id
    void client.getUtterance("id");
  });

  it("verifyWebhook's event narrows its data by its type, and is still a WebhookPayload", () => {
    const event = verifyWebhook("{}", {}, "whsec_x");
    expectTypeOf(event).toExtend<WebhookPayload>();
    if (event.type === "session.participant_turn") expectTypeOf(event.data).toEqualTypeOf<ParticipantTurnData>();
    if (event.type === "session.utterance_started" || event.type === "session.utterance_ended")
      expectTypeOf(event.data).toEqualTypeOf<UtteranceEventData>();
    if (event.type === "session.ended") expectTypeOf(event.data).toEqualTypeOf<SessionEventData>();
    if (event.type === "session.transcript_ready") expectTypeOf(event.data).toEqualTypeOf<TranscriptReadyData>();
    if (event.type === "session.analysis_ready") expectTypeOf(event.data).toEqualTypeOf<SessionAnalysis>();
    if (event.type === "webhook.test") expectTypeOf(event.data).toEqualTypeOf<WebhookTestData>();
    if (event.type === "document.ready" || event.type === "document.failed") expectTypeOf(event.data).toEqualTypeOf<Document>();
  });
});
