/**
 * Bearer API keys: authenticate answers 401 unauthorized for a missing, malformed or unknown key;
 * authorize answers 403 forbidden, naming the missing scope, for a key without the scope of the operation
 * the contract matched (404 when it matched none), and 403 test_key_required for a live key calling an
 * operation the contract keeps to test keys (`x-key-modes: [test]`, the test helpers).
 * Both run before the body is parsed, so a request without a valid key learns nothing about its body;
 * the rate limit sits between them, so a key that keeps calling what it may not is limited too.
 */
import type { NextFunction, Request, Response } from "express";
import type { ApiKeyRing, Principal } from "../domain/accounts/api-keys.js";
import { AppError } from "../domain/app-error.js";
import { testKeyRequired } from "../domain/sessions/test-session-events.js";
import { matchedOperation } from "./contract-validator.js";
import { unknownRoute } from "./error-handler.js";
import type { OperationSecurity } from "./operation-security.js";

const BEARER = /^Bearer[ ]+(\S+)[ ]*$/i;

export function authenticate(keys: ApiKeyRing) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const secret = BEARER.exec(req.get("Authorization") ?? "")?.[1];
    const principal = secret === undefined ? undefined : keys.authenticate(secret);
    if (!principal) {
      return next(
        new AppError("unauthorized", "Missing or invalid API key. Send `Authorization: Bearer <API key>`.", {
          headers: { "WWW-Authenticate": 'Bearer realm="dhs"' },
        }),
      );
    }
    res.locals.principal = principal;
    next();
  };
}

/** Runs after the contract's operation was matched (contract-validator.ts), and refuses when none was. */
export function authorize(security: OperationSecurity) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const operation = matchedOperation(req);
    const principal = principalOf(res);
    const decision = security.authorize(operation, principal.scopes);
    if (!decision.allowed) {
      if (!operation?.schema) return next(unknownRoute(req));
      return next(new AppError("forbidden", { missing_scope: decision.missing ?? null }));
    }
    // A test helper called with a live key: refused before its body is looked at, like a missing scope.
    const modes = operation?.schema?.["x-key-modes"];
    if (modes !== undefined && !modes.includes(principal.mode)) {
      return next(testKeyRequired());
    }
    next();
  };
}

export function principalOf(res: Response): Principal {
  const principal = res.locals.principal as Principal | undefined;
  if (!principal) throw new Error("route reached without authentication");
  return principal;
}
