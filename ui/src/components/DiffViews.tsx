// Read-only views of differences: lines of text, cells of sheets, slides of decks, and a whole
// Note against another version. Used by the conflict review and the versions panel.

import { useState } from "preact/hooks";
import type { Deck, SheetTab } from "../api";
import {
  type DeckChange,
  type LineOp,
  type NoteChange,
  type SheetChange,
  countChanges,
  diffDecks,
  diffSheets,
  diffText,
  foldUnchanged,
} from "../lib/diff";
import { cellName, cellText } from "../lib/grid";
import { layoutLabel, themeLabel } from "../lib/slides";
import { typeName, type TabType } from "../lib/tabs";
import { TID } from "../testids";

/**
 * Who made the change shown: its new lines, cells and slides are marked as the editors mark
 * another writer's change (the author's colour and name; `diff-mark`).
 */
export interface MarkedBy {
  author: string;
  agent: boolean;
}

function markClass(by: MarkedBy | undefined): string {
  return by ? ` is-marked${by.agent ? " is-agent" : ""}` : "";
}

function markAttrs(by: MarkedBy | undefined) {
  return by ? { "data-testid": TID.diffMark, "data-author": by.author, title: `Changed by ${by.author}` } : {};
}

export function LineDiffView(props: { ops: LineOp[]; context?: number; emptyText?: string; by?: MarkedBy }) {
  const [expanded, setExpanded] = useState<Set<number>>(new Set());
  const blocks = foldUnchanged(props.ops, props.context ?? 3);
  const { added, removed } = countChanges(props.ops);
  if (added + removed === 0) return <p class="muted">{props.emptyText ?? "No changes."}</p>;
  return (
    <div class="line-diff" role="table" aria-label={`${added} lines added, ${removed} removed`}>
      <div class="diff-counts">
        <span class="diff-add-count">+{added}</span> <span class="diff-del-count">−{removed}</span>
      </div>
      {blocks.map((b, i) =>
        b.kind === "skip" && !expanded.has(i) ? (
          <button
            key={i}
            type="button"
            class="diff-skip"
            onClick={() => setExpanded(new Set([...expanded, i]))}
          >
            ⋯ {b.count} unchanged line{b.count === 1 ? "" : "s"} (show)
          </button>
        ) : b.kind === "skip" ? (
          <div key={i} class="diff-expanded-note muted">
            {b.count} unchanged lines
          </div>
        ) : (
          <div key={i} class="diff-block">
            {b.ops.map((op, j) => (
              <div
                key={j}
                class={`diff-line diff-${op.kind}${op.kind === "add" ? markClass(props.by) : ""}`}
                role="row"
                {...(op.kind === "add" ? markAttrs(props.by) : {})}
              >
                <span class="diff-num" role="cell">
                  {op.kind === "add" ? "" : op.a + 1}
                </span>
                <span class="diff-num" role="cell">
                  {op.kind === "del" ? "" : op.b + 1}
                </span>
                <span class="diff-sign" role="cell" aria-hidden="true">
                  {op.kind === "add" ? "+" : op.kind === "del" ? "−" : " "}
                </span>
                <span class="diff-text" role="cell">
                  {op.text === "" ? "\u00a0" : op.text}
                </span>
              </div>
            ))}
          </div>
        ),
      )}
    </div>
  );
}

function showCell(v: unknown): string {
  if (v === null || v === undefined || v === "") return "∅";
  if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") return cellText(v);
  return JSON.stringify(v);
}

