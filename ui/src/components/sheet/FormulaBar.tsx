import { type Range, type Selection, cellName } from "../../lib/grid";

/** The selection's name (`B3`, `A1:C4`) and the cursor cell's text, or the edit's. */
export function FormulaBar(props: { sel: Selection; range: Range; text: string; editing: string | null }) {
  const { sel, range } = props;
  const one = range.top === range.bottom && range.left === range.right;
  return (
    <div class="formula-bar">
      <span class="formula-name">
        {cellName(one ? sel.focus : { row: range.top, col: range.left })}
        {!one && `:${cellName({ row: range.bottom, col: range.right })}`}
      </span>
      <span class="formula-value" title={props.text}>
        {props.editing ?? props.text}
      </span>
    </div>
  );
}
