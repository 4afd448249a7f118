// The build writes into the Python package, where the API serves it at `/` (never committed).
import { defineConfig } from "vite";

export default defineConfig({
  base: "/",
  build: {
    outDir: "../src/hippograph/app/api/dashboard_dist",
    emptyOutDir: true,
    chunkSizeWarningLimit: 2000,
  },
});
