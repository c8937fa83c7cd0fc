import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

// Unit tests beside the code; the model-based lifecycle test (test/model) and the HTTP integration suite
// (test/api) each run three times: on production's stores (a real Redis with PostgreSQL, each harness a
// database of its own), on a local Redis Cluster (three masters, three replicas) with PostgreSQL, and on
// the in-memory store, so every adapter keeps one behaviour. Redis-only behaviour (outages, several
// processes on one Redis), PostgreSQL's own (outages, partitions, the schema) and the built process are
// tested on Redis and PostgreSQL alone.
export default defineConfig({
  test: {
    // More files at once than cores: these suites mostly wait on real Redis, PostgreSQL and timers (one
    // file at a time kept two cores 36% busy), and vitest's default, a core less than the machine has,
    // runs one file at a time on two cores. Three at once: api:memory 210 s to 102 s, the whole suite in
    // 9.5 minutes (the tests' own times add up to 22).
    maxWorkers: Math.max(3, availableParallelism()),
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["src/**/*.test.ts"],
          // Type tests (*.test-d.ts) check what the contract's types promise the handlers; tsc runs them.
          typecheck: { enabled: true, include: ["src/**/*.test-d.ts"], tsconfig: "./tsconfig.json" },
        },
      },
      {
        extends: true,
        test: {
          name: "api:memory",
          include: ["test/api/**/*.test.ts", "test/model/**/*.test.ts", "test/knowledge/**/*.test.ts"],
          env: { DHS_TEST_STORE: "memory" },
        },
      },
      {
        extends: true,
        test: {
          name: "api:redis",
          include: [
            "test/api/**/*.test.ts",
            "test/model/**/*.test.ts",
            "test/store/**/*.test.ts",
            "test/redis/**/*.test.ts",
            "test/process/**/*.test.ts",
            "test/knowledge/**/*.test.ts",
            "test/postgres/**/*.test.ts",
          ],
          env: { DHS_TEST_STORE: "redis" },
          globalSetup: ["test/support/global-setup.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "api:cluster",
          include: ["test/api/**/*.test.ts", "test/model/**/*.test.ts", "test/store/**/*.test.ts", "test/cluster/**/*.test.ts"],
          env: { DHS_TEST_STORE: "cluster" },
          globalSetup: ["test/support/global-setup.ts"],
        },
      },
      {
        // The recordings' object store: the local directory with the service's routes, and the S3
        // adapter against versitygw, a real S3 API (built with Go once and cached, as livekit-server is).
        extends: true,
        test: {
          name: "api:storage",
          include: ["test/storage/**/*.test.ts"],
          globalSetup: ["test/support/s3-server-setup.ts"],
        },
      },
      {
        // 20 000 generated and mutated requests against the service on Redis.
        extends: true,
        test: {
          name: "fuzz",
          include: ["test/fuzz/**/*.test.ts"],
          env: { DHS_TEST_STORE: "redis" },
          globalSetup: ["test/support/global-setup.ts"],
        },
      },
      {
        // Reads every log line the tiers before it wrote (.test-logs/); run on its own, after them.
        extends: true,
        test: { name: "logs", include: ["test/logs/**/*.test.ts"] },
      },
      {
        // Faults under load (Redis killed, LiveKit gone, processes killed): slower, run as their own tier.
        extends: true,
        test: { name: "fault", include: ["test/fault/**/*.test.ts"], testTimeout: 60_000, fileParallelism: false },
      },
    ],
  },
});
