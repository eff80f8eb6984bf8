// WCAG AA contrast of the app's text on its backgrounds, in the light and the dark theme, read
// from style.css's variables (the colours the app draws with): 4.5:1 for text, 3:1 for the
// faint hints (placeholders, secondary marks; WCAG's non-text and large-text minimum).

/// <reference types="node" />
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const css = readFileSync(new URL("../style.css", import.meta.url), "utf8");

function block(selector: string): Map<string, string> {
  const at = css.indexOf(`${selector} {`);
  if (at < 0) throw new Error(`no ${selector} block`);
  const body = css.slice(at, css.indexOf("}", at));
  const vars = new Map<string, string>();
  for (const m of body.matchAll(/--([a-z0-9-]+):\s*(#[0-9a-fA-F]{6})\s*;/g)) vars.set(m[1] as string, m[2] as string);
  return vars;
}

const light = block(":root");
const dark = new Map([...light, ...block(':root[data-theme="dark"]')]);

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p) as [number, number];
  return (x + 0.05) / (y + 0.05);
}

/** [text, background, minimum]: every pairing style.css draws text with. */
const PAIRS: [string, string, number][] = [
  ...["paper", "canvas", "chrome", "hover"].flatMap((bg): [string, string, number][] => [
    ["ink", bg, 4.5],
    ["ink-2", bg, 4.5],
    ["muted", bg, 4.5],
    ["faint", bg, 3],
  ]),
  ["accent-ink", "paper", 4.5],
  ["accent-ink", "accent-weak", 4.5],
  ["accent", "paper", 4.5],
  ["code", "paper", 4.5],
  // The sync states and banners: saved, saving, offline, failed, conflict.
  ["ok", "ok-weak", 4.5],
  ["ok", "paper", 4.5],
  ["ok-ink", "ok-weak", 4.5],
  ["warn", "warn-weak", 4.5],
  ["warn-ink", "warn-weak", 4.5],
  ["danger", "danger-weak", 4.5],
  ["danger", "paper", 4.5],
  ["danger-ink", "danger-weak", 4.5],
  ["danger-ink", "danger-tint", 4.5],
  ["agent", "agent-weak", 4.5],
  ["agent", "paper", 4.5],
  // Text on the strong colours: buttons, badges, the agent pill, toasts.
  ["on-strong", "accent", 4.5],
  ["on-strong", "danger", 4.5],
  ["on-strong", "warn", 4.5],
  ["on-strong", "agent", 4.5],
  ["on-strong", "ink", 4.5],
  ["on-strong", "toast-error", 4.5],
];

describe.each([
  ["light", light],
  ["dark", dark],
])("the %s theme", (_name, vars) => {
  it.each(PAIRS)("--%s on --%s meets %d:1", (text, bg, min) => {
    const fg = vars.get(text);
    const back = vars.get(bg);
    expect(fg, `--${text}`).toBeDefined();
    expect(back, `--${bg}`).toBeDefined();
    expect(contrast(fg as string, back as string)).toBeGreaterThanOrEqual(min);
  });
});

describe("style.css", () => {
  it("closes every block it opens (an unclosed rule swallows everything after it)", () => {
    const text = css.replace(/\/\*[\s\S]*?\*\//g, "");
    let depth = 0;
    text.split("\n").forEach((line, i) => {
      for (const ch of line) {
        if (ch === "{") depth++;
        if (ch === "}") depth--;
        if (depth < 0) throw new Error(`a "}" with nothing open, line ${i + 1}`);
      }
    });
    expect(depth).toBe(0);
  });
});
