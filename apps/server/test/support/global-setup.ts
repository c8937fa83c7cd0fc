/**
 * One redis-server for the run's integration tests; its URL reaches the tests through vitest's provide.
 */
import type { TestProject } from "vitest/node";
import { startRedis } from "./redis-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const redis = await startRedis();
  project.provide("redisUrl", redis.url);
  return () => redis.stop();
}
