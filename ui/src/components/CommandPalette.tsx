// The command palette (Ctrl+Shift+P, ⇧⌘P on macOS): every action of the app, found by a few
// letters of its name, with its shortcut. A command that cannot run now is listed, greyed, with
// the reason, so the person learns where it applies.

import { useMemo, useRef, useState } from "preact/hooks";
import { app, closeDialog } from "../app-state";
import { allCommands } from "../app-state/commands";
import { formatShortcut, rankCommands } from "../lib/commands";
import { isEnter } from "../lib/keys";
import { TID } from "../testids";
import { Icon } from "./Icon";
import { Modal } from "./Modal";

export function CommandPalette() {
  // The commands are read once, for the state the palette was opened in.
  const commands = useMemo(() => allCommands(app.get()), []);
  const [query, setQuery] = useState("");
  const [at, setAt] = useState(0);
  const list = useMemo(() => rankCommands(commands, query), [commands, query]);
  const listRef = useRef<HTMLUListElement>(null);

  const choose = (i: number) => {
    const c = list[i];
    if (c && !c.disabled) c.run();
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const n = Math.max(1, list.length);
    if (e.key === "ArrowDown" || (e.key === "n" && e.ctrlKey)) {
      e.preventDefault();
      setAt((at + 1) % n);
    } else if (e.key === "ArrowUp" || (e.key === "p" && e.ctrlKey)) {
      e.preventDefault();
      setAt((at - 1 + n) % n);
    } else if (isEnter(e.key)) {
      e.preventDefault();
      choose(at);
    }
    requestAnimationFrame(() => listRef.current?.querySelector(".is-on")?.scrollIntoView({ block: "nearest" }));
  };

  return (
    <Modal label="Commands" onClose={closeDialog} testId={TID.commandPalette} className="switcher palette">
      <div class="switcher-input">
        <Icon name="more" />
        <input
          data-autofocus
          data-testid={TID.commandPaletteInput}
          placeholder="Type a command…"
          value={query}
          role="combobox"
          aria-expanded="true"
          aria-controls="palette-list"
          aria-activedescendant={`palette-${at}`}
          onInput={(e) => {
            setQuery(e.currentTarget.value);
            setAt(0);
          }}
          onKeyDown={onKeyDown}
        />
      </div>
      <ul class="switcher-list" id="palette-list" role="listbox" ref={listRef} data-query={query}>
        {list.map((c, i) => (
          <li
            key={c.id}
            id={`palette-${i}`}
            role="option"
            aria-selected={i === at}
            aria-disabled={c.disabled ? "true" : undefined}
            class={`switcher-item palette-item${i === at ? " is-on" : ""}${c.disabled ? " is-disabled" : ""}`}
            data-testid={TID.commandPaletteItem}
            data-command={c.id}
            title={c.disabled}
            onMouseDown={(e) => {
              e.preventDefault();
              choose(i);
            }}
            onMouseMove={() => setAt(i)}
          >
            <span class="palette-title">
              <span class="palette-section muted small">{c.section}</span> {c.title}
              {c.disabled && <span class="palette-why muted small"> — {c.disabled}</span>}
            </span>
            {c.shortcut && <kbd data-testid={TID.commandPaletteShortcut}>{formatShortcut(c.shortcut)}</kbd>}
          </li>
        ))}
        {list.length === 0 && <li class="switcher-empty muted">No command matches “{query.trim()}”.</li>}
      </ul>
      <div class="switcher-foot muted small">↑↓ to choose · Enter to run · Esc to close</div>
    </Modal>
  );
}
