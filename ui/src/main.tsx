// Entry point: mounts the app, tells the shell when the first frame is on screen (for
// scripts/app-bench.sh), then loads the Notes.
//
// In `vite` dev mode inside a plain browser (no Tauri), an in-memory stand-in for the commands
// is installed so the screens can be seen; it is never part of a production build.

import { isTauri } from "@tauri-apps/api/core";
import { render } from "preact";
import { reportFirstPaint } from "./api";
import { start } from "./app-state";
import { App } from "./components/App";
import "./style.css";

function firstPaint(): void {
  if (!isTauri()) return;
  // The second frame callback runs once the first frame has been painted.
  requestAnimationFrame(() =>
    requestAnimationFrame(() => {
      const paintedAtUnixMs = performance.timeOrigin + performance.now();
      reportFirstPaint(performance.timeOrigin, paintedAtUnixMs).catch((error: unknown) =>
        console.warn("report_first_paint:", error),
      );
    }),
  );
}

async function main(): Promise<void> {
  if (import.meta.env.DEV && !isTauri()) {
    const { installDevBackend } = await import("./dev/fake-backend");
    installDevBackend();
    const { app } = await import("./app-state");
    (window as unknown as { __quireApp: typeof app }).__quireApp = app;
  }
  const root = document.getElementById("app");
  if (!root) throw new Error("#app is missing from index.html");
  render(<App />, root);
  firstPaint();
  await start();
}

void main();
