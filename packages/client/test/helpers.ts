/** A fetch that answers from a list of scripted replies and records what it was sent. */
export interface Recorded {
  method: string;
  path: string;
  search: string;
  headers: Headers;
  body: unknown;
}

export type Reply = Response | Error | ((request: Request) => Promise<Response>);

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", "X-Request-ID": "req_test", ...headers },
  });
}

export function apiError(status: number, code: string, headers: Record<string, string> = {}): Response {
  return json(status, { code, detail: `${code} in a test`, request_id: "req_test" }, headers);
}

export function scriptedFetch(...replies: Reply[]) {
  const requests: Recorded[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const text = await request.text();
    requests.push({
      method: request.method,
      path: url.pathname,
      search: url.search,
      headers: request.headers,
      body: text ? JSON.parse(text) : undefined,
    });
    const reply = replies.shift();
    if (reply === undefined) throw new Error(`unexpected request ${request.method} ${url.pathname}`);
    if (reply instanceof Error) throw reply;
    if (typeof reply === "function") return reply(request);
    return reply;
  };
  return { fetch, requests };
}

export const session = {
  id: "3fa85f64-5717-4562-b3fc-2c963f66afa6",
  status: "created",
  room_name: "dhs-3fa85f64-5717-4562-b3fc-2c963f66afa6",
  rtc_url: "wss://livekit.example.net",
  participant_token: "eyJ.token.sig",
  created_at: "2026-11-22T09:15:00.000Z",
  started_at: null,
  ended_at: null,
} as const;

export const utterance = {
  id: "utt_5e8f0a1b2c3d4e5f60718293",
  session_id: session.id,
  text: "Your order shipped this morning; it arrives on Thursday.",
  interrupt: false,
  status: "queued",
  created_at: "2026-11-22T09:27:40.310Z",
  expires_at: "2026-11-22T09:28:40.310Z",
  delivered_at: null,
  started_at: null,
  ended_at: null,
} as const;

export const contextNote = {
  id: "ctx_0a1b2c3d4e5f60718293a4b5",
  session_id: session.id,
  text: "The caller is Ines Bauer; her order 4417 shipped today.",
  respond: false,
  status: "queued",
  created_at: "2026-11-22T09:25:02.118Z",
  delivered_at: null,
} as const;

export const interruption = {
  session_id: session.id,
  interrupted_at: "2026-11-22T09:27:42.004Z",
  utterance_ids: [utterance.id],
} as const;
