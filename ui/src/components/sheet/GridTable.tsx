import {
  type Extent,
  type GridWindow,
  type Range,
  type Rows,
  type Selection,
  columnName,
  inRange,
} from "../../lib/grid";
import { type Computed, shownCell } from "../../lib/formulas";
import { type MarkAuthor, cellKey } from "../../lib/marks";
import { TID } from "../../testids";
import { CellInput } from "./CellInput";
import { type CellEdit, COL_W, HEAD_W, type Move, ROW_H } from "./layout";

/** A spacer standing for the columns not drawn, keeping the scroll width. */
function ColumnSpacer(props: { cols: number; head?: boolean }) {
  if (props.cols <= 0) return null;
  return props.head ? (
    <th colSpan={props.cols} class="spacer" aria-hidden="true" />
  ) : (
    <td colSpan={props.cols} class="spacer" aria-hidden="true" />
  );
}

/** A spacer standing for the rows not drawn, keeping the scroll height. */
function RowSpacer(props: { rows: number; cols: number }) {
  if (props.rows <= 0) return null;
  return (
    <tr aria-hidden="true" style={{ height: `${props.rows * ROW_H}px` }}>
      <td colSpan={props.cols + 1} class="spacer" />
    </tr>
  );
}

/** The grid: only the rows and columns in `shown` are drawn, spacers keep the scroll size. */
export function GridTable(props: {
  rows: Rows;
  extent: Extent;
  shown: GridWindow;
  sel: Selection;
  range: Range;
  editing: CellEdit | null;
  /** Cells another writer's change touched (keys from `cellKey`), marked with `markedBy`. */
  marked?: Set<string> | undefined;
  markedBy?: MarkAuthor | undefined;
  /** Cells the find bar matched (keys from `cellKey`), and the one it is on. */
  found?: Set<string> | undefined;
  foundAt?: { row: number; col: number } | null;
  /** The results of this sheet's formulas (keys from `cellKey`); a formula shows its result. */
  results?: Map<string, Computed> | undefined;
  onEditText: (edit: CellEdit) => void;
  onEditDone: (value: string | null, move: Move) => void;
}) {
  const { rows, extent, sel, range, editing, marked, markedBy, results } = props;
  const { firstRow: first, lastRow: last, firstCol, lastCol } = props.shown;
  const allCols = Array.from({ length: extent.cols }, (_, i) => i);
  const cols = allCols.slice(firstCol, lastCol + 1);
  const leftPad = firstCol;
  const rightPad = extent.cols - 1 - lastCol;
  return (
    <table class="grid" style={{ width: `${HEAD_W + extent.cols * COL_W}px` }}>
      <colgroup>
        <col style={{ width: `${HEAD_W}px` }} />
        {allCols.map((c) => (
          <col key={c} style={{ width: `${COL_W}px` }} />
        ))}
      </colgroup>
      <thead>
        <tr>
          <th class="corner" />
          <ColumnSpacer cols={leftPad} head />
          {cols.map((c) => (
            <th key={c} class={c >= range.left && c <= range.right ? "is-sel" : ""} scope="col">
              {columnName(c)}
            </th>
          ))}
          <ColumnSpacer cols={rightPad} head />
        </tr>
      </thead>
      <tbody>
        <RowSpacer rows={first} cols={extent.cols} />
        {Array.from({ length: last - first + 1 }, (_, i) => first + i).map((r) => (
          <tr key={r} style={{ height: `${ROW_H}px` }}>
            <th scope="row" class={r >= range.top && r <= range.bottom ? "is-sel" : ""}>
              {r + 1}
            </th>
            <ColumnSpacer cols={leftPad} />
            {cols.map((c) => {
              const pos = { row: r, col: c };
              const isFocus = sel.focus.row === r && sel.focus.col === c;
              const isEditing = editing && editing.pos.row === r && editing.pos.col === c;
              const value = rows[r]?.[c] ?? null;
              const shown = shownCell(value, results?.get(cellKey(r, c)));
              const mark = markedBy && marked?.has(cellKey(r, c)) ? markedBy : null;
              const found = props.found?.has(cellKey(r, c))
                ? props.foundAt?.row === r && props.foundAt.col === c
                  ? " is-found is-found-current"
                  : " is-found"
                : "";
              return (
                <td
                  key={c}
                  role="gridcell"
                  tabIndex={isFocus && !isEditing ? 0 : -1}
                  class={`${isFocus ? "is-focus" : ""}${inRange(range, pos) ? " is-sel" : ""}${
                    shown.kind === "num" ? " is-num" : shown.kind === "error" ? " is-error" : ""
                  }${mark ? (mark.agent ? " is-remote is-agent" : " is-remote") : ""}${found}`}
                  title={
                    mark
                      ? `Changed by ${mark.author}`
                      : shown.kind === "error"
                        ? `${String(value)}: ${shown.text}`
                        : undefined
                  }
                  data-testid={TID.sheetCell}
                  data-row={r}
                  data-col={c}
                  aria-selected={inRange(range, pos)}
                >
                  {isEditing ? (
                    <CellInput
                      initial={editing.text}
                      onChange={(text) => props.onEditText({ pos, text })}
                      onDone={props.onEditDone}
                    />
                  ) : (
                    shown.text
                  )}
                  {mark && (
                    <span
                      class={`remote-cell-mark${mark.agent ? " is-agent" : ""}`}
                      data-testid={TID.remoteChange}
                      data-author={mark.author}
                      title={`Changed by ${mark.author}`}
                      aria-label={`Changed by ${mark.author}`}
                    />
                  )}
                </td>
              );
            })}
            <ColumnSpacer cols={rightPad} />
          </tr>
        ))}
        <RowSpacer rows={extent.rows - 1 - last} cols={extent.cols} />
      </tbody>
    </table>
  );
}
