// The Sheet tab: a grid edited in place, several sheets per tab, keyboard first (the keys are in
// sheet/useGridEvents.ts). Rows are drawn only where they are visible. The parts and hooks are
// in sheet/: the data (useSheetData), the cursor and scroll (useSheetSelection), the cell being
// edited (useSheetEditing), the toolbar, formula bar and table.

import { useEffect, useState } from "preact/hooks";
import { keyLabel, onEditorAction } from "../app-state/commands";
import type { TabView } from "../api";
import {
  cellText,
  dataExtent,
  deleteColumn,
  deleteRow,
  getCell,
  insertColumn,
  insertRow,
  selectionRange,
  setCell,
  single,
  visibleWindow,
} from "../lib/grid";
import { takeReveal, toast, useApp } from "../app-state";
import {
  type SheetMatch,
  findInSheets,
  firstFromIn,
  replaceAllSheets,
  replaceInCell,
  stepMatch,
} from "../lib/findReplace";
import { locate } from "../lib/search";
import { lineCells } from "../lib/sheetHistory";
import { TID } from "../testids";
import { FindBar, after, useSheetFind } from "./sheet/FindBar";
import { FormulaBar } from "./sheet/FormulaBar";
import { GridTable } from "./sheet/GridTable";
import { METRICS, ORIGIN, type SheetData } from "./sheet/layout";
import { type GridAction, GridActions, SheetSwitcher } from "./sheet/SheetToolbar";
import { useFormulas } from "./sheet/useFormulas";
import { useGridEvents } from "./sheet/useGridEvents";
import { useSheetData } from "./sheet/useSheetData";
import { useSheetEditing } from "./sheet/useSheetEditing";
import { useCursorFocus, useSheetSelection } from "./sheet/useSheetSelection";
import { useSeen } from "./useRemoteMarks";

/**
 * Lays out a one-cell grid off screen, once, while the app is idle. The first grid the page
 * lays out pays for its fonts (weights, sizes and numeric features nothing else uses yet:
 * each a fontconfig match) and styles; paid here, the first sheet opened does not stall the
 * window. Same classes as the editor's markup (sheet/GridTable.tsx, sheet/FormulaBar.tsx).
 */
export function warmUpGrid(): void {
  const host = document.createElement("div");
  host.setAttribute("aria-hidden", "true");
  host.style.cssText = "position:absolute;left:-10000px;top:0;visibility:hidden;pointer-events:none";
  host.innerHTML =
    '<div class="sheet-editor"><div class="formula-bar"><span class="formula-name">A1</span>' +
    '<span class="formula-value">1</span></div><div class="grid-scroll"><table class="grid"><thead><tr>' +
    '<th class="corner"></th><th class="is-sel">A</th></tr></thead><tbody><tr><th class="is-sel">1</th>' +
    '<td class="is-focus is-sel is-num">1</td><td>a</td></tr></tbody></table></div></div>';
  document.body.appendChild(host);
  void host.offsetHeight;
  host.remove();
}

