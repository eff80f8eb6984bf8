// A few line icons (inline SVG, 16 px, currentColor): no icon font, nothing fetched.

const PATHS: Record<string, string> = {
  search: "M7 12.5a5.5 5.5 0 1 1 0-11 5.5 5.5 0 0 1 0 11zM11 11l3.5 3.5",
  plus: "M8 3v10M3 8h10",
  drafts: "M3 2.5h7l3 3v8H3zM10 2.5v3h3M5.5 8.5h5M5.5 11h3",
  history: "M2.5 8a5.5 5.5 0 1 0 1.6-3.9M2.5 2.5v2.5H5M8 5v3.2l2 1.3",
  agent: "M4 6.5h8v6H4zM8 3.5v3M6.2 9.2h.1M9.8 9.2h.1M2.5 9v1.5M13.5 9v1.5M8 3.5",
  settings:
    "M8 10.2a2.2 2.2 0 1 0 0-4.4 2.2 2.2 0 0 0 0 4.4zM8 1.8v1.6M8 12.6v1.6M1.8 8h1.6M12.6 8h1.6M3.6 3.6l1.1 1.1M11.3 11.3l1.1 1.1M3.6 12.4l1.1-1.1M11.3 4.7l1.1-1.1",
  more: "M3.5 8h.1M8 8h.1M12.5 8h.1",
  close: "M4 4l8 8M12 4l-8 8",
  doc: "M4 2h5.5L12 4.5V14H4zM9.5 2v2.5H12M6 7.5h4M6 10h4",
  sheet: "M2.5 3h11v10h-11zM2.5 6.5h11M2.5 10h11M6.5 3v10",
  slides: "M2.5 3h11v7.5h-11zM8 10.5v2.5M5.5 13h5",
  link: "M6.5 9.5l3-3M7 4.5l1-1a2.5 2.5 0 0 1 3.5 3.5l-1 1M9 11.5l-1 1A2.5 2.5 0 0 1 4.5 9l1-1",
  file: "M10.5 5.5l-4.7 4.7a1.4 1.4 0 0 0 2 2l5-5a2.6 2.6 0 0 0-3.7-3.7l-5 5a3.9 3.9 0 0 0 5.5 5.5l4.2-4.2",
  eye: "M1.5 8s2.4-4.5 6.5-4.5S14.5 8 14.5 8 12.1 12.5 8 12.5 1.5 8 1.5 8zM8 10a2 2 0 1 0 0-4 2 2 0 0 0 0 4z",
  edit: "M10.5 2.5l3 3L6 13H3v-3z",
  play: "M5 3l8 5-8 5z",
  up: "M8 13V3M4 7l4-4 4 4",
  down: "M8 3v10M4 9l4 4 4-4",
  trash: "M3 4.5h10M6.5 4.5V3h3v1.5M4.5 4.5l.7 9h5.6l.7-9",
  external: "M9 2.5h4.5V7M13.5 2.5L7.5 8.5M11.5 9.5v4h-9v-9h4",
  copy: "M5.5 5.5h8v8h-8zM10.5 5.5v-3h-8v8h3",
  warning: "M8 2l6.5 11.5h-13zM8 6.5v3.2M8 11.6v.1",
  check: "M3 8.5l3 3 7-7",
  offline: "M2 2l12 12M5.3 9.2a4 4 0 0 1 5.4 0M2.8 6.6a7.5 7.5 0 0 1 3-1.9M10.5 4.8a7.5 7.5 0 0 1 2.7 1.8M8 12.5h.1",
};

export function Icon(props: { name: keyof typeof PATHS | string; size?: number; label?: string }) {
  const size = props.size ?? 16;
  return (
    <svg
      class="icon"
      width={size}
      height={size}
      viewBox="0 0 16 16"
      fill="none"
      stroke="currentColor"
      stroke-width="1.4"
      stroke-linecap="round"
      stroke-linejoin="round"
      aria-hidden={props.label ? undefined : "true"}
      aria-label={props.label}
      role={props.label ? "img" : undefined}
    >
      <path d={PATHS[props.name] ?? ""} />
    </svg>
  );
}

/** The trash button of a list row (a source, a file): `label` names what it removes. */
export function RemoveButton(props: { testId: string; label: string; onClick: () => void }) {
  return (
    <button
      type="button"
      class="icon-button"
      data-testid={props.testId}
      onClick={props.onClick}
      aria-label={props.label}
      title="Remove"
    >
      <Icon name="trash" />
    </button>
  );
}
