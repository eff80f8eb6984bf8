// The tab strip. Every item is the tab's instance ID (links, test IDs, moves); labels are only
// shown. Reorder by dragging, or with Alt+Shift+Left/Right on a focused tab. F2 renames, Delete
// deletes a Sheet or Slides tab (after asking).

import { useRef, useState } from "preact/hooks";
import type { TabView } from "../api";
import { addTab, app, deleteTab, moveTab, renameTab, tabLink, useApp } from "../app-state";
import { tabMark } from "../lib/status";
import { type TabType, checkLabel, dropIndex, isFixed, stepIndex, typeName } from "../lib/tabs";
import { mayTakeFocus } from "../lib/focus";
import { TID } from "../testids";
import { Icon } from "./Icon";
import { MenuButton } from "./Menu";
import { RenameInput } from "./NotesList";
import { keyLabel } from "../app-state/commands";

export function tabIcon(type: TabType): string {
  switch (type) {
    case "markdown":
      return "doc";
    case "sheet":
      return "sheet";
    case "slides":
      return "slides";
    case "sources":
      return "link";
    case "files":
      return "file";
  }
}

interface Drag {
  id: string;
  startX: number;
  dx: number;
  active: boolean;
  target: number;
}

export function TabStrip(props: { noteId: string; tabs: TabView[]; activeId: string | null }) {
  const { noteId, tabs, activeId } = props;
  const renamingTab = useApp((s) => s.renamingTab);
  const unsent = useApp((s) => s.unsent);
  const remoteEdits = useApp((s) => s.remoteEdits);
  const strip = useRef<HTMLDivElement>(null);
  const [drag, setDrag] = useState<Drag | null>(null);

  const boxes = () =>
    [...(strip.current?.querySelectorAll<HTMLElement>("[data-tab-id]") ?? [])].map((el) => {
      const r = el.getBoundingClientRect();
      return { id: el.dataset.tabId ?? "", left: r.left, width: r.width };
    });

  const focusTab = (id: string) => {
    requestAnimationFrame(() => {
      if (!mayTakeFocus(strip.current)) return;
      strip.current?.querySelector<HTMLElement>(`[data-tab-id="${CSS.escape(id)}"] a`)?.focus();
    });
  };

  const onKeyDown = (e: KeyboardEvent, tab: TabView, index: number) => {
    if (e.altKey && e.shiftKey && (e.key === "ArrowLeft" || e.key === "ArrowRight")) {
      e.preventDefault();
      const to = stepIndex(tabs, tab.id, e.key === "ArrowLeft" ? -1 : 1);
      if (to !== null) {
        void moveTab(tab.id, to);
        focusTab(tab.id);
      }
      return;
    }
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === "ArrowLeft" || e.key === "ArrowRight" || e.key === "Home" || e.key === "End") {
      e.preventDefault();
      const to =
        e.key === "Home"
          ? 0
          : e.key === "End"
            ? tabs.length - 1
            : (index + (e.key === "ArrowLeft" ? -1 : 1) + tabs.length) % tabs.length;
      const next = tabs[to];
      if (next) focusTab(next.id);
    } else if (e.key === "F2") {
      e.preventDefault();
      app.set({ renamingTab: tab.id });
    } else if (e.key === "Delete" && !isFixed(tab.type as TabType)) {
      e.preventDefault();
      void deleteTab(tab.id);
    }
  };

  const onPointerDown = (e: PointerEvent, tab: TabView) => {
    if (e.button !== 0 || renamingTab === tab.id) return;
    // No pointer capture yet: a plain click must still reach the link.
    setDrag({ id: tab.id, startX: e.clientX, dx: 0, active: false, target: tabs.findIndex((t) => t.id === tab.id) });
  };

  const onPointerMove = (e: PointerEvent) => {
    if (!drag) return;
    const dx = e.clientX - drag.startX;
    const active = drag.active || Math.abs(dx) > 6;
    if (!active) return;
    if (!drag.active) (e.currentTarget as HTMLElement).setPointerCapture(e.pointerId);
    setDrag({ ...drag, dx, active, target: dropIndex(boxes(), drag.id, e.clientX) });
  };

  const onPointerUp = (e: PointerEvent) => {
    if (!drag) return;
    const d = drag;
    setDrag(null);
    (e.currentTarget as HTMLElement).releasePointerCapture?.(e.pointerId);
    if (d.active) {
      // A drag is not a click: do not also open the tab.
      const stop = (ev: Event) => {
        ev.preventDefault();
        ev.stopPropagation();
      };
      window.addEventListener("click", stop, { capture: true, once: true });
      setTimeout(() => window.removeEventListener("click", stop, { capture: true }), 0);
      void moveTab(d.id, d.target);
    }
  };

  return (
    <div class="tab-strip-row">
      <div class="tab-strip" role="tablist" aria-label="Tabs" data-testid={TID.tabStrip} ref={strip}>
        {tabs.map((tab, index) => {
          const active = tab.id === activeId;
          const type = tab.type as TabType;
          const mark = tabMark(tab.status.state, unsent.includes(tab.id));
          const dragging = drag?.active && drag.id === tab.id;
          const remote = remoteEdits[tab.id];
          return (
            <div
              key={tab.id}
              class={`tab${active ? " is-active" : ""}${dragging ? " is-dragging" : ""}${
                drag?.active && !dragging && drag.target === index ? " drop-before" : ""
              }${drag?.active && drag.target === tabs.length - 1 && index === tabs.length - 1 && !dragging ? " drop-after" : ""}`}
              data-testid={TID.tab}
              data-tab-id={tab.id}
              data-tab-type={tab.type}
              data-active={active ? "true" : "false"}
              data-mark={mark.mark}
              style={dragging ? { transform: `translateX(${drag.dx}px)` } : undefined}
              onPointerDown={(e) => onPointerDown(e, tab)}
              onPointerMove={onPointerMove}
              onPointerUp={onPointerUp}
              onPointerCancel={() => setDrag(null)}
            >
              {renamingTab === tab.id ? (
                <RenameInput
                  value={tab.label}
                  testId={TID.tabRenameInput}
                  label={`New name for ${tab.label}`}
                  className="tab-rename"
                  onDone={(value) => {
                    if (value === null) {
                      app.set({ renamingTab: null });
                      focusTab(tab.id);
                      return;
                    }
                    const checked = checkLabel(value);
                    if (!checked.ok || checked.label === tab.label) {
                      app.set({ renamingTab: null });
                      focusTab(tab.id);
                      return;
                    }
                    void renameTab(tab.id, checked.label).then(() => focusTab(tab.id));
                  }}
                />
              ) : (
                <a
                  href={tabLink(noteId, tab.id)}
                  role="tab"
                  aria-selected={active}
                  tabIndex={active ? 0 : -1}
                  draggable={false}
                  title={`${typeName(type)} · ${tab.id}${mark.label ? ` · ${mark.label}` : ""}${
                    remote ? ` · edited by ${remote.author}` : ""
                  }\n${keyLabel("renameTab")} rename · ${keyLabel("moveTabLeft")}/→ move`}
                  onKeyDown={(e) => onKeyDown(e, tab, index)}
                  onDblClick={(e) => {
                    e.preventDefault();
                    app.set({ renamingTab: tab.id });
                  }}
                >
                  <Icon name={tabIcon(type)} />
                  <span class="tab-label">{tab.label}</span>
                  {mark.mark !== "" && <span class={`tab-mark mark-${mark.mark}`} aria-label={mark.label} />}
                  {mark.mark === "" && remote && <span class="tab-mark mark-remote" aria-label={`Edited by ${remote.author}`} />}
                </a>
              )}
              {active && renamingTab !== tab.id && (
                <MenuButton
                  label={`Tab actions for ${tab.label}`}
                  testId={TID.tabMenu}
                  className="tab-menu"
                  items={[
                    {
                      label: "Rename",
                      testId: TID.tabMenuRename,
                      hint: keyLabel("renameTab"),
                      onSelect: () => app.set({ renamingTab: tab.id }),
                    },
                    {
                      label: "Move left",
                      testId: TID.tabMenuMoveLeft,
                      hint: keyLabel("moveTabLeft"),
                      disabled: index === 0,
                      onSelect: () => void moveTab(tab.id, index - 1),
                    },
                    {
                      label: "Move right",
                      testId: TID.tabMenuMoveRight,
                      hint: keyLabel("moveTabRight"),
                      disabled: index === tabs.length - 1,
                      onSelect: () => void moveTab(tab.id, index + 1),
                    },
                    {
                      label: isFixed(type) ? `${typeName(type)} is always there` : "Delete…",
                      testId: TID.tabMenuDelete,
                      danger: true,
                      disabled: isFixed(type),
                      onSelect: () => void deleteTab(tab.id),
                    },
                  ]}
                >
                  <Icon name="more" />
                </MenuButton>
              )}
            </div>
          );
        })}
      </div>
      <MenuButton
        label="Add a tab"
        testId={TID.tabAdd}
        menuTestId={TID.tabAddMenu}
        className="tab-add"
        align="right"
        items={[
          { label: "Sheet", testId: TID.tabAddSheet, icon: <Icon name="sheet" />, onSelect: () => void addTab("sheet") },
          {
            label: "Slides",
            testId: TID.tabAddSlides,
            icon: <Icon name="slides" />,
            onSelect: () => void addTab("slides"),
          },
        ]}
      >
        <Icon name="plus" />
        <span>Add tab</span>
      </MenuButton>
    </div>
  );
}
