// Light or dark: the person's choice (Settings: System, Light or Dark), kept on this computer,
// and the system's preference when they chose System. Applied as `data-theme` on <html>, which
// style.css reads; a change of the system's preference applies at once.

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

interface Env {
  storage: Pick<Storage, "getItem" | "setItem">;
  root: { dataset: DOMStringMap };
  media: { matches: boolean; addEventListener(type: "change", fn: () => void): void } | null;
}

function browser(): Env | null {
  if (typeof document === "undefined" || typeof localStorage === "undefined") return null;
  return {
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
