import { TID } from "../../testids";
import { Icon } from "../Icon";
import { RenameInput } from "../NotesList";
import type { SheetData } from "./layout";

/** The sheets of the tab, one button each (double-click or F2 renames, Delete deletes), and "+". */
export function SheetSwitcher(props: {
  sheets: readonly SheetData[];
  shown: string;
  renaming: string | null;
  onShow: (id: string) => void;
  onRenaming: (id: string) => void;
  onRename: (id: string, name: string | null) => void;
  onRemove: (id: string) => void;
  onAdd: () => void;
}) {
  return (
    <div class="sheet-switcher" role="tablist" aria-label="Sheets">
      {props.sheets.map((s) =>
        props.renaming === s.id ? (
          <RenameInput
            key={s.id}
            value={s.name}
            testId={TID.sheetNameInput}
            label="Sheet name"
            className="sheet-name-input"
            onDone={(v) => props.onRename(s.id, v)}
          />
        ) : (
          <button
            key={s.id}
            type="button"
            role="tab"
            aria-selected={s.id === props.shown}
            class={`sheet-tab${s.id === props.shown ? " is-on" : ""}`}
            data-testid={TID.sheetSwitch}
            data-sheet-id={s.id}
            title="Double-click to rename"
            onClick={() => props.onShow(s.id)}
            onDblClick={() => props.onRenaming(s.id)}
            onKeyDown={(e) => {
              if (e.key === "F2") props.onRenaming(s.id);
              if (e.key === "Delete") props.onRemove(s.id);
            }}
          >
            {s.name}
          </button>
        ),
      )}
      <button type="button" class="icon-button" data-testid={TID.sheetAdd} onClick={props.onAdd} title="Add a sheet">
        <Icon name="plus" />
      </button>
    </div>
  );
}

/** A button of the toolbar that inserts or deletes a row or a column at the cursor. */
export interface GridAction {
  label: string;
  title: string;
  testId?: string;
  /** Deleting: drawn quieter. */
  subtle?: boolean;
  run: () => void;
}

export function GridActions(props: { actions: readonly GridAction[] }) {
  return (
    <>
      {props.actions.map((a) => (
        <button
          key={a.label}
          type="button"
          class={a.subtle ? "button small subtle" : "button small"}
          data-testid={a.testId}
          title={a.title}
          onClick={a.run}
        >
          {a.label}
        </button>
      ))}
    </>
  );
}
