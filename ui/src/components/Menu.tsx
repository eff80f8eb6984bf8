// A small popup menu: opens under its button, arrow keys move between items, Esc or a click
// outside closes it and focus returns to the button.

import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

export interface MenuItem {
  label: string;
  testId: string;
  onSelect: () => void;
  disabled?: boolean;
  hint?: string;
  danger?: boolean;
  icon?: ComponentChildren;
}

export function MenuButton(props: {
  label: string;
  testId: string;
  menuTestId?: string;
  items: MenuItem[];
  children: ComponentChildren;
  className?: string;
  align?: "left" | "right";
}) {
  const [open, setOpen] = useState(false);
  // Fixed position from the button's box: menus inside a scrolling strip would be clipped.
  const [place, setPlace] = useState<{ top: number; left?: number; right?: number }>({ top: 0 });
  const wrap = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return;
    const first = wrap.current?.querySelector<HTMLElement>('[role="menuitem"]:not([disabled])');
    first?.focus();
    const outside = (e: MouseEvent) => {
      if (!wrap.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("mousedown", outside);
    return () => document.removeEventListener("mousedown", outside);
  }, [open]);

  const close = () => {
    setOpen(false);
    button.current?.focus();
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (!open) return;
    const items = [...(wrap.current?.querySelectorAll<HTMLElement>('[role="menuitem"]:not([disabled])') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      close();
    } else if (e.key === "ArrowDown") {
      e.preventDefault();
      items[(at + 1) % items.length]?.focus();
    } else if (e.key === "ArrowUp") {
      e.preventDefault();
      items[(at - 1 + items.length) % items.length]?.focus();
    } else if (e.key === "Tab") {
      setOpen(false);
    }
  };

  return (
    <div class={`menu-wrap ${props.className ?? ""}`} ref={wrap} onKeyDown={onKeyDown}>
      <button
        ref={button}
        type="button"
        class="menu-button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-label={props.label}
        title={props.label}
        data-testid={props.testId}
        onClick={(e) => {
          e.stopPropagation();
          const r = e.currentTarget.getBoundingClientRect();
          setPlace(
            props.align === "right"
              ? { top: r.bottom + 4, right: Math.max(8, window.innerWidth - r.right) }
              : { top: r.bottom + 4, left: Math.max(8, r.left) },
          );
          setOpen(!open);
        }}
        onPointerDown={(e) => e.stopPropagation()}
      >
        {props.children}
      </button>
      {open && (
        <div
          class="menu"
          role="menu"
          data-testid={props.menuTestId}
          style={{
            top: `${place.top}px`,
            ...(place.left !== undefined ? { left: `${place.left}px` } : {}),
            ...(place.right !== undefined ? { right: `${place.right}px` } : {}),
          }}
        >
          {props.items.map((item) => (
            <button
              key={item.testId}
              type="button"
              role="menuitem"
              class={`menu-item${item.danger ? " is-danger" : ""}`}
              data-testid={item.testId}
              disabled={item.disabled}
              title={item.hint}
              onClick={() => {
                setOpen(false);
                item.onSelect();
              }}
            >
              {item.icon}
              <span>{item.label}</span>
              {item.hint && <span class="menu-hint">{item.hint}</span>}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
