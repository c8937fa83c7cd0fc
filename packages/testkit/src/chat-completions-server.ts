/**
 * An OpenAI-compatible Chat Completions server for tests: real HTTP on loopback, answering
 * `POST /v1/chat/completions` as OpenAI's API does (a JSON completion, or with `stream: true` server-sent
 * events of `chat.completion.chunk` objects ending in `data: [DONE]`), and `GET /v1/models`. No LLM runs
 * here: the test says what each request gets (its words, when the first token comes and the rest follow,
 * function calls, or a failure: an error status, a hang, a stream broken mid-reply) and reads back what was
 * asked (the messages, the model, the key, the tools offered, the tool results sent back). The digital
 * human's OpenAI plugin is pointed at it by OPENAI_BASE_URL, and sees function calls as the real API
 * streams them (chat-tool-calls.ts).
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type ResponseFormat, readResponseFormat } from "./chat-structured-output.js";
import { type ChatToolCall, type ScriptedToolCall, toolCall, toolCallDeltas } from "./chat-tool-calls.js";

export interface ChatMessage {
  role: string;
  content: string | { type: string; text?: string }[] | null;
  /** On an assistant message: the calls it made, sent back with the conversation. */
  tool_calls?: ChatToolCall[];
  /** On a `tool` message: the call it answers. */
  tool_call_id?: string;
  /** A participant's name, which OpenAI allows on any message. */
  name?: string;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream: boolean;
  temperature: number | undefined;
  /** The request's `tools` as sent ([] without any): what the LLM was offered to call. */
  tools: unknown[];
  /** Its `response_format` (a structured output's JSON schema, say), undefined without one. */
  responseFormat: ResponseFormat | undefined;
  /** The bearer key the request carried ("" without one). */
  apiKey: string;
  /** The whole request body as parsed. */
  body: Record<string, unknown>;
  /** When it arrived (Date.now()). */
  at: number;
}

/** What one request gets. */
export type ChatScript =
  | {
      /** The reply's pieces, each sent as one chunk (a token, a word, a sentence). */
      tokens: string[];
      /** Milliseconds from the request to the first token (0 by default). */
      firstTokenMs?: number;
      /** Milliseconds between later tokens (0 by default). */
      betweenTokensMs?: number;
      /** Breaks the connection after this many tokens, without `[DONE]`: a stream that dies mid-reply. */
      breakAfter?: number;
    }
  | {
      /** The functions the reply calls, in order; several are OpenAI's parallel calls. */
      toolCalls: ScriptedToolCall[];
      /** Words before the calls, each sent as one chunk (none by default). */
      tokens?: string[];
      firstTokenMs?: number;
      /** Milliseconds between later chunks, argument pieces included (0 by default). */
      betweenTokensMs?: number;
      /** How many chunks each call's arguments are split into (3 by default): clients must join them. */
      argumentPieces?: number;
    }
  | {
      /** A structured output: this value as the reply's JSON text (sent in pieces when streamed), whatever the schema asked. */
      json: unknown;
      firstTokenMs?: number;
    }
  | { status: number; message?: string; retryAfterS?: number }
  | "hang";

type Reply = Exclude<ChatScript, "hang" | { status: number } | { json: unknown }>;

export interface ChatCompletionsServerOptions {
  /** What each request gets; by default, "Hello." */
  script?: (request: ChatRequest) => ChatScript;
  /** The key requests must carry (any, by default). A wrong one gets OpenAI's 401. */
  apiKey?: string;
}

/** The text a message carries, whether a string or an array of content parts. */
export function messageText(message: ChatMessage): string {
  if (typeof message.content === "string") return message.content;
  return (message.content ?? []).map((part) => part.text ?? "").join("");
}

/** The results a request sends back: each `tool` message's call id and text, in order. */
export function toolResults(request: ChatRequest): { toolCallId: string; content: string }[] {
  return request.messages.filter((m) => m.role === "tool").map((m) => ({ toolCallId: m.tool_call_id ?? "", content: messageText(m) }));
}

/** The calls a request's assistant messages made earlier in the conversation, in order. */
export function toolCallsAsked(request: ChatRequest): ChatToolCall[] {
  return request.messages.flatMap((m) => (m.role === "assistant" ? (m.tool_calls ?? []) : []));
}

export class ChatCompletionsServer {
  readonly requests: ChatRequest[] = [];
  script: (request: ChatRequest) => ChatScript;
  private readonly apiKey: string | undefined;
  private server: Server | undefined;
  private port = 0;
  private readonly open = new Set<ServerResponse>();

  constructor(options: ChatCompletionsServerOptions = {}) {
    this.script = options.script ?? (() => ({ tokens: ["Hello."] }));
    this.apiKey = options.apiKey;
  }

