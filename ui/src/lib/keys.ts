// Key names. WebKitWebDriver (the end-to-end tests' driver) types "\n" as a keydown whose `key` is
// a newline character, with no text input: handled as Enter where Enter acts, and as a typed line
// break in text, so a test typing "a\nb" gets what a person pressing Enter gets.

export function isEnter(key: string): boolean {
  return key === "Enter" || key === "\n";
}

/** Inserts a line break at the caret of a textarea for a "\n" keydown (see above); true if it did. */
export function typeNewlineInto(e: KeyboardEvent): boolean {
  const el = e.currentTarget as HTMLTextAreaElement | null;
  if (e.key !== "\n" || !el || typeof el.setRangeText !== "function") return false;
  e.preventDefault();
  el.setRangeText("\n", el.selectionStart, el.selectionEnd, "end");
  el.dispatchEvent(new Event("input", { bubbles: true }));
  return true;
}
