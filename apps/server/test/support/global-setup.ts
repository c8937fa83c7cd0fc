/**
 * The run's Redis for the integration tests, its URL handed to them through vitest's provide: one
 * redis-server, or with DHS_TEST_STORE=cluster a local Redis Cluster of three masters and three replicas,
 * and a migrated PostgreSQL database that each harness copies (Redis never runs without it).
 */

import { startRedis, startRedisCluster } from "@dhs/testkit";
import type { TestProject } from "vitest/node";
import type { RedisMode } from "../../src/config.js";
import { migratedDatabase } from "./database.js";

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl: string;
    redisMode: RedisMode;
    /** The migrated template database each harness copies. */
    databaseTemplate: string;
  }
}

export default async function setup(project: TestProject) {
  const cluster = project.config.env?.DHS_TEST_STORE === "cluster";
  const redis = cluster ? await startRedisCluster() : await startRedis();
  project.provide("redisUrl", redis.url);
  project.provide("redisMode", cluster ? "cluster" : "standalone");
  const template = await migratedDatabase();
  project.provide("databaseTemplate", template.name);
  return async () => {
    await template.drop();
    await redis.stop();
  };
}
