/**
 * The demo's backend, the part a customer writes: it holds the API key, creates sessions with
 * @dhs/client and hands the browser only what it needs to join (rtc_url and participant_token). The
 * browser never sees the API key.
 *
 *   DHS_URL (http://localhost:8080)  DHS_API_KEY (the development key)  PORT (3000)  HOST (127.0.0.1)
 */
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { createClient } from "@dhs/client";
import { conciergeOf, SUGGESTED_QUESTIONS } from "./concierge.js";

const env = process.env;
const dhs = createClient({ baseUrl: env.DHS_URL ?? "http://localhost:8080", apiKey: env.DHS_API_KEY ?? "dhs_dev_insecure_local_key" });
const concierge = conciergeOf(dhs, (line) => process.stdout.write(`${JSON.stringify(line)}\n`));

const page = readFileSync(fileURLToPath(new URL("../public/index.html", import.meta.url)));
const script = readFileSync(fileURLToPath(new URL("../public/app.js", import.meta.url)));
// livekit-client's browser bundle, served from our own origin.
const livekitClient = readFileSync(createRequire(import.meta.url).resolve("livekit-client"));

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, { "Content-Type": type, "Cache-Control": "no-store" }).end(body);
}

/**
 * Why a session ended: the Session view has no end_reason, the list's summaries do. A session that just
 * ended is among the newest of its status. (A backend that follows many sessions takes it from the
 * session.ended webhook instead.)
 */
async function endReasonOf(session: { id: string; status: string }): Promise<string | null> {
  if (session.status !== "completed" && session.status !== "cancelled" && session.status !== "failed") return null;
  const { data } = await dhs.listSessions({ status: session.status, limit: 100 });
  return data?.data.find((item) => item.id === session.id)?.end_reason ?? null;
}

function json(res: ServerResponse, body: unknown): void {
  send(res, 200, "application/json", JSON.stringify(body));
}

/** The service's error, passed on with its code and request id (what support asks for). */
function failed(res: ServerResponse, error: { code: string; request_id: string }): void {
  send(res, 502, "application/json", JSON.stringify({ error: error.code, request_id: error.request_id }));
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let raw = "";
  for await (const chunk of req) raw += chunk;
  return raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://demo");
  if (req.method === "GET" && url.pathname === "/") return send(res, 200, "text/html; charset=utf-8", page);
  if (req.method === "GET" && url.pathname === "/app.js") return send(res, 200, "text/javascript", script);
  if (req.method === "GET" && url.pathname === "/vendor/livekit-client.js") return send(res, 200, "text/javascript", livekitClient);
  if (req.method === "GET" && url.pathname === "/favicon.ico") return send(res, 204, "image/x-icon", "");

  if (req.method === "POST" && url.pathname === "/api/sessions") {
    const body = await readJson(req);
    // In a real product the identity is your signed-in user's id.
    const { data, error } = await dhs.createSession({
      participant_identity: typeof body.identity === "string" ? body.identity : `visitor-${crypto.randomUUID().slice(0, 8)}`,
      ...(typeof body.digital_human_id === "string" ? { digital_human_id: body.digital_human_id } : {}),
    });
    if (error) return failed(res, error);
    return json(res, { session_id: data.id, rtc_url: data.rtc_url, participant_token: data.participant_token });
  }

  if (req.method === "GET" && url.pathname === "/api/digital-humans") {
    // The hotel concierge first, and chosen: the one a newcomer can ask real questions, LLM or not.
    const hotel = await concierge();
    const { data, error } = await dhs.listDigitalHumans({ limit: 100 });
    if (error) return failed(res, error);
    const others = data.data
      .filter((human) => human.id !== hotel?.id)
      .map(({ id, name, description, default: isDefault }) => ({
        id,
        name,
        description,
        default: hotel === undefined && isDefault,
        suggested_questions: [],
      }));
    const own = hotel ? [{ ...hotel, default: true, suggested_questions: SUGGESTED_QUESTIONS }] : [];
    return json(res, { data: [...own, ...others] });
  }

  // The page shows the session's status as the service reports it; never its token again. (A real
  // backend answers only for sessions of the signed-in user; this demo has no users.)
  const session = url.pathname.match(/^\/api\/sessions\/([^/]+)$/);
  if (req.method === "GET" && session) {
    const { data, error } = await dhs.getSession(session[1] as string);
    if (error) return failed(res, error);
    return json(res, { status: data.status, end_reason: await endReasonOf(data) });
  }

  const end = url.pathname.match(/^\/api\/sessions\/([^/]+)\/end$/);
  if (req.method === "POST" && end) {
    const { data, error } = await dhs.endSession(end[1] as string);
    if (error) return failed(res, error);
    return json(res, { status: data.status, end_reason: await endReasonOf(data) });
  }
  send(res, 404, "application/json", JSON.stringify({ error: "not_found" }));
}

const server = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => send(res, 500, "application/json", JSON.stringify({ error: String(error) })));
});
server.listen(Number(env.PORT ?? 3000), env.HOST ?? "127.0.0.1", () => {
  const address = server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ msg: "demo listening", url: `http://${env.HOST ?? "127.0.0.1"}:${address.port}` })}\n`);
});
process.once("SIGTERM", () => server.close(() => process.exit(0)));