  /** What OPENAI_BASE_URL is set to: the API's root, `/v1` included, as OpenAI's SDK expects. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      this.handle(req, res).catch(() => res.destroy());
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.open.clear();
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.open.add(res);
    res.once("close", () => this.open.delete(res));
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const apiKey = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
    if (this.apiKey !== undefined && apiKey !== this.apiKey) return error(res, 401, "Incorrect API key provided.", "invalid_api_key");
    if (req.method === "GET" && path === "/v1/models") {
      return json(res, 200, { object: "list", data: [{ id: "test-model", object: "model", created: 0, owned_by: "testkit" }] });
    }
    if (req.method !== "POST" || path !== "/v1/chat/completions") return error(res, 404, `Unknown request URL: ${req.method} ${path}`);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
    } catch {
      return error(res, 400, "We could not parse the JSON body of your request.");
    }
    if (!Array.isArray(body.messages) || typeof body.model !== "string") return error(res, 400, "'messages' and 'model' are required");
    const format = readResponseFormat(body.response_format);
    if ("problem" in format) return error(res, 400, format.problem, "invalid_request_error");
    const request: ChatRequest = {
      model: body.model,
      messages: body.messages as ChatMessage[],
      stream: body.stream === true,
      temperature: typeof body.temperature === "number" ? body.temperature : undefined,
      tools: Array.isArray(body.tools) ? body.tools : [],
      responseFormat: format.format,
      apiKey,
      body,
      at: Date.now(),
    };
    this.requests.push(request);
    const script = this.script(request);
    if (script === "hang") return;
    if ("status" in script) {
      const headers = script.retryAfterS === undefined ? {} : { "retry-after": String(script.retryAfterS) };
      return error(res, script.status, script.message ?? `scripted ${script.status}`, undefined, headers);
    }
    if ("json" in script) {
      // As the real API streams it: the JSON text in short pieces.
      const text = JSON.stringify(script.json);
      const tokens = Array.from({ length: Math.ceil(text.length / 16) }, (_, i) => text.slice(i * 16, i * 16 + 16));
      return this.reply(request, { tokens, firstTokenMs: script.firstTokenMs ?? 0 }, res);
    }
    await this.reply(request, script, res);
  }

  private async reply(request: ChatRequest, script: Reply, res: ServerResponse): Promise<void> {
    const id = `chatcmpl-${randomUUID()}`;
    const created = Math.floor(Date.now() / 1000);
    const tokens = script.tokens ?? [];
    const calls = "toolCalls" in script ? script.toolCalls.map(toolCall) : [];
    const finishReason = calls.length > 0 ? "tool_calls" : "stop";
    // OpenAI's content is null, not "", when a reply only calls functions.
    const content = calls.length > 0 && tokens.length === 0 ? null : tokens.join("");
    const usage = { prompt_tokens: 1, completion_tokens: tokens.length + calls.length, total_tokens: 1 + tokens.length + calls.length };
    await sleep(script.firstTokenMs ?? 0);
    if (!request.stream) {
      const message = { role: "assistant", content, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
      return json(res, 200, {
        id,
        object: "chat.completion",
        created,
        model: request.model,
        choices: [{ index: 0, message, finish_reason: finishReason }],
        usage,
      });
    }
    const pieces = "toolCalls" in script ? (script.argumentPieces ?? 3) : 0;
    const deltas = [...tokens.map((token) => ({ content: token })), ...toolCallDeltas(calls, pieces)];
    const breakAfter = "breakAfter" in script ? script.breakAfter : undefined;
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    const chunk = (delta: Record<string, unknown>, finishReason: string | null) =>
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: request.model, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
    // Each chunk is on the wire before the next step: a stream broken later has delivered what came before.
    const send = (text: string) => new Promise<void>((resolve) => res.write(text, () => resolve()));
    await send(chunk({ role: "assistant", content: content === null ? null : "" }, null));
    for (const [i, delta] of deltas.entries()) {
      if (i > 0) await sleep(script.betweenTokensMs ?? 0);
      if (res.destroyed) return;
      if (breakAfter !== undefined && i >= breakAfter) {
        res.destroy();
        return;
      }
      await send(chunk(delta, null));
    }
    res.write(chunk({}, finishReason));
    const options = request.body.stream_options as { include_usage?: boolean } | undefined;
    if (options?.include_usage) {
      res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: request.model, choices: [], usage })}\n\n`);
    }
    res.end("data: [DONE]\n\n");
  }
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** OpenAI's error body. */
function error(res: ServerResponse, status: number, message: string, code?: string, headers: Record<string, string> = {}): void {
  const type = status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request_error";
  json(res, status, { error: { message, type, param: null, code: code ?? null } }, headers);
}

function sleep(ms: number): Promise<void> {
  return ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));
}
