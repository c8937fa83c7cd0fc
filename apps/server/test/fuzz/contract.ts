/**
 * The contract as the fuzzer reads it: every operation with its path template, parameters, request body
 * schema and documented responses, plus Ajv validators (JSON Schema 2020-12, as OpenAPI 3.1 uses) for
 * the response bodies it promises.
 */
import { readFileSync } from "node:fs";
import { openapiDocumentPath } from "@dhs/contract";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { parse } from "yaml";
import { resolveRef, type Schema } from "./schema-arbitrary.js";

export const document = parse(readFileSync(openapiDocumentPath, "utf8")) as Schema;

export interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  required: boolean;
  schema: Schema;
}

export interface Operation {
  id: string;
  method: string;
  template: string;
  pattern: RegExp;
  parameters: Parameter[];
  body: Schema | undefined;
  /** status -> the response object (refs resolved). */
  responses: Record<string, Schema>;
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const deref = (node: Schema) => (node.$ref ? resolveRef(document, node.$ref) : node);

export const operations: Operation[] = Object.entries(document.paths as Record<string, Schema>).flatMap(([template, item]) =>
  Object.entries(item)
    .filter(([method]) => METHODS.includes(method))
    .map(([method, op]: [string, Schema]) => ({
      id: op.operationId as string,
      method: method.toUpperCase(),
      template,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, "([^/]+)")}$`),
      parameters: [...(item.parameters ?? []), ...(op.parameters ?? [])].map(deref) as Parameter[],
      body: op.requestBody ? deref(op.requestBody).content?.["application/json"]?.schema : undefined,
      responses: Object.fromEntries(Object.entries(op.responses as Record<string, Schema>).map(([status, r]) => [status, deref(r)])),
    })),
);

/** The operation a request reaches, if any: method and path both match. */
export function operationFor(method: string, path: string): Operation | undefined {
  const pathname = path.split("?")[0] ?? "";
  return operations.find((op) => op.method === method && op.pattern.test(pathname));
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(document, "contract");

const compiled = new WeakMap<Schema, ReturnType<typeof ajv.compile>>();

function rewriteRefs(schema: Schema): Schema {
  // Local refs (#/components/...) point into the document registered as "contract".
  return JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\//g, '"$ref":"contract#/'));
}

export function validator(schema: Schema): (value: unknown) => string[] {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(rewriteRefs(schema));
    compiled.set(schema, validate);
  }
  const v = validate;
  return (value) => (v(value) ? [] : (v.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`));
}
