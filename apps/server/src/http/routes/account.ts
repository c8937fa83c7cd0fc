/**
 * /v1/digital-humans and /v1/usage routes: translate HTTP to AccountService calls and back, nothing more.
 */
import type { DigitalHumanList, GetUsageQuery, ListDigitalHumansQuery } from "@dhs/contract";
import type { Router } from "express";
import type { AccountService } from "../../domain/account-service.js";
import { principalOf } from "../authenticate.js";
import { decodeIdCursor, encodeIdCursor, ID_SHAPES } from "../cursor.js";
import { exactRouter } from "./exact-router.js";

export function accountRoutes(accounts: AccountService): Router {
  const router = exactRouter();

  router.get("/v1/digital-humans", (req, res) => {
    // The validator has coerced limit to a number.
    const query = req.query as ListDigitalHumansQuery;
    const after = query.cursor === undefined ? undefined : decodeIdCursor(query.cursor, ID_SHAPES.uuid);
    const page = accounts.digitalHumans(principalOf(res), query.limit ?? 20, after);
    const body: DigitalHumanList = { data: page.items, next_cursor: page.next === null ? null : encodeIdCursor(page.next) };
    res.json(body);
  });

  router.get("/v1/digital-humans/:digital_human_id", (req, res) => {
    res.json(accounts.digitalHuman(principalOf(res), (req.params.digital_human_id as string).toLowerCase()));
  });

  router.get("/v1/usage", async (req, res) => {
    const query = req.query as GetUsageQuery;
    res.json(await accounts.usage(principalOf(res), query.from, query.to));
  });

  return router;
}
