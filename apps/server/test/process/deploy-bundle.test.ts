/**
 * What the Dockerfile ships, checked without a Docker engine: its own `pnpm deploy` command (read from
 * the Dockerfile) makes a bundle of only dist/, config/, migrations/ and production dependencies, whose
 * migrations compose's `migrate` command applies, and which starts in production mode on Redis and
 * PostgreSQL and passes the image's HEALTHCHECK command; and compose.yaml gives the API only variables
 * the configuration knows, wired to the services it defines.
 */
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createDatabase, FakeLiveKit, freePort, pdfBomb, pdfFile, until, waitForOutput } from "@dhs/testkit";
import { afterAll, describe, expect, inject, it, onTestFinished } from "vitest";
import { parse } from "yaml";
import { VARIABLES } from "../../src/config.js";
import { hashApiKey } from "../../src/domain/accounts/api-keys.js";

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const dockerfile = readFileSync(join(ROOT, "Dockerfile"), "utf8");
const compose = parse(readFileSync(join(ROOT, "compose.yaml"), "utf8")) as { services: Record<string, any> };
const run = promisify(execFile);
const bundle = join(mkdtempSync(join(tmpdir(), "dhs-bundle-")), "app");
const children: ReturnType<typeof spawn>[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

/** The arguments of the Dockerfile's `RUN pnpm ... deploy ... <target>`, with <target> replaced. */
function deployCommand(target: "/out" | "/worker", out: string): string[] {
  const line = dockerfile.split("\n").find((l) => /^RUN pnpm .* deploy /.test(l) && l.endsWith(` ${target}`));
  if (!line) throw new Error(`no \`RUN pnpm ... deploy ... ${target}\` line in the Dockerfile`);
  return line
    .replace(/^RUN pnpm /, "")
    .slice(0, -target.length)
    .concat(out)
    .split(/\s+/)
    .map((arg) => arg.replace(/^"|"$/g, ""));
}

const healthcheck = (port: number) =>
  run(process.execPath, [join(bundle, "dist/cli/healthcheck.js")], {
    cwd: bundle,
    env: { PATH: process.env.PATH ?? "", PORT: String(port) },
  }).then(
    () => 0,
    (error: { code?: number }) => error.code ?? -1,
  );

describe("the Dockerfile's bundle", () => {
  it("holds dist, config and production dependencies only, starts in production mode and passes its healthcheck", {
    timeout: 120_000,
  }, async () => {
    await run("pnpm", deployCommand("/out", bundle), { cwd: ROOT, timeout: 100_000 });
    expect(existsSync(join(bundle, "dist/main.js"))).toBe(true);
    expect(existsSync(join(bundle, "node_modules/@dhs/catalog/digital-humans.json"))).toBe(true);
    expect(existsSync(join(bundle, "migrations"))).toBe(true);
    expect(existsSync(join(bundle, "node_modules/@dhs/contract/dist/openapi.yaml"))).toBe(true);
    for (const absent of ["src", "test", "node_modules/vitest", "node_modules/typescript"])
      expect(existsSync(join(bundle, absent)), absent).toBe(false);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*"node", "dist\/cli\/healthcheck.js"\]$/m);
    expect(dockerfile).toMatch(/^USER node$/m);

    const keysFile = join(bundle, "..", "keys.json");
    writeFileSync(
      keysFile,
      JSON.stringify({
        keys: [
          {
            id: "key_img",
            account_id: "acct_img",
            scopes: ["sessions:read", "knowledge:write"],
            sha256: hashApiKey("dhs_image_test_key").toString("hex"),
          },
        ],
      }),
    );
    // compose's `migrate` service, as it runs in the image's working directory.
    const database = await createDatabase({ prefix: "dhs_test" });
    onTestFinished(() => database.drop());
    const [command = "", ...args] = compose.services.migrate.command as string[];
    await run(command === "node" ? process.execPath : command, args, {
      cwd: bundle,
      env: { PATH: process.env.PATH ?? "", DATABASE_URL: database.url },
    });
    const port = await freePort();
    // Production checks LiveKit's credentials at start and is ready once LiveKit accepted them.
    const livekit = await new FakeLiveKit("APIimage", "an-image-test-secret-of-32-chars!").start();
    onTestFinished(() => livekit.stop());
    const server = spawn(process.execPath, ["dist/main.js"], {
      cwd: bundle,
      env: {
        PATH: process.env.PATH ?? "",
        NODE_ENV: "production",
        HOST: "127.0.0.1",
        PORT: String(port),
        METRICS_PORT: "0",
        REDIS_URL: inject("redisUrl"),
        REDIS_KEY_PREFIX: "bundle",
        DATABASE_URL: database.url,
        API_KEYS_FILE: keysFile,
        LIVEKIT_URL: "wss://livekit.example.net",
        LIVEKIT_API_URL: livekit.url,
        LIVEKIT_API_KEY: "APIimage",
        LIVEKIT_API_SECRET: "an-image-test-secret-of-32-chars!",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(server);
    await waitForOutput(server, /"msg":"listening"/, { name: "the bundled server", timeoutMs: 20_000 });
    expect(await healthcheck(port)).toBe(0);
    // Ready once it has confirmed Redis's layout and LiveKit accepted its credentials, which main checks
    // after it listens: a moment later on a loaded machine.
    await until(async () => ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200 ? true : undefined), {
      what: "the bundled server ready",
      timeoutMs: 15_000,
    });
    const me = await fetch(`http://127.0.0.1:${port}/v1/me`, { headers: { Authorization: "Bearer dhs_image_test_key" } });
    expect(await me.json()).toMatchObject({
      key_id: "key_img",
      account_id: "acct_img",
      scopes: ["sessions:read", "knowledge:write"],
      usage: { open_sessions: 0 },
    });
    // A PDF is read by the bundle's own reader process (dist/pdf/pdf-text-process.js) under its memory
    // bound: a page is taken, a decompression bomb refused naming the file.
    const uploadPdf = (data: Buffer) => {
      const form = new FormData();
      form.append("file", new Blob([data as Uint8Array<ArrayBuffer>], { type: "application/pdf" }), "f.pdf");
      return fetch(`http://127.0.0.1:${port}/v1/documents`, {
        method: "POST",
        headers: { Authorization: "Bearer dhs_image_test_key", "Idempotency-Key": crypto.randomUUID() },
        body: form,
      });
    };
    const page = await uploadPdf(pdfFile([[{ text: "The bundle reads PDFs." }]]));
    expect(page.status, await page.clone().text()).toBe(201);
    const bomb = await uploadPdf(pdfBomb(256 << 20));
    expect(bomb.status).toBe(422);
    expect(JSON.stringify(await bomb.json())).toMatch(/memory a PDF may take/);

    server.kill("SIGTERM");
    const [code] = (await once(server, "exit")) as [number | null];
    expect(code).toBe(0);
    expect(await healthcheck(port)).toBe(1);
  });
});

describe("the Dockerfile's worker bundle", () => {
  it("starts the digital human worker with the catalog it ships (the service's default one), and serves its health endpoint", {
    timeout: 120_000,
  }, async () => {
    const worker = join(mkdtempSync(join(tmpdir(), "dhs-worker-")), "app");
    await run("pnpm", deployCommand("/worker", worker), { cwd: ROOT, timeout: 100_000 });
    expect(existsSync(join(worker, "node_modules/@dhs/catalog/digital-humans.json"))).toBe(true);
    const port = await freePort();
    const child = spawn(process.execPath, ["dist/worker.js"], {
      cwd: worker,
      env: {
        PATH: process.env.PATH ?? "",
        NODE_ENV: "production",
        AGENT_HTTP_PORT: String(port),
        // Nothing listens there: the worker keeps trying, and its health endpoint says so.
        LIVEKIT_URL: `ws://127.0.0.1:${await freePort()}`,
        LIVEKIT_API_KEY: "APIimage",
        LIVEKIT_API_SECRET: "an-image-test-secret-of-32-chars!",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    await waitForOutput(child, /Server is listening on port/, { name: "the bundled worker", timeoutMs: 30_000 });
    // 503 until it is registered with LiveKit: the image's HEALTHCHECK reports it unhealthy.
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(503);
    child.kill("SIGTERM");
  });
});

describe("compose.yaml", () => {
  const { api, redis, livekit, migrate, postgres } = compose.services;

  it("defines the API, Redis, PostgreSQL and its migration, LiveKit and the digital human worker", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["api", "digital-human", "livekit", "migrate", "postgres", "redis"]);
    // The schema is made before the API starts, by the API's own image, on the same database.
    expect(api.depends_on.migrate).toEqual({ condition: "service_completed_successfully" });
    expect(migrate.image).toBe(api.image);
    expect(migrate.environment.DATABASE_URL).toBe(api.environment.DATABASE_URL);
    expect(new URL(api.environment.DATABASE_URL.replace(/\$\{[^}]*\}/, "pw")).hostname).toBe("postgres");
    expect(postgres.volumes).toEqual(["postgres-data:/var/lib/postgresql/data"]);
    expect(api.build).toBe(".");
    expect(compose.services["digital-human"].build).toEqual({ context: ".", target: "worker" });
    expect(dockerfile).toMatch(/^FROM \S+ AS worker$/m);
    expect(new URL(compose.services["digital-human"].environment.LIVEKIT_URL).hostname).toBe("livekit");
  });

  it("gives the API only variables the configuration knows, in production mode", () => {
    for (const name of Object.keys(api.environment)) expect(Object.keys(VARIABLES), name).toContain(name);
    expect(api.environment.NODE_ENV).toBe("production");
    // Production refuses to start without these.
    for (const name of ["REDIS_URL", "LIVEKIT_URL", "LIVEKIT_API_KEY", "LIVEKIT_API_SECRET", "API_KEYS_FILE"])
      expect(api.environment[name], name).toBeDefined();
  });

  it("wires the API to Redis and LiveKit, and LiveKit's webhooks back to the API with the same key", () => {
    const port = api.environment.PORT;
    expect(api.ports).toContain(`${port}:${port}`);
    expect(new URL(api.environment.REDIS_URL).hostname).toBe("redis");
    expect(new URL(api.environment.LIVEKIT_API_URL).hostname).toBe("livekit");
    expect(redis.command).toEqual(expect.arrayContaining(["--appendonly", "yes"]));
    // Compose's own interpolation syntax, not a template literal.
    const interpolated = (name: string) => ["$", "{", name, "}"].join("");
    const config = parse(
      livekit.environment.LIVEKIT_CONFIG.replaceAll(interpolated("LIVEKIT_API_KEY"), "K").replaceAll(
        interpolated("LIVEKIT_API_SECRET"),
        "S",
      ),
    );
    expect(config).toMatchObject({
      keys: { K: "S" },
      room: { auto_create: false },
      webhook: { api_key: "K", urls: [`http://api:${port}/livekit/webhook`] },
    });
    expect(api.environment.LIVEKIT_API_KEY).toBe(interpolated("LIVEKIT_API_KEY:?set LIVEKIT_API_KEY"));
  });
});
