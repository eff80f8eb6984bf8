import { defineConfig } from "vitest/config";

// The app loads ui/dist from inside the binary (tauri.conf.json: build.frontendDist).
export default defineConfig({
  clearScreen: false,
  // Preact's JSX runtime (the components are .tsx).
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  build: {
    // WebKitGTK 2.4x+ (Debian 12 ships 2.50): modern syntax is fine.
    target: "es2022",
    outDir: "dist",
    emptyOutDir: true,
    // One bundle loaded from the binary, not the network: CodeMirror with Markdown (which pulls
    // in HTML, CSS and JS highlighting) is ~600 kB minified.
    chunkSizeWarningLimit: 1024,
  },
  server: {
    port: 1420,
    strictPort: true,
  },
  test: {
    include: ["src/**/*.test.ts", "src/**/*.test.tsx"],
    environment: "node",
  },
});
