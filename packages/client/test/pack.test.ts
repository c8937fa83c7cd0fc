/**
 * The client as a customer's backend gets it: `pnpm pack` makes the package, an empty project outside
 * the workspace installs it from the tarball (its dependencies, openapi-fetch and standardwebhooks, from the registry),
 * type-checks code against it (the contract's types come inside the package) and loads it (with the
 * contract's list of operations, also inside, that says what is safe to retry).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const pkg = fileURLToPath(new URL("..", import.meta.url));
const tsc = join(pkg, "node_modules/typescript/bin/tsc");

describe("the packed @dhs/client", () => {
  it("installs, type-checks and loads in an empty project outside the workspace", { timeout: 180_000 }, () => {
    const out = mkdtempSync(join(tmpdir(), "dhs-client-pack-"));
    execFileSync("pnpm", ["pack", "--pack-destination", out], { cwd: pkg, stdio: "pipe" });
    const tarball = readdirSync(out).find((name) => name.endsWith(".tgz"));
    expect(tarball).toBeDefined();

    const project = mkdtempSync(join(tmpdir(), "dhs-client-consumer-"));
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({
        name: "consumer",
        private: true,
        type: "module",
        dependencies: { "@dhs/client": `file:${join(out, tarball as string)}` },
      }),
    );
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: project, stdio: "pipe" });
    const installed = JSON.parse(execFileSync("npm", ["ls", "--all", "--json"], { cwd: project, encoding: "utf8" })) as {
      dependencies: Record<string, { dependencies?: Record<string, unknown> }>;
    };
    expect(Object.keys(installed.dependencies["@dhs/client"]?.dependencies ?? {}).sort()).toEqual(["openapi-fetch", "standardwebhooks"]);

    writeFileSync(
      join(project, "consumer.ts"),
      [
        'import { createClient, DhsApiError, type Session, type SessionCreate, unwrap, verifyWebhook, type WebhookPayload } from "@dhs/client";',
        'const dhs = createClient({ baseUrl: "http://127.0.0.1:9", apiKey: "dhs_key", maxRetries: 0 });',
        'const body: SessionCreate = { participant_identity: "user-1", tags: ["onboarding"] };',
        "export async function start(): Promise<Session> {",
        "  const session = unwrap(await dhs.createSession(body));",
        "  // @ts-expect-error the contract's Session has exactly its eight fields",
        "  session.no_such_field;",
        '  const status: "created" | "active" | "completed" | "failed" | "cancelled" = session.status;',
        "  return { ...session, status };",
        "}",
        "export const isApiError = (e: unknown) => e instanceof DhsApiError;",
        "export const receive = (raw: string, headers: Record<string, string>, secret: string): WebhookPayload => verifyWebhook(raw, headers, secret);",
        "",
      ].join("\n"),
    );
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "NodeNext",
          moduleResolution: "NodeNext",
          target: "ES2022",
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          lib: ["ES2023", "DOM"],
        },
        files: ["consumer.ts"],
      }),
    );
    try {
      execFileSync(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: project, encoding: "utf8", stdio: "pipe" });
    } catch (error) {
      throw new Error(`the consumer does not type-check:\n${(error as { stdout?: string }).stdout ?? ""}`);
    }

    const loaded = execFileSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        'const m = await import("@dhs/client"); console.log(typeof m.createClient, typeof m.unwrap, m.isSafeToRetry(new Request("http://x/v1/sessions/s/end", { method: "POST" })))',
      ],
      {
        cwd: project,
        encoding: "utf8",
      },
    );
    expect(loaded.trim()).toBe("function function true");
  });
});
