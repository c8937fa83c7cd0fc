import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Commands as a user types them: installs and builds included. One block after another.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    fileParallelism: false,
  },
});
