/**
 * The contract of the Digital Human Session Service (openapi/v1.yaml) as TypeScript: the generated
 * `paths`/`components`/`operations` types, one alias per schema, the enum values, and the list of
 * operations (also `@dhs/contract/operations`, which imports nothing), so the server and the client share
 * one definition of every shape and operation.
 */
import { fileURLToPath } from "node:url";
import type { operationList } from "./generated/operations.js";
import type { components, operations, webhooks } from "./generated/v1.js";

export { type OperationInfo, operationList } from "./generated/operations.js";

export type { components, operations, paths, webhooks } from "./generated/v1.js";
export {
  digitalHumanKindValues,
  endReasonValues,
  errorCodeValues,
  modeValues,
  scopeValues,
  sessionStatusValues,
  transcriptSpeakerValues,
  transcriptStatusValues,
  voiceProviderValues,
  webhookEventSelectorValues,
  webhookEventTypeValues,
} from "./generated/v1.js";

type Schemas = components["schemas"];

export type Session = Schemas["Session"];
export type SessionStatus = Schemas["SessionStatus"];
export type SessionCreate = Schemas["SessionCreate"];
export type SessionSummary = Schemas["SessionSummary"];
export type SessionList = Schemas["SessionList"];
export type EndReason = Schemas["EndReason"];
export type Principal = Schemas["Principal"];
export type Scope = Schemas["Scope"];
export type Mode = Schemas["Mode"];
export type TestSessionEvent = Schemas["TestSessionEvent"];
export type ApiError = Schemas["ApiError"];
export type ErrorCode = Schemas["ErrorCode"];
export type WebhookEventType = Schemas["WebhookEventType"];
export type WebhookEventSelector = Schemas["WebhookEventSelector"];
export type WebhookEndpointCreate = Schemas["WebhookEndpointCreate"];
export type WebhookEndpoint = Schemas["WebhookEndpoint"];
export type WebhookEndpointList = Schemas["WebhookEndpointList"];
export type WebhookEndpointDeleted = Schemas["WebhookEndpointDeleted"];
export type WebhookEvent = Schemas["WebhookEvent"];
export type WebhookPayload = Schemas["WebhookPayload"];
export type SessionEventData = Schemas["SessionEventData"];
export type WebhookTestData = Schemas["WebhookTestData"];
export type WebhookDelivery = Schemas["WebhookDelivery"];
export type WebhookDeliveryList = Schemas["WebhookDeliveryList"];
export type ListWebhookDeliveriesQuery = NonNullable<operations["listWebhookDeliveries"]["parameters"]["query"]>;
export type DigitalHuman = Schemas["DigitalHuman"];
export type DigitalHumanKind = Schemas["DigitalHumanKind"];
export type DigitalHumanCreate = Schemas["DigitalHumanCreate"];
export type DigitalHumanUpdate = Schemas["DigitalHumanUpdate"];
export type DigitalHumanDeleted = Schemas["DigitalHumanDeleted"];
export type DigitalHumanList = Schemas["DigitalHumanList"];
export type Voice = Schemas["Voice"];
export type VoiceList = Schemas["VoiceList"];
export type VoiceProvider = Schemas["VoiceProvider"];
/** What a digital human's job is told in its dispatch's metadata (not part of any request or response). */
export type DigitalHumanJob = Schemas["DigitalHumanJob"];
export type Usage = Schemas["Usage"];
export type UsageCounts = Schemas["UsageCounts"];
export type UsageDay = Schemas["UsageDay"];
export type ListDigitalHumansQuery = NonNullable<operations["listDigitalHumans"]["parameters"]["query"]>;
export type ListDocumentsQuery = NonNullable<operations["listDocuments"]["parameters"]["query"]>;
export type GetUsageQuery = NonNullable<operations["getUsage"]["parameters"]["query"]>;
export type ListSessionsQuery = NonNullable<operations["listSessions"]["parameters"]["query"]>;
export type Transcript = Schemas["Transcript"];
export type TranscriptStatus = Schemas["TranscriptStatus"];
export type TranscriptSpeaker = Schemas["TranscriptSpeaker"];
export type TranscriptSegment = Schemas["TranscriptSegment"];
export type TranscriptSegmentsAppend = Schemas["TranscriptSegmentsAppend"];
export type TranscriptSegmentsAppended = Schemas["TranscriptSegmentsAppended"];
export type TranscriptReadyData = Schemas["TranscriptReadyData"];
export type SayRequest = Schemas["SayRequest"];
export type Utterance = Schemas["Utterance"];
export type UtteranceStatus = Schemas["UtteranceStatus"];
export type Interruption = Schemas["Interruption"];
export type ContextRequest = Schemas["ContextRequest"];
export type ContextNote = Schemas["ContextNote"];
export type ConversationPullRequest = Schemas["ConversationPullRequest"];
export type ConversationItem = Schemas["ConversationItem"];
export type ConversationQueue = Schemas["ConversationQueue"];
export type ConversationReport = Schemas["ConversationReport"];
export type ConversationReports = Schemas["ConversationReports"];
export type ConversationReported = Schemas["ConversationReported"];
export type ParticipantTurnData = Schemas["ParticipantTurnData"];
export type UtteranceEventData = Schemas["UtteranceEventData"];
export type Tool = Schemas["Tool"];
export type WebhookTool = Schemas["WebhookTool"];
export type ClientTool = Schemas["ClientTool"];
export type EndSessionTool = Schemas["EndSessionTool"];
export type ToolCall = Schemas["ToolCall"];
export type ToolCallStatus = Schemas["ToolCallStatus"];
export type ToolCallList = Schemas["ToolCallList"];
export type ToolCallRun = Schemas["ToolCallRun"];
export type ToolCallOutcome = Schemas["ToolCallOutcome"];
export type TestToolCall = Schemas["TestToolCall"];
export type Document = Schemas["Document"];
export type DocumentCreate = Schemas["DocumentCreate"];
export type DocumentFormat = Schemas["DocumentFormat"];
export type DocumentTextFormat = Schemas["DocumentTextFormat"];
export type DocumentFileFormat = Schemas["DocumentFileFormat"];
export type DocumentUpload = Schemas["DocumentUpload"];
export type DocumentStatus = Schemas["DocumentStatus"];
export type DocumentList = Schemas["DocumentList"];
export type DocumentDeleted = Schemas["DocumentDeleted"];
export type DigitalHumanKnowledge = Schemas["DigitalHumanKnowledge"];
export type KnowledgeSearch = Schemas["KnowledgeSearch"];
export type KnowledgePassage = Schemas["KnowledgePassage"];
export type KnowledgeSearchResults = Schemas["KnowledgeSearchResults"];
export type ToolCalledData = Schemas["ToolCalledData"];
export type DigitalHumanAnalysis = Schemas["DigitalHumanAnalysis"];
export type DigitalHumanAnalysisInput = Schemas["DigitalHumanAnalysisInput"];
export type SessionAnalysis = Schemas["SessionAnalysis"];
export type AnalysisStatus = Schemas["AnalysisStatus"];
export type AnalysisError = Schemas["AnalysisError"];
export type CriterionOutcome = Schemas["CriterionOutcome"];
export type CriterionResult = Schemas["CriterionResult"];
export type TestSessionAnalysis = Schemas["TestSessionAnalysis"];
export type DigitalHumanMemory = Schemas["DigitalHumanMemory"];
export type ParticipantMemory = Schemas["ParticipantMemory"];
export type ParticipantMemoryDeleted = Schemas["ParticipantMemoryDeleted"];
export type DigitalHumanRecording = Schemas["DigitalHumanRecording"];
export type SessionRecording = Schemas["SessionRecording"];
export type RecordingStatus = Schemas["RecordingStatus"];
export type RecordingError = Schemas["RecordingError"];
export type RecordingJob = Schemas["RecordingJob"];
export type RecordingUploadTarget = Schemas["RecordingUploadTarget"];
export type RecordingFinish = Schemas["RecordingFinish"];
/** The body a webhook tool's endpoint receives (the contract's `receiveToolCall` webhook). */
export type ToolCallPayload = NonNullable<webhooks["toolCall"]["post"]["requestBody"]>["content"]["application/json"];
export type ToolCallAnswer = Schemas["ToolCallAnswer"];
export type GetSessionTranscriptQuery = NonNullable<operations["getSessionTranscript"]["parameters"]["query"]>;
export type OperationId = keyof operations;
/**
 * Every operation an API key calls (the contract's bearerAuth): the client's methods and the server's
 * operation table. Not `appendTranscriptSegments` (the digital human's), nor the webhook this service sends.
 */
export type ApiKeyOperationId = Extract<(typeof operationList)[number], { scheme: "bearerAuth" }>["operationId"];
/**
 * Every operation the digital human calls with its LiveKit token (the contract's digitalHumanToken): the
 * server's second operation table, answered ahead of the API keys'.
 */
export type DigitalHumanOperationId = Extract<(typeof operationList)[number], { scheme: "digitalHumanToken" }>["operationId"];

/** Absolute path of the OpenAPI document these types were generated from (shipped in dist/). */
export const openapiDocumentPath: string = fileURLToPath(new URL("./openapi.yaml", import.meta.url));
