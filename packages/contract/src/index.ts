/**
 * The contract of the Digital Human Session Service (openapi/v1.yaml) as TypeScript: the generated
 * `paths`/`components`/`operations` types, one alias per schema, and the enum values, so the server and
 * the client share one definition of every shape.
 */
import { fileURLToPath } from "node:url";
import type { components, operations } from "./generated/v1.js";

export type { components, operations, paths } from "./generated/v1.js";
export { endReasonValues, errorCodeValues, scopeValues, sessionStatusValues } from "./generated/v1.js";

type Schemas = components["schemas"];

export type Session = Schemas["Session"];
export type SessionStatus = Schemas["SessionStatus"];
export type SessionCreate = Schemas["SessionCreate"];
export type SessionSummary = Schemas["SessionSummary"];
export type SessionList = Schemas["SessionList"];
export type EndReason = Schemas["EndReason"];
export type Principal = Schemas["Principal"];
export type Scope = Schemas["Scope"];
export type ApiError = Schemas["ApiError"];
export type ErrorCode = Schemas["ErrorCode"];
export type ListSessionsQuery = NonNullable<operations["listSessions"]["parameters"]["query"]>;
export type OperationId = keyof operations;

/** Absolute path of the OpenAPI document these types were generated from (shipped in dist/). */
export const openapiDocumentPath: string = fileURLToPath(new URL("./openapi.yaml", import.meta.url));
