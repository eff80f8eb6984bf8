// Light or dark: the person's choice (Settings: System, Light or Dark), kept on this computer,
// and the system's preference when they chose System. Applied as `data-theme` on <html>, which
// style.css reads; a change of the system's preference applies at once. Also the platform's
// font families (`data-fonts`, see `fontsFor`).

export type ThemeChoice = "system" | "light" | "dark";
export type Theme = "light" | "dark";

export const THEME_KEY = "quire.theme";

export function parseChoice(raw: string | null | undefined): ThemeChoice {
  return raw === "light" || raw === "dark" ? raw : "system";
}

/** The theme shown for a choice, given whether the system prefers dark. */
export function resolveTheme(choice: ThemeChoice, systemDark: boolean): Theme {
  if (choice === "system") return systemDark ? "dark" : "light";
  return choice;
}

/**
 * Which font families style.css gives the page: on Linux (WebKitGTK) the generic ones alone
 * (`sans-serif`, `monospace`: what the desktop's fontconfig chose), elsewhere the named stacks
 * that reach the system's UI font. WebKitGTK asks fontconfig for each name of a stack, for every
 * size and weight the page uses, until one is installed; `system-ui`, `-apple-system` and
 * "Segoe UI" never are, and those lookups took about 25 ms of the first frame (src-tauri/NOTES.md,
 * "Against the smallest Tauri window").
 */
export function fontsFor(userAgent: string): "generic" | "named" {
  return /\bLinux\b/.test(userAgent) && !/\bAndroid\b/.test(userAgent) ? "generic" : "named";
}

interface Env {
  userAgent: string;
  storage: Pick<Storage, "getItem" | "setItem">;
  root: { dataset: DOMStringMap };
  media: { matches: boolean; addEventListener(type: "change", fn: () => void): void } | null;
}

function browser(): Env | null {
  if (typeof document === "undefined" || typeof localStorage === "undefined") return null;
  return {
    userAgent: typeof navigator === "undefined" ? "" : navigator.userAgent,
    storage: localStorage,
    root: document.documentElement,
    media: typeof matchMedia === "function" ? matchMedia("(prefers-color-scheme: dark)") : null,
  };
}

let current: ThemeChoice = "system";

export function themeChoice(): ThemeChoice {
  return current;
}

function apply(env: Env): void {
  env.root.dataset.theme = resolveTheme(current, env.media?.matches ?? false);
}

/** Reads the saved choice and applies it; follows the system's preference from then on. */
export function startTheme(env: Env | null = browser()): void {
  if (!env) return;
  env.root.dataset.fonts = fontsFor(env.userAgent);
  current = parseChoice(env.storage.getItem(THEME_KEY));
  apply(env);
  env.media?.addEventListener("change", () => apply(env));
}

/** The person's choice: saved, and applied at once. */
export function setThemeChoice(choice: ThemeChoice, env: Env | null = browser()): void {
  current = choice;
  if (!env) return;
  env.storage.setItem(THEME_KEY, choice);
  apply(env);
}
