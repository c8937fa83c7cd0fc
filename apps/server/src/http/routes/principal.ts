/**
 * GET /v1/me: the principal behind the API key, with its account's limits and use.
 */
import type { Router } from "express";
import type { AccountService } from "../../domain/account-service.js";
import { principalOf } from "../authenticate.js";
import { exactRouter } from "./exact-router.js";

export function principalRoutes(accounts: AccountService): Router {
  const router = exactRouter();
  router.get("/v1/me", async (_req, res) => {
    res.json(await accounts.principal(principalOf(res)));
  });
  return router;
}
