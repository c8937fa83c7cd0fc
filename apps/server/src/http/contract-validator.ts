/**
 * express-openapi-validator, in two steps with our own checks between them: `match` finds the contract's
 * operation for the request (and its path parameters), `validate` checks the request (and, in tests,
 * the response) against it. Authorization sits between the two so it reads the scopes of the operation
 * that was matched, and body parsing sits between them too, so a key without the scope is answered 403
 * before a malformed body could be answered 422.
 *
 * The validator returns its steps as one list of named middleware functions; the split is by those
 * names, and an unexpected list stops the start rather than leaving a step out.
 *
 * The validator's match honours the app's case-sensitive routing but, on path-to-regexp 8, not strict
 * routing: it would match `/v1/sessions/` to createSession. So `match` ends with a re-check of the
 * matched route, compiled once per route, exact in case and trailing slash; a request that fails it is
 * an unknown route.
 *
 * An operation without a request body ignores any body sent with it, and its Content-Type; one without
 * query parameters ignores the query string (the contract's guide says so): `match` ends by dropping the
 * Content-Type of the first (whose body `takesBody` tells the body parser to leave unread) and emptying
 * the query of the second, so neither can be answered 413 or 422.
 *
 * The validator also coerces query strings to the contract's types the way JavaScript does, so it would
 * take `limit=1e2`, `limit=0x10` or `limit= 5` for integers. `validate` therefore starts by requiring
 * that every integer query parameter of the matched operation is written as a plain decimal integer,
 * and that no query value holds what no body may (U+0000, a lone surrogate: request-guards.ts).
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import { pathToRegexp } from "path-to-regexp";
import { AppError } from "../domain/app-error.js";
import { unknownRoute } from "./error-handler.js";
import { stringProblem } from "./request-guards.js";

type ValidatorOptions = Parameters<typeof OpenApiValidator.middleware>[0];

type Parameter = { name?: string; in?: string; schema?: { type?: unknown } };

/** One of an operation's alternative security requirements: each scheme with the scopes it needs. */
export type SecurityRequirement = Readonly<Record<string, readonly string[]>>;

/** What the validator's match leaves on the request (`req.openapi`), as far as this service reads it. */
export interface MatchedOperation {
  /** The operation's path in Express's syntax (`/v1/sessions/:session_id`). */
  expressRoute?: string;
  /** The same path as the contract spells it (`/v1/sessions/{session_id}`). */
  openApiRoute?: string;
  schema?: {
    operationId?: string;
    security?: SecurityRequirement[];
    /** The key modes that may call the operation (the contract's `x-key-modes`); absent: every mode. */
    "x-key-modes"?: readonly string[];
    requestBody?: unknown;
    parameters?: Parameter[];
  };
}

/** The contract's operation matched for the request; undefined before `match`, or when none was. */
export function matchedOperation(req: Request): MatchedOperation | undefined {
  return (req as Request & { openapi?: MatchedOperation }).openapi;
}

const MATCH = ["pathParamsMiddleware", "metadataMiddleware"];
// Security is off (our own authentication runs first); the validator still lists a step that passes.
const VALIDATE = ["securityMiddleware", "requestMiddleware", "responseMiddleware"];

export interface ContractValidator {
  match: RequestHandler[];
  validate: RequestHandler[];
}

export function contractValidator(options: ValidatorOptions): ContractValidator {
  const steps = OpenApiValidator.middleware(options) as RequestHandler[];
  const names = steps.map((step) => step.name);
  const unknown = names.filter((name) => !MATCH.includes(name) && !VALIDATE.includes(name));
  if (unknown.length > 0 || !MATCH.every((name) => names.includes(name)) || !names.includes("requestMiddleware")) {
    throw new Error(`express-openapi-validator's middleware list changed (${names.join(", ")}): review http/contract-validator.ts`);
  }
  return {
    match: [...steps.filter((step) => MATCH.includes(step.name)), exactMatch(), ignoreWhatIsNotTaken],
    validate: [checkQuery, ...steps.filter((step) => VALIDATE.includes(step.name))],
  };
}

function exactMatch(): RequestHandler {
  const exact = new Map<string, RegExp>();
  return (req: Request, _res: Response, next: NextFunction): void => {
    const route = matchedOperation(req)?.expressRoute;
    if (route === undefined) return next();
    let pattern = exact.get(route);
    if (!pattern) {
      pattern = pathToRegexp(route, { sensitive: true, trailing: false }).regexp;
      exact.set(route, pattern);
    }
    // The validator matched against the URL's path as sent; so does this.
    if (pattern.test(req.originalUrl.split("?")[0] ?? "")) return next();
    next(unknownRoute(req));
  };
}

const DECIMAL_INTEGER = /^-?(0|[1-9][0-9]*)$/;

function checkQuery(req: Request, _res: Response, next: NextFunction): void {
  const parameters = matchedOperation(req)?.schema?.parameters ?? [];
  const issues = parameters
    .filter((parameter) => parameter.in === "query" && parameter.name !== undefined)
    .flatMap((parameter) => {
      const name = parameter.name as string;
      const raw = req.query[name];
      const values = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
      const problem = values.map((value) => (typeof value === "string" ? stringProblem(value) : undefined)).find(Boolean);
      if (problem !== undefined) return [{ location: "query" as const, path: name, message: problem }];
      return parameter.schema?.type === "integer" && values.some((value) => typeof value !== "string" || !DECIMAL_INTEGER.test(value))
        ? [{ location: "query" as const, path: name, message: "must be an integer written in decimal digits" }]
        : [];
    });
  next(issues.length > 0 ? new AppError("validation_failed", issues) : undefined);
}

/** Whether the request's body is to be read: not for an operation the contract gives no request body. */
export function takesBody(req: Request): boolean {
  const schema = matchedOperation(req)?.schema;
  // The validator's preprocessing leaves requestBody null (not absent) on operations without one.
  return schema === undefined || (schema.requestBody !== undefined && schema.requestBody !== null);
}

function ignoreWhatIsNotTaken(req: Request, _res: Response, next: NextFunction): void {
  const schema = matchedOperation(req)?.schema;
  // Nothing downstream may act on the type of a body that is not read (the validators would).
  if (!takesBody(req)) delete req.headers["content-type"];
  if (schema && !(schema.parameters ?? []).some((parameter) => parameter.in === "query")) {
    // Express 5 computes req.query from the URL on each read; this request's is empty.
    Object.defineProperty(req, "query", { value: {}, writable: true, configurable: true });
  }
  next();
}
