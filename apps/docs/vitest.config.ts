import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Starting Chromium and rendering a large page takes seconds on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
