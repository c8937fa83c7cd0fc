/**
 * The built docs page (dist/index.html) as a reader sees it: served over HTTP and rendered by a real
 * headless Chromium, with every operation of the contract in the navigation and on the page. A
 * screenshot is kept in artifacts/ for people to look at.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { chromiumLaunchOptions } from "@dhs/testkit";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";

const DIST = fileURLToPath(new URL("../dist/index.html", import.meta.url));
const ARTIFACTS = fileURLToPath(new URL("../../../artifacts/", import.meta.url));
const CHROMIUM = chromiumLaunchOptions().executablePath;

type Json = Record<string, any>;
const contract: Json = parse(readFileSync(new URL("../../../openapi/v1.yaml", import.meta.url), "utf8"));
const operations = Object.values<Json>(contract.paths).flatMap((item) => Object.values<Json>(item).filter((op) => op?.operationId)) as {
  operationId: string;
  summary: string;
  tags: string[];
}[];

let server: Server;
let baseUrl: string;
let browser: Browser;
const failedRequests: string[] = [];

beforeAll(async () => {
  if (!existsSync(DIST)) throw new Error(`${DIST} is missing: run pnpm build first`);
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium, or set CHROMIUM_PATH`);
  const html = readFileSync(DIST);
  server = createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch(chromiumLaunchOptions());
});

afterAll(async () => {
  await browser?.close();
  // When beforeAll failed there is no server, and nothing would call resolve.
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
});

describe("the docs site", () => {
  it("is one self-contained file: no script or stylesheet from another host", () => {
    const html = readFileSync(DIST, "utf8");
    expect(html).not.toMatch(/<script[^>]+src="https?:/);
    expect(html).not.toMatch(/<link[^>]+href="https?:[^"]+\.css/);
  });

  it("teaches webhooks: the guide's section, its receiver example and the event's payload", () => {
    const html = readFileSync(DIST, "utf8");
    for (const text of ["# Webhooks", "verifyWebhook", "webhook-signature", "duration_seconds", "receiveSessionEvent"]) {
      expect(html, text).toContain(text);
    }
  });

  it("renders every operation of the contract in a real browser", async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
    page.on("requestfailed", (request) => failedRequests.push(request.url()));
    await page.goto(baseUrl, { waitUntil: "load" });
    await page.locator("h1", { hasText: "Digital Human Session Service API" }).waitFor();
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}docs.png` });

    for (const { operationId, summary, tags } of operations) {
      // Redoc 3 addresses each operation as #/<tag, lower case, spaces as hyphens>/<operationid> and renders
      // its section on navigation.
      const anchor = `/${tags[0]?.toLowerCase().replaceAll(" ", "-")}/${operationId.toLowerCase()}`;
      await page.goto(`${baseUrl}/#${anchor}`);
      // Waited for as Playwright waits for an element (up to its 30 s), not polled for a second: beside the
      // server's tier a section once took longer than that to render.
      const heading = page.locator(`[data-section-id="${anchor}"] h2`).first();
      await heading.waitFor();
      expect(await heading.textContent(), operationId).toBe(summary);
      // The sidebar opens the operation's tag group and lists it by its summary.
      const menuEntry = page.locator(`a[href="#${anchor}"]`, { hasText: summary });
      await menuEntry.first().waitFor({ state: "attached" });
    }

    await page.goto(`${baseUrl}/#/sessions/createsession`);
    await page.locator('[data-section-id="/sessions/createsession"] h2').first().waitFor();
    await page.screenshot({ path: `${ARTIFACTS}docs-create-session.png` });
    await page.close();
    // Redoc 3 always shows its "API docs by Redocly" badge from its CDN; offline the image hides itself.
    // Everything the page itself needs is inlined, so nothing else may fail.
    expect(failedRequests.filter((url) => !url.startsWith("https://cdn.redoc.ly/redoc/logo-mini"))).toEqual([]);
  });
});
