// Writes src/generated/operations.ts from openapi/v1.yaml (`pnpm generate`): every operation of the
// contract's paths as data a program can run on (its method, path template, security scheme, whether it
// is safe to retry, and the header parameters it takes), beside the types openapi-typescript makes. With --check it writes nothing and fails
// when the committed file differs from what the contract gives, as openapi-typescript --check does.
import { readFileSync, writeFileSync } from "node:fs";
import { parse } from "yaml";

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const source = new URL("../../../openapi/v1.yaml", import.meta.url);
const target = new URL("../src/generated/operations.ts", import.meta.url);

const doc = parse(readFileSync(source, "utf8"));

/** A parameter as written, or the one its local $ref points at. */
function resolve(node) {
  if (!node.$ref) return node;
  const path = node.$ref.replace(/^#\//, "").split("/");
  return resolve(path.reduce((at, key) => at[key], doc));
}

const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => METHODS.includes(method))
    .map(([method, op]) => {
      const security = op.security ?? doc.security ?? [];
      const schemes = [...new Set(security.flatMap((requirement) => Object.keys(requirement)))];
      if (schemes.length !== 1) throw new Error(`${op.operationId}: expected one security scheme, found ${schemes.join(", ") || "none"}`);
      // A GET only reads, so it is as safe to repeat as what the contract marks.
      const retrySafe = method === "get" || op["x-retry-safe"] === true;
      const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(resolve);
      const headerParameters = parameters.filter((parameter) => parameter.in === "header").map((parameter) => parameter.name);
      return { operationId: op.operationId, method: method.toUpperCase(), path, scheme: schemes[0], retrySafe, headerParameters };
    }),
);

/** One operation as a line of TypeScript: `  { operationId: "getSession", method: "GET", ... },`. */
function literal(op) {
  const fields = Object.entries(op).map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
  return `  { ${fields.join(", ")} },`;
}

const text = `/**
 * Generated from openapi/v1.yaml by scripts/generate-operations.mjs (pnpm generate); do not edit.
 * Every operation of the contract's paths: its method, path template, security scheme (bearerAuth: an
 * API key's; digitalHumanToken: the digital human's) and whether it is safe to retry without an
 * Idempotency-Key (a GET, or marked \`x-retry-safe\`), and the header parameters it takes, spelled as the
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
${operations.map(literal).join("\n")}
] as const satisfies readonly OperationInfo[];
`;

if (process.argv.includes("--check")) {
  if (readFileSync(target, "utf8") !== text) {
    console.error("src/generated/operations.ts is stale: run pnpm generate and commit");
    process.exit(1);
  }
} else {
  writeFileSync(target, text);
}
