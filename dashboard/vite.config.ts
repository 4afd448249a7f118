// The build writes into the Python package, where the API serves it at `/` (never committed).
// `npm run dev` serves the sources and passes /graphql (HTTP and websocket) to a running
// `hippograph serve` on HIPPOGRAPH_API_URL (default http://127.0.0.1:8000).
import { defineConfig } from "vite";

const api = process.env.HIPPOGRAPH_API_URL ?? "http://127.0.0.1:8000";

export default defineConfig({
  base: "/",
  build: {
    outDir: "../src/hippograph/app/api/dashboard_dist",
    emptyOutDir: true,
    chunkSizeWarningLimit: 2000,
  },
  server: {
    host: "127.0.0.1",
    proxy: { "/graphql": { target: api, ws: true } },
  },
});
