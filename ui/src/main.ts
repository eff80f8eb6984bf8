import { invoke, isTauri } from "@tauri-apps/api/core";
import { describeError, parseAppInfo, versionLabel } from "./app-info";
import { mountEditor } from "./editor";
import "./style.css";

function element(id: string): HTMLElement {
  const found = document.getElementById(id);
  if (!found) throw new Error(`#${id} is missing from index.html`);
  return found;
}

const WELCOME = `# Welcome to Quire

Write here. Notes, tabs and sync arrive with the next issues.
`;

async function showVersion(target: HTMLElement): Promise<void> {
  if (!isTauri()) {
    target.textContent = "dev";
    return;
  }
  try {
    const info = parseAppInfo(await invoke("app_info"));
    target.textContent = versionLabel(info);
    target.title = `${info.name} ${info.version}`;
  } catch (error) {
    target.textContent = "version unknown";
    target.title = describeError(error);
  }
}

/** Tells the app when the first frame is on screen (for scripts/app-bench.sh). */
function reportFirstPaint(): void {
  if (!isTauri()) return;
  // The second frame callback runs once the first frame has been painted.
  requestAnimationFrame(() =>
    requestAnimationFrame(() => {
      const paintedAtUnixMs = performance.timeOrigin + performance.now();
      const navigationStartedAtUnixMs = performance.timeOrigin;
      invoke("report_first_paint", { navigationStartedAtUnixMs, paintedAtUnixMs }).catch((error: unknown) =>
        console.warn("report_first_paint:", describeError(error)),
      );
    }),
  );
}

mountEditor(element("editor"), WELCOME);
reportFirstPaint();
void showVersion(element("app-version"));
