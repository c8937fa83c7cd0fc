/**
 * Generated from openapi/v1.yaml by scripts/generate-operations.mjs (pnpm generate); do not edit.
 * Every operation of the contract's paths: its method, path template, security scheme (bearerAuth: an
 * API key's; digitalHumanToken: the digital human's) and whether it is safe to retry without an
 * Idempotency-Key (a GET, or marked `x-retry-safe`), and the header parameters it takes, spelled as the
 * contract spells them. Plain data with no import, so the client can ship it.
 */
export interface OperationInfo {
  readonly operationId: string;
  readonly method: string;
  readonly path: string;
  readonly scheme: string;
  readonly retrySafe: boolean;
  readonly headerParameters: readonly string[];
}

export const operationList = [
  { operationId: "createSession", method: "POST", path: "/v1/sessions", scheme: "bearerAuth", retrySafe: false, headerParameters: ["Idempotency-Key"] },
  { operationId: "listSessions", method: "GET", path: "/v1/sessions", scheme: "bearerAuth", retrySafe: true, headerParameters: [] },
  { operationId: "getSession", method: "GET", path: "/v1/sessions/{session_id}", scheme: "bearerAuth", retrySafe: true, headerParameters: [] },
  { operationId: "refreshSessionToken", method: "POST", path: "/v1/sessions/{session_id}/token", scheme: "bearerAuth", retrySafe: true, headerParameters: [] },
  { operationId: "endSession", method: "POST", path: "/v1/sessions/{session_id}/end", scheme: "bearerAuth", retrySafe: true, headerParameters: [] },
  { operationId: "getSessionTranscript", method: "GET", path: "/v1/sessions/{session_id}/transcript", scheme: "bearerAuth", retrySafe: true, headerParameters: [] },
  { operationId: "deleteSessionTranscript", method: "DELETE", path: "/v1/sessions/{session_id}/transcript", scheme: "bearerAuth", retrySafe: true, headerParameters: [] },
  { operationId: "appendTranscriptSegments", method: "POST", path: "/v1/sessions/{session_id}/transcript/segments", scheme: "digitalHumanToken", retrySafe: true, headerParameters: [] },
  { operationId: "say", method: "POST", path: "/v1/sessions/{session_id}/say", scheme: "bearerAuth", retrySafe: false, headerParameters: ["Idempotency-Key"] },
  { operationId: "getUtterance", method: "GET", path: "/v1/sessions/{session_id}/say/{utterance_id}", scheme: "bearerAuth", retrySafe: true, headerParameters: [] },
  { operationId: "interruptSession", method: "POST", path: "/v1/sessions/{session_id}/interrupt", scheme: "bearerAuth", retrySafe: true, headerParameters: [] },
  { operationId: "addSessionContext", method: "POST", path: "/v1/sessions/{session_id}/context", scheme: "bearerAuth", retrySafe: false, headerParameters: ["Idempotency-Key"] },
  { operationId: "pullConversation", method: "POST", path: "/v1/sessions/{session_id}/conversation/pull", scheme: "digitalHumanToken", retrySafe: true, headerParameters: [] },
  { operationId: "reportConversation", method: "POST", path: "/v1/sessions/{session_id}/conversation/reports", scheme: "digitalHumanToken", retrySafe: true, headerParameters: [] },
  { operationId: "listSessionToolCalls", method: "GET", path: "/v1/sessions/{session_id}/tool-calls", scheme: "bearerAuth", retrySafe: true, headerParameters: [] },
  { operationId: "getSessionAnalysis", method: "GET", path: "/v1/sessions/{session_id}/analysis", scheme: "bearerAuth", retrySafe: true, headerParameters: [] },
  { operationId: "getSessionRecording", method: "GET", path: "/v1/sessions/{session_id}/recording", scheme: "bearerAuth", retrySafe: true, headerParameters: [] },
  { operationId: "deleteSessionRecording", method: "DELETE", path: "/v1/sessions/{session_id}/recording", scheme: "bearerAuth", retrySafe: true, headerParameters: [] },
  { operationId: "startSessionRecording", method: "POST", path: "/v1/sessions/{session_id}/recording/start", scheme: "digitalHumanToken", retrySafe: true, headerParameters: [] },
  { operationId: "createRecordingUpload", method: "POST", path: "/v1/sessions/{session_id}/recording/upload", scheme: "digitalHumanToken", retrySafe: true, headerParameters: [] },
  { operationId: "finishSessionRecording", method: "POST", path: "/v1/sessions/{session_id}/recording/finish", scheme: "digitalHumanToken", retrySafe: true, headerParameters: [] },
  { operationId: "runToolCall", method: "POST", path: "/v1/sessions/{session_id}/conversation/tool-calls", scheme: "digitalHumanToken", retrySafe: true, headerParameters: [] },
  { operationId: "searchSessionKnowledge", method: "POST", path: "/v1/sessions/{session_id}/conversation/knowledge", scheme: "digitalHumanToken", retrySafe: true, headerParameters: [] },
  { operationId: "callTestTool", method: "POST", path: "/v1/test-helpers/sessions/{session_id}/tool-calls", scheme: "bearerAuth", retrySafe: false, headerParameters: [] },
  { operationId: "setTestSessionAnalysis", method: "POST", path: "/v1/test-helpers/sessions/{session_id}/analysis", scheme: "bearerAuth", retrySafe: false, headerParameters: [] },
  { operationId: "sendTestSessionEvent", method: "POST", path: "/v1/test-helpers/sessions/{session_id}/events", scheme: "bearerAuth", retrySafe: false, headerParameters: [] },
  { operationId: "createWebhookEndpoint", method: "POST", path: "/v1/webhook-endpoints", scheme: "bearerAuth", retrySafe: false, headerParameters: [] },
  { operationId: "listWebhookEndpoints", method: "GET", path: "/v1/webhook-endpoints", scheme: "bearerAuth", retrySafe: true, headerParameters: [] },
  { operationId: "getWebhookEndpoint", method: "GET", path: "/v1/webhook-endpoints/{endpoint_id}", scheme: "bearerAuth", retrySafe: true, headerParameters: [] },
  { operationId: "deleteWebhookEndpoint", method: "DELETE", path: "/v1/webhook-endpoints/{endpoint_id}", scheme: "bearerAuth", retrySafe: false, headerParameters: [] },
  { operationId: "rotateWebhookEndpointSecret", method: "POST", path: "/v1/webhook-endpoints/{endpoint_id}/rotate-secret", scheme: "bearerAuth", retrySafe: false, headerParameters: [] },
  { operationId: "enableWebhookEndpoint", method: "POST", path: "/v1/webhook-endpoints/{endpoint_id}/enable", scheme: "bearerAuth", retrySafe: true, headerParameters: [] },
  { operationId: "testWebhookEndpoint", method: "POST", path: "/v1/webhook-endpoints/{endpoint_id}/test", scheme: "bearerAuth", retrySafe: false, headerParameters: [] },
  { operationId: "listWebhookDeliveries", method: "GET", path: "/v1/webhook-endpoints/{endpoint_id}/deliveries", scheme: "bearerAuth", retrySafe: true, headerParameters: [] },
  { operationId: "createDigitalHuman", method: "POST", path: "/v1/digital-humans", scheme: "bearerAuth", retrySafe: false, headerParameters: ["Idempotency-Key"] },
  { operationId: "listDigitalHumans", method: "GET", path: "/v1/digital-humans", scheme: "bearerAuth", retrySafe: true, headerParameters: [] },
  { operationId: "getDigitalHuman", method: "GET", path: "/v1/digital-humans/{digital_human_id}", scheme: "bearerAuth", retrySafe: true, headerParameters: [] },
  { operationId: "updateDigitalHuman", method: "PATCH", path: "/v1/digital-humans/{digital_human_id}", scheme: "bearerAuth", retrySafe: true, headerParameters: [] },
  { operationId: "deleteDigitalHuman", method: "DELETE", path: "/v1/digital-humans/{digital_human_id}", scheme: "bearerAuth", retrySafe: false, headerParameters: [] },
  { operationId: "createDocument", method: "POST", path: "/v1/documents", scheme: "bearerAuth", retrySafe: false, headerParameters: ["Idempotency-Key"] },
  { operationId: "listDocuments", method: "GET", path: "/v1/documents", scheme: "bearerAuth", retrySafe: true, headerParameters: [] },
  { operationId: "getDocument", method: "GET", path: "/v1/documents/{document_id}", scheme: "bearerAuth", retrySafe: true, headerParameters: [] },
  { operationId: "deleteDocument", method: "DELETE", path: "/v1/documents/{document_id}", scheme: "bearerAuth", retrySafe: false, headerParameters: [] },
  { operationId: "getParticipantMemory", method: "GET", path: "/v1/digital-humans/{digital_human_id}/memories/{participant_identity}", scheme: "bearerAuth", retrySafe: true, headerParameters: [] },
  { operationId: "deleteParticipantMemory", method: "DELETE", path: "/v1/digital-humans/{digital_human_id}/memories/{participant_identity}", scheme: "bearerAuth", retrySafe: false, headerParameters: [] },
  { operationId: "searchKnowledge", method: "POST", path: "/v1/digital-humans/{digital_human_id}/knowledge/search", scheme: "bearerAuth", retrySafe: true, headerParameters: [] },
  { operationId: "listVoices", method: "GET", path: "/v1/voices", scheme: "bearerAuth", retrySafe: true, headerParameters: [] },
  { operationId: "getUsage", method: "GET", path: "/v1/usage", scheme: "bearerAuth", retrySafe: true, headerParameters: [] },
  { operationId: "getPrincipal", method: "GET", path: "/v1/me", scheme: "bearerAuth", retrySafe: true, headerParameters: [] },
] as const satisfies readonly OperationInfo[];
