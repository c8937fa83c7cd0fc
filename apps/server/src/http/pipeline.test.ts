import type { NextFunction, Request, RequestHandler, Response } from "express";
import { describe, expect, it } from "vitest";
import { pipeline } from "./pipeline.js";

/** Runs the pipeline once and resolves with what it handed on to Express (undefined: nothing went wrong). */
function run(steps: RequestHandler[]): Promise<{ handedOn: unknown; calls: string[] }> {
  const calls: string[] = [];
  const req = { calls } as unknown as Request;
  return new Promise((resolve) => {
    const done: NextFunction = (error?: unknown) => resolve({ handedOn: error, calls });
    pipeline(steps)(req, {} as Response, done);
  });
}

const step =
  (name: string): RequestHandler =>
  (req, _res, next) => {
    (req as unknown as { calls: string[] }).calls.push(name);
    next();
  };

describe("pipeline", () => {
  it("runs every step in order, then hands on to Express with no error", async () => {
    expect(await run([step("a"), step("b"), step("c")])).toEqual({ handedOn: undefined, calls: ["a", "b", "c"] });
  });

  it("runs a step after an asynchronous one once it calls next", async () => {
    const slow: RequestHandler = async (req, res, next) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      step("slow")(req, res, next);
    };
    expect((await run([slow, step("after")])).calls).toEqual(["slow", "after"]);
  });

  it("stops at a step that passes an error, and hands that error to Express", async () => {
    const failure = new Error("refused");
    const refuse: RequestHandler = (_req, _res, next) => next(failure);
    expect(await run([step("a"), refuse, step("never")])).toEqual({ handedOn: failure, calls: ["a"] });
  });

  it("stops at a step that throws, and hands what it threw to Express", async () => {
    const failure = new Error("thrown");
    const thrower: RequestHandler = () => {
      throw failure;
    };
    expect(await run([thrower, step("never")])).toEqual({ handedOn: failure, calls: [] });
  });

  it("stops at a step whose promise rejects, and hands the rejection to Express", async () => {
    const failure = new Error("rejected");
    const rejecting: RequestHandler = async () => {
      throw failure;
    };
    expect(await run([rejecting, step("never")])).toEqual({ handedOn: failure, calls: [] });
  });

  it("hands on an error even when a promise rejects without a reason", async () => {
    const rejecting = (() => Promise.reject(undefined)) as RequestHandler;
    const { handedOn } = await run([rejecting]);
    expect(handedOn).toBeInstanceOf(Error);
  });
});