export function SheetEditor(props: { tab: TabView }) {
  const { tab } = props;
  const sheets = useSheetData(tab.id);
  const { data, sheet, updateRows } = sheets;
  const rows = sheet.rows;
  const ext = dataExtent(rows);
  const extent = { rows: Math.max(ext.rows + 5, 30), cols: Math.max(ext.cols + 2, 10) };
  const isEditing = () => edit.editingRef.current !== null;
  const view = useSheetSelection(isEditing);
  const edit = useSheetEditing({ rows, extent, updateRows, view });
  useCursorFocus(view, edit.editing, isEditing);
  const find = useSheetFind(data.sheets, sheet.id);
  // Ctrl+F: a closed bar opens, and its input takes the focus as it mounts (FindBar), before
  // the next key; an open one gets the focus back, its query selected. (Focusing and selecting
  // a frame later, as this did, selected what was typed in the meantime, so that the next key
  // replaced it: "apple" typed fast on a busy machine became "pple".)
  const openFind = () => {
    if (!find.open) {
      find.setOpen(true);
      return;
    }
    const input = document.querySelector<HTMLInputElement>(`[data-testid="${TID.sheetFindInput}"]`);
    input?.focus();
    input?.select();
  };
  // The command palette's Undo, Redo and Find.
  useEffect(() =>
    onEditorAction(tab.id, (action) => {
      if (action === "undo") sheets.undo();
      else if (action === "redo") sheets.redo();
      else if (action === "find") openFind();
    }),
  );
  const events = useGridEvents({
    rows,
    data: ext,
    extent,
    updateRows,
    view,
    edit,
    undo: sheets.undo,
    redo: sheets.redo,
    find: openFind,
  });
  const [renamingSheet, setRenamingSheet] = useState<string | null>(null);
  const { sel, select, focusGrid } = view;
  const marks = sheets.remote.marks;
  const results = useFormulas(data);
  useSeen(view.gridRef, marks !== null, sheets.remote.seen);

  // A search result opened here: select the first cell that matches.
  const reveal = useApp((s) => s.reveal);
  useEffect(() => {
    takeReveal(tab.id, (q) => {
      const place = locate("sheet", data, q);
      if (place?.kind !== "cell") return false;
      sheets.setSheetId(place.sheetId);
      view.setSel(single({ row: place.row, col: place.col }));
      return true;
    });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [reveal, data]);

  const show = (id: string) => {
    sheets.setSheetId(id);
    view.setSel(single(ORIGIN));
  };

  const actions: GridAction[] = [
    {
      label: "+ Row",
      title: "Insert a row below the selected one",
      testId: TID.sheetAddRow,
      run: () => {
        const index = sel.focus.row + 1;
        updateRows(
          (r) => insertRow(r, index),
          () => [{ kind: "row", sheet: sheet.id, index, insert: true, cells: [] }],
        );
        select(single({ row: sel.focus.row + 1, col: sel.focus.col }));
        focusGrid();
      },
    },
    {
      label: "+ Column",
      title: "Insert a column right of the selected one",
      testId: TID.sheetAddColumn,
      run: () => {
        const index = sel.focus.col + 1;
        updateRows(
          (r) => insertColumn(r, index),
          () => [{ kind: "col", sheet: sheet.id, index, insert: true, cells: [] }],
        );
        select(single({ row: sel.focus.row, col: sel.focus.col + 1 }));
        focusGrid();
      },
    },
    {
      label: "− Row",
      title: "Delete the selected row",
      subtle: true,
      run: () => {
        const index = sel.focus.row;
        updateRows(
          (r) => deleteRow(r, index),
          (r) => [{ kind: "row", sheet: sheet.id, index, insert: false, cells: lineCells(r, "row", index) }],
        );
        focusGrid();
      },
    },
    {
      label: "− Column",
      title: "Delete the selected column",
      subtle: true,
      run: () => {
        const index = sel.focus.col;
        updateRows(
          (r) => deleteColumn(r, index),
          (r) => [{ kind: "col", sheet: sheet.id, index, insert: false, cells: lineCells(r, "col", index) }],
        );
        focusGrid();
      },
    },
  ];

  // The find bar, over every sheet of the tab: each change of the query goes to the first match
  // from the cursor; a match on another sheet shows that sheet.
  const goTo = (matches: readonly SheetMatch[], i: number) => {
    find.setCurrent(i);
    const m = matches[i];
    if (!m) return;
    if (m.sheetId !== sheet.id) {
      sheets.setSheetId(m.sheetId);
      edit.setEditing(null);
    }
    select(single({ row: m.row, col: m.col }));
  };
  const onSearch = (query: string, matchCase: boolean) => {
    find.setQuery(query);
    find.setMatchCase(matchCase);
    const matches = findInSheets(data.sheets, query, { matchCase });
    goTo(matches, firstFromIn(matches, data.sheets, sheet.id, sel.focus));
  };
  const onStep = (back: boolean) => goTo(find.matches, stepMatch(find.matches.length, find.current, back));
  const onReplace = () => {
    const m = find.match;
    if (!m) return onStep(false);
    const { query, replacement, opts } = find;
    const replaceOne = (all: readonly SheetData[]) =>
      all.map((s) =>
        s.id === m.sheetId ? { ...s, rows: setCell(s.rows, m, replaceInCell(getCell(s.rows, m), query, replacement, opts)) } : s,
      );
    const next = replaceOne(data.sheets);
    sheets.updateSheets(replaceOne);
    const matches = findInSheets(next, query, opts);
    goTo(matches, firstFromIn(matches, next, m.sheetId, after(m)));
  };
  const onReplaceAll = () => {
    const { query, replacement, opts } = find;
    const { cells, sheetsChanged } = replaceAllSheets(data.sheets, query, replacement, opts);
    if (cells === 0) return;
    sheets.updateSheets((all) => replaceAllSheets(all, query, replacement, opts).sheets);
    find.setCurrent(-1);
    const across = sheetsChanged > 1 ? ` on ${sheetsChanged} sheets` : "";
    toast("info", `Replaced in ${cells} ${cells === 1 ? "cell" : "cells"}${across}. ${keyLabel("undo")} undoes it.`);
  };
  const closeFind = () => {
    find.setOpen(false);
    focusGrid();
  };

  const range = selectionRange(sel);
  const focusText = cellText(getCell(rows, sel.focus));

  return (
    <div class="sheet-editor">
      <div class="editor-toolbar sheet-toolbar">
        <SheetSwitcher
          sheets={data.sheets}
          shown={sheet.id}
          renaming={renamingSheet}
          onShow={(id) => {
            show(id);
            edit.setEditing(null);
          }}
          onRenaming={setRenamingSheet}
          onRename={(id, name) => {
            setRenamingSheet(null);
            sheets.renameSheet(id, name);
          }}
          onRemove={(id) => void sheets.removeSheet(id)}
          onAdd={() => {
            sheets.addSheet();
            view.setSel(single(ORIGIN));
          }}
        />
        <div class="toolbar-spacer" />
        <GridActions actions={actions} />
      </div>
      {find.open && (
        <FindBar
          find={find}
          onSearch={onSearch}
          onStep={onStep}
          onReplace={onReplace}
          onReplaceAll={onReplaceAll}
          onClose={closeFind}
          manySheets={data.sheets.length > 1}
        />
      )}
      <FormulaBar sel={sel} range={range} text={focusText} editing={edit.editing ? edit.editing.text : null} />
      <div
        class="grid-scroll"
        ref={view.gridRef}
        tabIndex={-1}
        role="grid"
        aria-label={`${sheet.name}: ${ext.rows} rows, ${ext.cols} columns`}
        aria-rowcount={extent.rows}
        aria-colcount={extent.cols}
        data-testid={TID.editorSheet}
        data-tab-id={tab.id}
        data-sheet-id={sheet.id}
        {...events}
      >
        <GridTable
          rows={rows}
          extent={extent}
          shown={visibleWindow(view.scroll, extent, METRICS)}
          sel={sel}
          range={range}
          editing={edit.editing}
          marked={marks?.marks.get(sheet.id)}
          markedBy={marks?.by}
          found={find.open ? find.found : undefined}
          foundAt={find.currentPos}
          results={results?.get(sheet.id)}
          onEditText={edit.setEditing}
          onEditDone={edit.finishEdit}
        />
      </div>
      {data.sheets.length > 1 && (
        <div class="sheet-foot muted">
          Sheet “{sheet.name}” ·{" "}
          <button type="button" class="link-button" onClick={() => void sheets.removeSheet(sheet.id)}>
            delete this sheet
          </button>
        </div>
      )}
    </div>
  );
}
