import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/http/app.js";
import { type RunningServer, startWebServer } from "../src/http/server.js";

let server: RunningServer;
const logged: unknown[] = [];

beforeAll(async () => {
  server = await startWebServer(createApp({ logError: (error) => logged.push(error) }), 0, "127.0.0.1");
});
afterAll(async () => {
  await server.stop();
});

describe("GET /healthz", () => {
  it("answers 200 {status: ok} with an X-Request-ID", async () => {
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
    expect(res.headers.get("X-Request-ID")).toMatch(/^req_[0-9a-f]{32}$/);
  });

  it("gives each request its own id, ignoring one the caller sends", async () => {
    const ids = new Set<string | null>();
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${server.url}/healthz`, { headers: { "X-Request-ID": "caller-chosen" } });
      ids.add(res.headers.get("X-Request-ID"));
    }
    expect(ids.size).toBe(20);
    expect(ids.has("caller-chosen")).toBe(false);
  });

  it("does not announce Express", async () => {
    const res = await fetch(`${server.url}/healthz`);
    expect(res.headers.get("X-Powered-By")).toBeNull();
  });
});

describe("an unknown route", () => {
  it.each(["GET /nope", "POST /v2/sessions", "DELETE /healthz"])("%s answers 404 ApiError not_found", async (line) => {
    const [method, path] = line.split(" ") as [string, string];
    const res = await fetch(`${server.url}${path}`, { method });
    expect(res.status).toBe(404);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
    const body = await res.json();
    expect(body).toEqual({ code: "not_found", detail: `No route ${method} ${path}.`, request_id: res.headers.get("X-Request-ID") });
    expect(logged).toHaveLength(0);
  });
});
