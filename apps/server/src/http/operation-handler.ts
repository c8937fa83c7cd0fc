/**
 * An operation's handler typed by the contract: `answer(operationId, handler)` gives the handler the
 * request's path parameters, query, header parameters and body as openapi-typescript generated them for
 * `operations[operationId]`, and takes back the reply the contract allows: the body of its success
 * response, its status (required where it is not simply 200), and the headers that response declares. A
 * handler that returns another shape does not compile.
 */
import { type OperationId, operationList, type operations } from "@dhs/contract";
import type { RequestHandler, Response } from "express";
import type { OkStatus, OperationRequestBodyContent } from "openapi-typescript-helpers";
import type { UploadedFile } from "../domain/knowledge/document-upload.js";
import { uploadOf } from "./multipart-body.js";

type ParametersOf<Id extends OperationId> = operations[Id]["parameters"];

/** One part of the request as the operation defines it; an empty object where it defines none. */
type Part<T> = [NonNullable<T>] extends [never] ? Record<string, never> : NonNullable<T>;

/** The request of one operation, as the contract's validator let it through. */
export interface OperationRequest<Id extends OperationId> {
  path: Part<ParametersOf<Id>["path"]>;
  /** With its integers and booleans coerced by the validator. */
  query: Part<ParametersOf<Id>["query"]>;
  /** The header parameters, by the contract's spelling of their names. */
  header: Part<ParametersOf<Id>["header"]>;
  body: OperationRequestBodyContent<operations[Id]>;
  /** The file of a multipart body (createDocument's), read by multipart-body.ts. */
  upload?: UploadedFile;
}

type Responses<Id extends OperationId> = operations[Id]["responses"];
type SuccessStatus<Id extends OperationId> = Extract<keyof Responses<Id>, OkStatus & number>;
type JsonBody<R> = R extends { content: { "application/json": infer Body } } ? Body : never;
/** The headers a response declares (not the index signature openapi-typescript adds), each optional. */
type DeclaredHeaders<R> = R extends { headers: infer H } ? { [K in keyof H as string extends K ? never : K]?: H[K] } : never;

type ReplyWith<Id extends OperationId, Status extends keyof Responses<Id>> = {
  status: Status;
  body: JsonBody<Responses<Id>[Status]>;
  headers?: DeclaredHeaders<Responses<Id>[Status]>;
};

/**
 * What a handler returns: the success response of its operation. Its status may be left out when 200 is
 * the operation's only success; an operation answered 201 or 202, or with a choice of successes, says it.
 */
export type OperationReply<Id extends OperationId> = [SuccessStatus<Id>] extends [200]
  ? Omit<SuccessReply<Id>, "status"> & { status?: 200 }
  : SuccessReply<Id>;

type SuccessReply<Id extends OperationId> = { [Status in SuccessStatus<Id>]: ReplyWith<Id, Status> }[SuccessStatus<Id>];

/** A reply as it is sent, whatever its operation. */
interface SentReply {
  status?: number | undefined;
  body: unknown;
  headers?: Record<string, unknown> | undefined;
}

const HEADER_PARAMETERS = new Map<string, readonly string[]>(operationList.map((op) => [op.operationId, op.headerParameters]));

/** Express middleware that answers the operation with the handler's reply, as JSON. */
export function answer<Id extends OperationId>(
  operationId: Id,
  handler: (request: OperationRequest<Id>, res: Response) => OperationReply<Id> | Promise<OperationReply<Id>>,
): RequestHandler {
  const headerNames = HEADER_PARAMETERS.get(operationId) ?? [];
  return async (req, res) => {
    const header = Object.fromEntries(headerNames.flatMap((name) => (req.get(name) === undefined ? [] : [[name, req.get(name)]])));
    // The one typed boundary between Express and the contract. The validator has checked this request
    // against the operation's path parameters, query, headers and body (and coerced the query) before
    // any handler runs, so what reaches here is the contract's request of this operation.
    const upload = uploadOf(req);
    const request = { path: req.params, query: req.query, header, body: req.body, ...(upload ? { upload } : {}) } as OperationRequest<Id>;
    const reply: SentReply = await handler(request, res);
    for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, String(value));
    res.status(reply.status ?? 200).json(reply.body);
  };
}