export function SheetChangesView(props: { changes: SheetChange[]; max?: number; by?: MarkedBy }) {
  const max = props.max ?? 200;
  if (props.changes.length === 0) return <p class="muted">No changed cells.</p>;
  return (
    <div class="cell-changes">
      {props.changes.map((s) => (
        <div key={s.sheetId} class="cell-sheet">
          <div class="cell-sheet-head">
            <strong>{s.name}</strong>{" "}
            {s.status === "added" && <span class="pill pill-ok">new sheet</span>}
            {s.status === "removed" && <span class="pill pill-danger">sheet removed</span>}
            {s.renamedFrom !== undefined && <span class="muted"> (was “{s.renamedFrom}”)</span>}{" "}
            {s.cells.length > 0 && (
              <span class="muted">
                {s.cells.length} changed cell{s.cells.length === 1 ? "" : "s"}
              </span>
            )}
          </div>
          {s.cells.length > 0 && (
            <table class="cell-table">
              <thead>
                <tr>
                  <th>Cell</th>
                  <th>Before</th>
                  <th>After</th>
                </tr>
              </thead>
              <tbody>
                {s.cells.slice(0, max).map((c) => (
                  <tr key={`${c.row}:${c.col}`}>
                    <td class="mono">{cellName({ row: c.row, col: c.col })}</td>
                    <td class="cell-before">{showCell(c.before)}</td>
                    <td class={`cell-after${markClass(props.by)}`} {...markAttrs(props.by)}>
                      {showCell(c.after)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {s.cells.length > max && <p class="muted">…and {s.cells.length - max} more.</p>}
        </div>
      ))}
    </div>
  );
}

export function DeckChangesView(props: { change: DeckChange; by?: MarkedBy }) {
  const { change } = props;
  if (!change.theme && change.slides.length === 0) return <p class="muted">No changed slides.</p>;
  return (
    <ul class="slide-changes">
      {change.theme && (
        <li>
          Theme: {themeLabel(change.theme.from)} → <strong>{themeLabel(change.theme.to)}</strong>
        </li>
      )}
      {change.slides.map((s) => {
        const title = s.after?.title || s.before?.title || "Untitled slide";
        return (
          <li
            key={s.slideId}
            class={`slide-change is-${s.status}${s.status === "removed" ? "" : markClass(props.by)}`}
            {...(s.status === "removed" ? {} : markAttrs(props.by))}
          >
            <span class={`pill ${s.status === "added" ? "pill-ok" : s.status === "removed" ? "pill-danger" : "pill-muted"}`}>
              {s.status}
            </span>{" "}
            <strong>
              {s.index + 1}. {title}
            </strong>
            {props.by && s.status !== "removed" && <span class="diff-mark-author">{props.by.author}</span>}
            {s.status === "changed" && (
              <div class="slide-change-fields">
                {s.fields.map((f) => (
                  <div key={f} class="slide-field-change">
                    <span class="muted">{f}:</span>{" "}
                    {f === "layout" ? (
                      <>
                        {layoutLabel(s.before?.layout ?? "")} → {layoutLabel(s.after?.layout ?? "")}
                      </>
                    ) : (
                      <>
                        <del>{s.before?.[f] || "∅"}</del> <ins>{s.after?.[f] || "∅"}</ins>
                      </>
                    )}
                  </div>
                ))}
              </div>
            )}
          </li>
        );
      })}
    </ul>
  );
}

/** A tab's change from one content to another, by kind. */
export function ContentDiff(props: { type: string; before: unknown; after: unknown }) {
  switch (props.type) {
    case "markdown":
      return (
        <LineDiffView
          ops={diffText(typeof props.before === "string" ? props.before : "", typeof props.after === "string" ? props.after : "")}
        />
      );
    case "sheet":
      return <SheetChangesView changes={diffSheets(props.before as SheetTab, props.after as SheetTab)} />;
    case "slides":
      return <DeckChangesView change={diffDecks(props.before as Deck, props.after as Deck)} />;
    default:
      return <p class="muted">Not comparable.</p>;
  }
}

export function NoteChangesView(props: { change: NoteChange; olderLabel: string; newerLabel: string; by?: MarkedBy }) {
  const { by } = props;
  const { change } = props;
  if (!change.title && change.tabs.length === 0) {
    return (
      <p class="muted">
        {props.olderLabel} and {props.newerLabel} are the same.
      </p>
    );
  }
  return (
    <div class="note-changes">
      {change.title && (
        <p>
          Title: <del>{change.title.from || "Untitled"}</del> → <ins>{change.title.to || "Untitled"}</ins>
        </p>
      )}
      {change.tabs.map((t) => (
        <section key={t.tabId} class="tab-change">
          <h4>
            <span
              class={`pill ${t.status === "added" ? "pill-ok" : t.status === "removed" ? "pill-danger" : "pill-muted"}`}
            >
              {t.status === "added" ? `only in ${props.newerLabel}` : t.status === "removed" ? `only in ${props.olderLabel}` : "changed"}
            </span>{" "}
            {t.label} <span class="muted">· {typeName(t.type as TabType)} · {t.tabId}</span>
          </h4>
          {t.renamedFrom !== undefined && (
            <p class="muted">
              Renamed from “{t.renamedFrom}” to “{t.label}”.
            </p>
          )}
          {t.moved && (
            <p class="muted">
              Moved from position {t.moved.from + 1} to {t.moved.to + 1}.
            </p>
          )}
          {t.content?.type === "markdown" && <LineDiffView ops={t.content.ops} by={by} />}
          {t.content?.type === "sheet" && <SheetChangesView changes={t.content.sheets} by={by} />}
          {t.content?.type === "slides" && <DeckChangesView change={t.content.deck} by={by} />}
          {(t.content?.type === "sources" || t.content?.type === "files") && (
            <ul class="list-changes">
              {t.content.list.added.map((x) => (
                <li key={`+${x.id}`} class="diff-add">
                  + {String(x.title ?? x.name ?? x.id)}
                </li>
              ))}
              {t.content.list.removed.map((x) => (
                <li key={`-${x.id}`} class="diff-del">
                  − {String(x.title ?? x.name ?? x.id)}
                </li>
              ))}
            </ul>
          )}
        </section>
      ))}
    </div>
  );
}
