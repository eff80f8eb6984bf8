// Entry point: mounts the app, tells the shell when the first frame is on screen (for
// scripts/app-bench.sh), then loads the Notes.
//
// In `vite` dev mode inside a plain browser (no Tauri), an in-memory stand-in for the commands
// is installed so the screens can be seen; it is never part of a production build.

import { isTauri } from "@tauri-apps/api/core";
import { render } from "preact";
import { reportFirstPaint } from "./api";
import { start } from "./app-state";
import { startTheme } from "./lib/theme";
import { App } from "./components/App";
import { markdownEditor } from "./components/NoteView";
import { warmUpGrid } from "./components/SheetEditor";
import "./style.css";

/** `mountedAt`: when the shell was rendered (ms after the navigation started). */
function firstPaint(mountedAt: number): void {
  if (!isTauri()) return;
  // The second frame callback runs once the first frame has been painted.
  requestAnimationFrame(() =>
    requestAnimationFrame(() => {
      const origin = performance.timeOrigin;
      reportFirstPaint(origin, origin + mountedAt, origin + performance.now()).catch((error: unknown) =>
        console.warn("report_first_paint:", error),
      );
    }),
  );
}

/**
 * After the first frame, while the backend starts: load the Markdown editor's chunk, then lay
 * out a grid off screen, so that a Note opened later waits for neither (see `warmUpGrid`).
 */
function preloadEditors(): void {
  requestAnimationFrame(() =>
    requestAnimationFrame(() =>
      setTimeout(() => {
        markdownEditor
          .load()
          .catch((error: unknown) => console.warn("preloading the editor:", error))
          .finally(() => setTimeout(warmUpGrid, 0));
      }, 0),
    ),
  );
}

async function main(): Promise<void> {
  if (import.meta.env.DEV && !isTauri()) {
    const { installDevBackend } = await import("./dev/fake-backend");
    installDevBackend();
    const { app } = await import("./app-state");
    (window as unknown as { __quireApp: typeof app }).__quireApp = app;
  }
  startTheme();
  const root = document.getElementById("app");
  if (!root) throw new Error("#app is missing from index.html");
  render(<App />, root);
  firstPaint(performance.now());
  preloadEditors();
  await start();
}

void main();
