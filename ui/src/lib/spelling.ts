// Whether the person wants Markdown spell-checked: on unless they turned it off in Settings,
// kept on this computer. Apart from the editor's extension (components/spelling.ts), so that
// Settings does not load CodeMirror.

export const SPELLCHECK_KEY = "quire.spellcheck";

/** Whether the person wants spelling checked (on unless they turned it off in Settings). */
export function spellcheckOn(storage: Pick<Storage, "getItem"> | null = globalStorage()): boolean {
  return storage?.getItem(SPELLCHECK_KEY) !== "off";
}

export function setSpellcheck(on: boolean, storage: Pick<Storage, "setItem"> | null = globalStorage()): void {
  storage?.setItem(SPELLCHECK_KEY, on ? "on" : "off");
}

function globalStorage(): Storage | null {
  return typeof localStorage === "undefined" ? null : localStorage;
}
