/**
 * GET /v1/me: the principal behind the API key.
 */
import { type Principal, scopeValues } from "@dhs/contract";
import type { Router } from "express";
import { principalOf } from "../authenticate.js";
import { exactRouter } from "./exact-router.js";

export function principalRoutes(): Router {
  const router = exactRouter();
  router.get("/v1/me", (_req, res) => {
    const principal = principalOf(res);
    const body: Principal = {
      key_id: principal.keyId,
      account_id: principal.accountId,
      scopes: scopeValues.filter((scope) => principal.scopes.has(scope)),
    };
    res.json(body);
  });
  return router;
}
