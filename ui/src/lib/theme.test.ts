import { describe, expect, it } from "vitest";
import { THEME_KEY, fontsFor, parseChoice, resolveTheme, setThemeChoice, startTheme, themeChoice } from "./theme";

const LINUX = "Mozilla/5.0 (X11; Ubuntu; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko)";
const MAC = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko)";
const WINDOWS =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 Edg/130.0.0.0";

function env(saved: string | null, systemDark: boolean, userAgent = LINUX) {
  const store = new Map<string, string>(saved === null ? [] : [[THEME_KEY, saved]]);
  const listeners: (() => void)[] = [];
  const media = { matches: systemDark, addEventListener: (_: "change", fn: () => void) => listeners.push(fn) };
  return {
    env: {
      userAgent,
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
  it("gives WebKitGTK the generic font families, other platforms the named ones", () => {
    expect(fontsFor(LINUX)).toBe("generic");
    expect(fontsFor(MAC)).toBe("named");
    expect(fontsFor(WINDOWS)).toBe("named");
    expect(fontsFor("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36")).toBe("named");
    const linux = env(null, false);
    startTheme(linux.env);
    expect(linux.env.root.dataset.fonts).toBe("generic");
    const mac = env(null, false, MAC);
    startTheme(mac.env);
    expect(mac.env.root.dataset.fonts).toBe("named");
  });

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
