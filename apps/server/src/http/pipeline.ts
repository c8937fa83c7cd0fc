/**
 * Runs a fixed list of middleware as one. Express matches and enters each layer it holds on every
 * request, so the API's dozen steps as a dozen layers cost a dozen path matches and trips through its router;
 * as one layer, one. A step that throws, rejects or passes an error ends the list and hands the error to
 * Express, exactly as Express would.
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";

export function pipeline(steps: readonly RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, done: NextFunction): void => {
    let index = 0;
    const next = (error?: unknown): void => {
      if (error !== undefined && error !== null) return done(error);
      const step = steps[index++];
      if (step === undefined) return done();
      try {
        const result: unknown = step(req, res, next);
        if (result instanceof Promise) result.catch((rejection: unknown) => done(rejection ?? new Error("Rejected promise")));
      } catch (thrown) {
        done(thrown);
      }
    };
    next();
  };
}
