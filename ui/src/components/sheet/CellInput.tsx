import { useRef } from "preact/hooks";
import { isEnter } from "../../lib/keys";
import { TID } from "../../testids";
import type { Move } from "./layout";

/** The input of the cell being edited: it takes the focus once, and finishes once. */
export function CellInput(props: {
  initial: string;
  onChange: (text: string) => void;
  onDone: (value: string | null, move: Move) => void;
}) {
  const done = useRef(false);
  const finish = (value: string | null, move: Move) => {
    if (done.current) return;
    done.current = true;
    props.onDone(value, move);
  };
  return (
    <input
      class="cell-input"
      data-testid={TID.sheetCellInput}
      aria-label="Cell value"
      value={props.initial}
      ref={(el) => {
        if (el && !el.dataset.focused) {
          el.dataset.focused = "1";
          el.focus();
          const end = el.value.length;
          el.setSelectionRange(end, end);
        }
      }}
      onInput={(e) => props.onChange(e.currentTarget.value)}
      onKeyDown={(e) => {
        e.stopPropagation();
        if (isEnter(e.key)) {
          e.preventDefault();
          finish(e.currentTarget.value, e.shiftKey ? "up" : "down");
        } else if (e.key === "Tab") {
          e.preventDefault();
          finish(e.currentTarget.value, e.shiftKey ? "left" : "right");
        } else if (e.key === "Escape") {
          e.preventDefault();
          finish(null, null);
        }
      }}
      onBlur={(e) => finish(e.currentTarget.value, null)}
      onPaste={(e) => e.stopPropagation()}
      onCopy={(e) => e.stopPropagation()}
      onCut={(e) => e.stopPropagation()}
    />
  );
}
