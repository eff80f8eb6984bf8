import { describe, expect, it } from "vitest";
import { THEME_KEY, parseChoice, resolveTheme, setThemeChoice, startTheme, themeChoice } from "./theme";

function env(saved: string | null, systemDark: boolean) {
  const store = new Map<string, string>(saved === null ? [] : [[THEME_KEY, saved]]);
  const listeners: (() => void)[] = [];
  const media = { matches: systemDark, addEventListener: (_: "change", fn: () => void) => listeners.push(fn) };
  return {
    env: {
      storage: { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) },
      root: { dataset: {} as DOMStringMap },
      media,
    },
    store,
    media,
    fire: () => listeners.forEach((fn) => fn()),
  };
}

describe("the theme", () => {
  it("follows the system unless the person chose", () => {
    expect(resolveTheme("system", true)).toBe("dark");
    expect(resolveTheme("system", false)).toBe("light");
    expect(resolveTheme("light", true)).toBe("light");
    expect(resolveTheme("dark", false)).toBe("dark");
    expect(parseChoice("dark")).toBe("dark");
    expect(parseChoice("purple")).toBe("system");
    expect(parseChoice(null)).toBe("system");
  });

  it("applies the saved choice, follows a change of the system's preference, and saves a new choice", () => {
    const e = env(null, false);
    startTheme(e.env);
    expect(e.env.root.dataset.theme).toBe("light");
    e.media.matches = true;
    e.fire();
    expect(e.env.root.dataset.theme).toBe("dark");
    setThemeChoice("light", e.env);
    expect(e.env.root.dataset.theme).toBe("light");
    expect(e.store.get(THEME_KEY)).toBe("light");
    expect(themeChoice()).toBe("light");
    e.fire();
    expect(e.env.root.dataset.theme).toBe("light");

    const saved = env("dark", false);
    startTheme(saved.env);
    expect(saved.env.root.dataset.theme).toBe("dark");
  });
});
