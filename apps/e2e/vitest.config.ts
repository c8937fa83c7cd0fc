import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/build-livekit.ts"],
    // Real WebRTC, real timers: minutes, not milliseconds. Tests run one after another.
    testTimeout: 120_000,
    hookTimeout: 600_000,
    fileParallelism: false,
  },
});
