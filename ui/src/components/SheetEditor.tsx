// The Sheet tab: a grid edited in place, several sheets per tab, keyboard first (the keys are in
// sheet/useGridEvents.ts). Rows are drawn only where they are visible. The parts and hooks are
// in sheet/: the data (useSheetData), the cursor and scroll (useSheetSelection), the cell being
// edited (useSheetEditing), the toolbar, formula bar and table.

import { useEffect, useState } from "preact/hooks";
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
  single,
  visibleWindow,
} from "../lib/grid";
import { takeReveal, useApp } from "../app-state";
import { locate } from "../lib/search";
import { TID } from "../testids";
import { FormulaBar } from "./sheet/FormulaBar";
import { GridTable } from "./sheet/GridTable";
import { METRICS, ORIGIN } from "./sheet/layout";
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
  const events = useGridEvents({ rows, data: ext, extent, updateRows, view, edit });
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
        updateRows((r) => insertRow(r, sel.focus.row + 1));
        select(single({ row: sel.focus.row + 1, col: sel.focus.col }));
        focusGrid();
      },
    },
    {
      label: "+ Column",
      title: "Insert a column right of the selected one",
      testId: TID.sheetAddColumn,
      run: () => {
        updateRows((r) => insertColumn(r, sel.focus.col + 1));
        select(single({ row: sel.focus.row, col: sel.focus.col + 1 }));
        focusGrid();
      },
    },
    {
      label: "− Row",
      title: "Delete the selected row",
      subtle: true,
      run: () => {
        updateRows((r) => deleteRow(r, sel.focus.row));
        focusGrid();
      },
    },
    {
      label: "− Column",
      title: "Delete the selected column",
      subtle: true,
      run: () => {
        updateRows((r) => deleteColumn(r, sel.focus.col));
        focusGrid();
      },
    },
  ];

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
