export {
  ChatCompletionsServer,
  type ChatCompletionsServerOptions,
  type ChatMessage,
  type ChatRequest,
  type ChatScript,
  messageText,
  toolCallsAsked,
  toolResults,
} from "./chat-completions-server.js";
export { askedSchema, type ResponseFormat } from "./chat-structured-output.js";
export type { ChatToolCall, ScriptedToolCall } from "./chat-tool-calls.js";
export { chromiumLaunchOptions } from "./chromium.js";
export { type DigitalHumanTokenOptions, digitalHumanToken } from "./digital-human-token.js";
export { FakeLiveKit, type Mode as FakeLiveKitMode, type RecordedCall } from "./fake-livekit.js";
export {
  API_KEY_RECORDS,
  type ApiKeyRecord,
  apiKeyRecord,
  DIGITAL_HUMANS,
  type Fixtures,
  KEYS,
  LIVEKIT,
  type Scope,
  writeOperatorFiles,
} from "./fixtures.js";
export { freePort, freePortRun } from "./free-port.js";
export { signLiveKitWebhook } from "./livekit-webhook.js";
export { type PdfLine, type PdfPage, pdfBomb, pdfFile } from "./pdf-file.js";
export { ADMIN_DATABASE_URL, createDatabase, databaseUrl, dropDatabase, type TestDatabase } from "./postgres-database.js";
export { type PostgresServer, startPostgres } from "./postgres-server.js";
export { type RedisCluster, startRedisCluster } from "./redis-cluster.js";
export { type RedisServer, startRedis } from "./redis-server.js";
export { type SecretScan, scanForSecrets } from "./secret-scan.js";
export {
  type DeepgramListenServer,
  type DeepgramListenServerOptions,
  type ListenRequest,
  type ListenSession,
  startDeepgramListenServer,
} from "./speech/deepgram-listen-server.js";
export {
  type DeepgramSpeakRequest,
  type DeepgramSpeakServer,
  type DeepgramSpeakServerOptions,
  startDeepgramSpeakServer,
} from "./speech/deepgram-speak-server.js";
export {
  type ElevenLabsRequest,
  type ElevenLabsServer,
  type ElevenLabsServerOptions,
  startElevenLabsServer,
} from "./speech/elevenlabs-stream-server.js";
export {
  type OpenAiSpeechRoute,
  type OpenAiSpeechServer,
  type OpenAiSpeechServerOptions,
  type SpeechRequest,
  startOpenAiSpeechServer,
  type TranscriptionRequest,
} from "./speech/openai-speech-server.js";
export type { Speech, SpeechEngines, StandInFault } from "./speech/speech-engines.js";
export { encodeWav, parseWav, pcmBytes, pcmSamples, resample, wavHeader } from "./speech/wav.js";
export { TcpGate } from "./tcp-gate.js";
export { sleep, type UntilOptions, until } from "./until.js";
export { waitForOutput } from "./wait-for-output.js";
export { type Answer, type Received, WebhookReceiver, type WebhookReceiverOptions } from "./webhook-receiver.js";
