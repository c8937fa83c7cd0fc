/**
 * An OpenAI-compatible Chat Completions API (the operator's OPENAI_BASE_URL and OPENAI_API_KEY) asked
 * for a structured output, through OpenAI's SDK: one request per call, no streaming, and no retries of
 * its own (the caller decides what to retry, from the LlmCallError's kind). Every failure is one of a few
 * kinds, so the domain can tell "later" from "never" without knowing the SDK.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { type AnalysisModel, type JsonCompletion, LlmCallError } from "../domain/analysis/ports.js";

export interface ChatCompletionsClientOptions {
  /** The API's root, `/v1` included (OPENAI_BASE_URL). */
  baseUrl: string;
  apiKey: string;
}

/** How much of a provider's error message an LlmCallError carries. */
const MAX_MESSAGE_CHARS = 300;
/**
 * The most bytes of an answer read: an LLM can be talked into writing without end, and the SDK would hold
 * all of it before anything is checked. Many times the largest answer taken (analysis-answer.ts).
 */
export const MAX_RESPONSE_BYTES = 1024 * 1024;
// What OpenAI's SDK itself would retry among the 4xx: request timeout, lock timeout, rate limit.
const RETRYABLE_4XX = new Set([408, 409, 429]);

export class ChatCompletionsClient implements AnalysisModel {
  private readonly openai: OpenAI;

  constructor(options: ChatCompletionsClientOptions) {
    // The SDK refuses to start without a key; a local LLM takes none. "none", as the digital human's worker sends.
    this.openai = new OpenAI({ baseURL: options.baseUrl, apiKey: options.apiKey || "none", maxRetries: 0, fetch: boundedFetch });
  }

  async completeJson(call: JsonCompletion): Promise<string> {
    // The SDK's own timeout stops once the answer's headers came; this one also bounds reading its body.
    const deadline = AbortSignal.timeout(call.timeoutMs);
    const signal = call.signal ? AbortSignal.any([call.signal, deadline]) : deadline;
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await this.openai.chat.completions.create(
        {
          model: call.model,
          messages: call.messages.map(messageParam),
          response_format: { type: "json_schema", json_schema: { name: call.schemaName, schema: call.schema, strict: true } },
          stream: false,
        },
        { timeout: call.timeoutMs, signal },
      );
    } catch (error) {
      if (call.signal?.aborted) throw error;
      if (tooLarge(error))
        throw new LlmCallError("empty", false, `the answer is more than ${MAX_RESPONSE_BYTES} bytes`, undefined, { cause: error });
      throw callError(error, deadline.aborted);
    }
    const message = completion.choices?.[0]?.message;
    if (message?.refusal) throw new LlmCallError("empty", false, `the model refused: ${bounded(message.refusal)}`);
    if (typeof message?.content !== "string" || message.content.trim() === "") {
      throw new LlmCallError("empty", false, "the completion has no text");
    }
    return message.content;
  }
}

class AnswerTooLarge extends Error {}

/** Whether the SDK failed because boundedFetch stopped the answer (it may wrap the error it read). */
const tooLarge = (error: unknown): boolean =>
  error instanceof AnswerTooLarge || (error instanceof Error && error.cause !== undefined && tooLarge(error.cause));

/** fetch, its answer's body cut off with AnswerTooLarge past MAX_RESPONSE_BYTES. */
async function boundedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (!response.body) return response;
  let seen = 0;
  const bounded = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > MAX_RESPONSE_BYTES) controller.error(new AnswerTooLarge());
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Response(bounded, { status: response.status, statusText: response.statusText, headers: response.headers });
}

function messageParam(message: JsonCompletion["messages"][number]): ChatCompletionMessageParam {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content };
    case "user":
      return { role: "user", content: message.content };
    case "assistant":
      return { role: "assistant", content: message.content };
  }
}

function callError(error: unknown, timedOut: boolean): LlmCallError {
  const cause = { cause: error };
  if (timedOut || error instanceof APIConnectionTimeoutError) {
    return new LlmCallError("timed_out", true, "no answer in time", undefined, cause);
  }
  if (error instanceof APIConnectionError) {
    return new LlmCallError("unreachable", true, `unreachable: ${bounded(error.message)}`, undefined, cause);
  }
  if (error instanceof APIError && typeof error.status === "number") {
    const status = error.status;
    const said = bounded(providerMessage(error));
    if (status >= 400 && status < 500) return new LlmCallError("refused", RETRYABLE_4XX.has(status), `${status} ${said}`, status, cause);
    return new LlmCallError("failed", status >= 500, `${status} ${said}`, status, cause);
  }
  // What no HTTP status explains (an answer that is no completion, say): the same call would fail alike.
  return new LlmCallError("failed", false, bounded(error instanceof Error ? error.message : String(error)), undefined, cause);
}

/** The provider's own words (`error.message` of its body), not the SDK's message built around them. */
function providerMessage(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  return typeof body?.message === "string" ? body.message : error.message;
}

function bounded(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= MAX_MESSAGE_CHARS ? line : `${line.slice(0, MAX_MESSAGE_CHARS - 1)}…`;
}
