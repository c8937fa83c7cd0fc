import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Prism takes several seconds to start on a 2-core machine.
    hookTimeout: 60_000,
  },
});
