// The sheet's find bar (Ctrl+F in the grid): the query, how many cells of the tab's sheets hold
// it ("3 of 12", and on which sheet the current one is), next / previous (Enter / Shift+Enter,
// or the arrows; a match on another sheet shows that sheet), match case, Replace (the current
// cell) and Replace all (every sheet: one undo step, one save); Escape closes it. The matching
// is lib/findReplace.ts.

import { useMemo, useState } from "preact/hooks";
import { type Pos } from "../../lib/grid";
import { cellKey } from "../../lib/marks";
import { type FindOptions, type FindSheet, type SheetMatch, findInSheets, matchLabel, matchWhere } from "../../lib/findReplace";
import { isEnter } from "../../lib/keys";
import { TID } from "../../testids";

/**
 * What the find bar holds: shared with the grid, which highlights the matches of the sheet
 * shown (`shownId`).
 */
export function useSheetFind(sheets: readonly (FindSheet & { name: string })[], shownId: string) {
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState("");
  const [replacement, setReplacement] = useState("");
  const [matchCase, setMatchCase] = useState(false);
  const [current, setCurrent] = useState(-1);
  const opts: FindOptions = { matchCase };
  const matches = useMemo(
    () => (open ? findInSheets(sheets, query, { matchCase }) : []),
    [open, sheets, query, matchCase],
  );
  const found = useMemo(
    () => new Set(matches.filter((m) => m.sheetId === shownId).map((m) => cellKey(m.row, m.col))),
    [matches, shownId],
  );
  const at = current >= 0 && current < matches.length ? current : -1;
  const match: SheetMatch | null = (at >= 0 ? matches[at] : undefined) ?? null;
  return {
    open,
    setOpen,
    query,
    setQuery,
    replacement,
    setReplacement,
    matchCase,
    setMatchCase,
    opts,
    matches,
    found,
    current: at,
    setCurrent,
    /** The match the cursor is on, and its sheet. */
    match,
    /** That match's cell when it is on the sheet shown (highlighted more strongly). */
    currentPos: (match && match.sheetId === shownId ? match : null) as Pos | null,
    /** Where the matches are, when the tab has more than one sheet: "on Stock", "on 2 sheets". */
    where: matchWhere(sheets, matches, match),
  };
}

export type SheetFind = ReturnType<typeof useSheetFind>;

export function FindBar(props: {
  find: SheetFind;
  /** The query or the case option changed: go to the first match from the cursor. */
  onSearch: (query: string, matchCase: boolean) => void;
  onStep: (back: boolean) => void;
  onReplace: () => void;
  onReplaceAll: () => void;
  onClose: () => void;
  /** The tab has more than one sheet (the search covers them all). */
  manySheets: boolean;
}) {
  const f = props.find;
  const label = matchLabel(f.query, f.matches.length, f.current);
  const keys = (e: KeyboardEvent, enter: () => void) => {
    e.stopPropagation();
    if (e.key === "Escape") {
      e.preventDefault();
      props.onClose();
    } else if (isEnter(e.key)) {
      e.preventDefault();
      enter();
    } else if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "f") {
      e.preventDefault();
      (e.currentTarget as HTMLInputElement).select();
    }
  };
  return (
    <div class="find-bar" role="search" aria-label="Find in this Sheet tab" data-testid={TID.sheetFindBar}>
      <input
        type="search"
        class="find-input"
        data-testid={TID.sheetFindInput}
        aria-label="Find"
        placeholder={props.manySheets ? "Find in all sheets" : "Find in sheet"}
        value={f.query}
        ref={(el) => {
          if (el && !el.dataset.focused) {
            el.dataset.focused = "1";
            el.focus();
            el.select();
          }
        }}
        onInput={(e) => props.onSearch(e.currentTarget.value, f.matchCase)}
        onKeyDown={(e) => keys(e, () => props.onStep(e.shiftKey))}
      />
      <span class="find-count muted" data-testid={TID.sheetFindCount} aria-live="polite">
        {label}
      </span>
      {f.where && (
        <span class="find-where muted" data-testid={TID.sheetFindWhere}>
          {f.where}
        </span>
      )}
      <button
        type="button"
        class="icon-button"
        title="Previous match (Shift+Enter)"
        aria-label="Previous match"
        disabled={f.matches.length === 0}
        onClick={() => props.onStep(true)}
      >
        ↑
      </button>
      <button
        type="button"
        class="icon-button"
        title="Next match (Enter)"
        aria-label="Next match"
        disabled={f.matches.length === 0}
        onClick={() => props.onStep(false)}
      >
        ↓
      </button>
      <label class="find-case" title="Match case">
        <input
          type="checkbox"
          data-testid={TID.sheetFindCase}
          checked={f.matchCase}
          onChange={(e) => props.onSearch(f.query, e.currentTarget.checked)}
        />
        Match case
      </label>
      <input
        type="text"
        class="find-input"
        data-testid={TID.sheetReplaceInput}
        aria-label="Replace with"
        placeholder="Replace with"
        value={f.replacement}
        onInput={(e) => f.setReplacement(e.currentTarget.value)}
        onKeyDown={(e) => keys(e, props.onReplace)}
      />
      <button
        type="button"
        class="button small"
        data-testid={TID.sheetReplace}
        disabled={f.matches.length === 0}
        onClick={props.onReplace}
      >
        Replace
      </button>
      <button
        type="button"
        class="button small"
        data-testid={TID.sheetReplaceAll}
        disabled={f.matches.length === 0}
        onClick={props.onReplaceAll}
      >
        Replace all
      </button>
      <button type="button" class="icon-button" title="Close (Esc)" aria-label="Close find" onClick={props.onClose}>
        ×
      </button>
    </div>
  );
}

/** The position just after `pos` in reading order (Replace moves on from the cell it changed). */
export function after(pos: Pos): Pos {
  return { row: pos.row, col: pos.col + 1 };
}
