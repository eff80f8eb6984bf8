// The conflict review: base (what the person started from), mine (their draft) and theirs (the
// server now), with the engine's proposed three-way merge. The person keeps theirs, takes
// theirs, or merges with one pick per clash. Nothing is decided for them. The merged result is
// the engine's: asked again whenever the picks change.

import { useEffect, useState } from "preact/hooks";
import * as api from "../api";
import type { ConflictView as ConflictData, Deck, MergePreview, SheetClash, SheetTab, SlideClash, TabMerge } from "../api";
import { app, closeDialog, resolveConflict, useApp } from "../app-state";
import { diffDecks, diffSheets } from "../lib/diff";
import { explain } from "../lib/errors";
import { cellText } from "../lib/grid";
import { type Pick, asChoices, clashCount, describeClash, mergeRequest, pickLabel, picksFor } from "../lib/merge";
import { layoutLabel, themeLabel } from "../lib/slides";
import { TID } from "../testids";
import { ContentDiff, DeckChangesView, SheetChangesView } from "./DiffViews";
import { Icon } from "./Icon";
import { Modal } from "./Modal";

type Pane = "clashes" | "mine" | "theirs" | "result";

export function ConflictDialog(props: { tabId: string }) {
  const noteId = useApp((s) => s.open?.noteId ?? null);
  const label = useApp((s) => s.open?.view?.tabs.find((t) => t.id === props.tabId)?.label ?? props.tabId);
  const [data, setData] = useState<ConflictData | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [picks, setPicks] = useState<(Pick | null)[]>([]);
  const [pane, setPane] = useState<Pane>("clashes");
  const [busy, setBusy] = useState(false);
  const [reload, setReload] = useState(0);
  const [preview, setPreview] = useState<Preview>(null);

  useEffect(() => {
    if (!noteId) return;
    let live = true;
    api.conflict(noteId, props.tabId).then(
      (c) => {
        if (!live) return;
        setData(c);
        const clashes = c.merge ? clashCount(c.merge) : 0;
        setPicks(new Array<Pick | null>(clashes).fill(null));
        // Nothing to decide: show what Merge will save.
        if (c.merge && clashes === 0) setPane("result");
        setError(null);
      },
      (e: unknown) => live && setError(explain(e).text),
    );
    return () => {
      live = false;
    };
  }, [noteId, props.tabId, reload]);

  // What Merge would save for the picks so far, from the engine.
  useEffect(() => {
    if (!noteId || !data?.merge) return;
    let live = true;
    api.previewConflictResolution(noteId, props.tabId, asChoices(picks)).then(
      (p) => live && setPreview(p),
      (e: unknown) => live && setPreview({ error: explain(e).text }),
    );
    return () => {
      live = false;
    };
  }, [noteId, props.tabId, data, picks]);

  const finish = async (choice: Parameters<typeof resolveConflict>[1]) => {
    setBusy(true);
    const noteIdNow = app.get().open?.noteId;
    try {
      if (!noteIdNow) return;
      const ok = await resolveConflict(props.tabId, choice);
      if (ok) closeDialog();
      else {
        setError("Not resolved: the tab changed again or the choice was refused. Look at it again below.");
        setReload((n) => n + 1);
      }
    } finally {
      setBusy(false);
    }
  };

  const merge = data?.merge;
  const count = merge ? clashCount(merge) : 0;
  const decided = picks.filter((p) => p !== null).length;
  const request = merge ? mergeRequest(merge, picks) : null;
  const type = data?.mine.type ?? "markdown";

  return (
    <Modal label={`Conflict in ${label}`} onClose={closeDialog} testId={TID.conflictView} wide>
      <div class="modal-head">
        <h2>
          <Icon name="warning" /> Conflict in “{label}”
        </h2>
        <button type="button" class="icon-button" onClick={closeDialog} aria-label="Close" data-testid={TID.conflictClose}>
          <Icon name="close" />
        </button>
      </div>
      {!data && !error && <p class="muted">Loading…</p>}
      {error && (
        <p class="form-message is-error" data-testid={TID.conflictMessage} role="alert">
          {error}
        </p>
      )}
      {data && (
        <>
          <div class="conflict-legend">
            <span class="legend base">
              <b>Base</b> version {data.base_version}: where your draft started
            </span>
            <span class="legend mine">
              <b>Mine</b> your draft (kept until you choose)
            </span>
            <span class="legend theirs">
              <b>Theirs</b> {data.theirs ? `version ${data.theirs_version} on the server` : `deleted on the server (version ${data.theirs_version})`}
            </span>
          </div>
          {!data.theirs ? (
            <div class="conflict-gone">
              <p>
                The tab was deleted on the server while you edited it. Taking theirs accepts the deletion; your draft is
                archived on this computer (never thrown away). Copy anything you need from it first:
              </p>
              <pre class="mine-copy">{typeof data.mine.data === "string" ? data.mine.data : JSON.stringify(data.mine.data, null, 2)}</pre>
            </div>
          ) : (
            <>
              <div class="segmented conflict-panes" role="tablist">
                {(["clashes", "mine", "theirs", "result"] as Pane[]).map((p) => (
                  <button key={p} type="button" role="tab" aria-selected={pane === p} class={pane === p ? "is-on" : ""} onClick={() => setPane(p)}>
                    {p === "clashes"
                      ? `Clashes (${count})`
                      : p === "mine"
                        ? "Your changes"
                        : p === "theirs"
                          ? "Their changes"
                          : "Merged result"}
                  </button>
                ))}
              </div>
              <div class="conflict-body">
                {pane === "clashes" && merge && (
                  <Clashes merge={merge} picks={picks} setPick={(i, p) => setPicks(picks.map((x, j) => (j === i ? p : x)))} />
                )}
                {pane === "mine" && <ContentDiff type={type} before={data.base.data} after={data.mine.data} />}
                {pane === "theirs" && <ContentDiff type={type} before={data.base.data} after={data.theirs.data} />}
                {pane === "result" && merge && <MergedResult preview={preview} base={data.base.data} />}
              </div>
            </>
          )}
          <div class="modal-foot">
            <span class="muted">
              {data.theirs && count > 0 && `${decided} of ${count} clashes decided`}
              {data.theirs && count === 0 && "No clashes: the changes merge cleanly."}
            </span>
            <div class="toolbar-spacer" />
            <button
              type="button"
              class="button"
              data-testid={TID.conflictViewTakeTheirs}
              disabled={busy}
              onClick={() => void finish({ choice: "take_theirs" })}
              title="Show the server's version; your draft is archived"
            >
              {data.theirs ? "Take theirs" : "Accept the deletion"}
            </button>
            {data.theirs && (
              <button
                type="button"
                class="button"
                data-testid={TID.conflictViewKeepMine}
                disabled={busy}
                onClick={() => void finish({ choice: "keep_mine" })}
                title="Save your draft as the newest version; theirs stays in the history"
              >
                Keep mine
              </button>
            )}
            {data.theirs && request && (
              <button
                type="button"
                class="button primary"
                data-testid={TID.conflictMerge}
                disabled={busy || !request.ok}
                title={request.ok ? "Save the merged result" : `Decide ${request.undecided} more clash(es) first`}
                onClick={() => request.ok && void finish(request.choice as Parameters<typeof resolveConflict>[1])}
              >
                Merge{count > 0 ? ` (${decided}/${count})` : ""}
              </button>
            )}
          </div>
        </>
      )}
    </Modal>
  );
}

function Clashes(props: { merge: TabMerge; picks: (Pick | null)[]; setPick: (i: number, p: Pick) => void }) {
  const { merge, picks, setPick } = props;
  const options = picksFor(merge);
  if (clashCount(merge) === 0) {
    return <p class="muted">Your changes and theirs touch different places: Merge keeps both.</p>;
  }
  if (merge.type === "markdown") {
    let n = -1;
    return (
      <div class="clashes">
        {merge.hunks.map((h, i) => {
          if (h.kind === "clean") {
            const lines = h.lines;
            return (
              <div key={i} class="hunk-clean">
                {lines.length <= 4 ? (
                  lines.map((l, j) => (
                    <div key={j} class="hunk-line">
                      {l || "\u00a0"}
                    </div>
                  ))
                ) : (
                  <>
                    <div class="hunk-line">{lines[0] || "\u00a0"}</div>
                    <div class="hunk-fold muted">⋯ {lines.length - 2} lines unchanged or merged</div>
                    <div class="hunk-line">{lines[lines.length - 1] || "\u00a0"}</div>
                  </>
                )}
              </div>
            );
          }
          n++;
          const index = n;
          return (
            <ClashCard key={i} index={index} title={`Clash ${index + 1}`} pick={picks[index] ?? null} options={options} setPick={setPick}>
              <ThreeWay base={h.base.join("\n")} mine={h.mine.join("\n")} theirs={h.theirs.join("\n")} />
            </ClashCard>
          );
        })}
      </div>
    );
  }
  const clashes: (SheetClash | SlideClash)[] = merge.clashes;
  const sheetName = (id: string) =>
    merge.type === "sheet" ? (merge.merged.sheets.find((s) => s.id === id)?.name ?? id) : id;
  return (
    <div class="clashes">
      {clashes.map((c, i) => (
        <ClashCard key={i} index={i} title={describeClash(c, sheetName)} pick={picks[i] ?? null} options={options} setPick={setPick}>
          {c.kind === "cell" && <ThreeWay base={cellText(c.base as never)} mine={cellText(c.mine as never)} theirs={cellText(c.theirs as never)} />}
          {c.kind === "name" && <ThreeWay base={c.base} mine={c.mine} theirs={c.theirs} />}
          {c.kind === "sheet" && (
            <ThreeWay base="" mine={c.mine ? `kept (${c.mine.name})` : "deleted"} theirs={c.theirs ? `kept (${c.theirs.name})` : "deleted"} />
          )}
          {c.kind === "theme" && <ThreeWay base={themeLabel(c.base)} mine={themeLabel(c.mine)} theirs={themeLabel(c.theirs)} />}
          {c.kind === "slide" && (
            <ThreeWay
              base={slideText(c.base)}
              mine={c.mine ? slideText(c.mine) : "deleted"}
              theirs={c.theirs ? slideText(c.theirs) : "deleted"}
            />
          )}
        </ClashCard>
      ))}
    </div>
  );
}

function slideText(s: { title: string; body: string; notes: string; layout: string } | null): string {
  if (!s) return "";
  return [`# ${s.title}`, s.body, s.notes ? `Notes: ${s.notes}` : "", `(${layoutLabel(s.layout)})`].filter(Boolean).join("\n");
}

function ClashCard(props: {
  index: number;
  title: string;
  pick: Pick | null;
  options: Pick[];
  setPick: (i: number, p: Pick) => void;
  children: preact.ComponentChildren;
}) {
  return (
    <div class={`clash${props.pick ? " is-decided" : ""}`} data-testid={TID.conflictClash} data-index={props.index}>
      <div class="clash-head">
        <strong>{props.title}</strong>
        <div class="clash-picks" role="radiogroup" aria-label={`Choice for ${props.title}`}>
          {props.options.map((p) => (
            <button
              key={p}
              type="button"
              role="radio"
              aria-checked={props.pick === p}
              class={`pick${props.pick === p ? " is-on" : ""}`}
              data-testid={TID.conflictPick}
              data-pick={p}
              onClick={() => props.setPick(props.index, p)}
            >
              {pickLabel(p)}
            </button>
          ))}
        </div>
      </div>
      {props.children}
    </div>
  );
}

function ThreeWay(props: { base: string; mine: string; theirs: string }) {
  return (
    <div class="three-way">
      <div class="side base">
        <div class="side-label">Base</div>
        <pre>{props.base || "∅"}</pre>
      </div>
      <div class="side mine">
        <div class="side-label">Mine</div>
        <pre>{props.mine || "∅"}</pre>
      </div>
      <div class="side theirs">
        <div class="side-label">Theirs</div>
        <pre>{props.theirs || "∅"}</pre>
      </div>
    </div>
  );
}

/** The engine's preview for the picks so far, or why it could not be had (`null`: asked). */
export type Preview = MergePreview | { error: string } | null;

export function MergedResult(props: { preview: Preview; base: unknown }) {
  const { preview } = props;
  if (preview === null) return <p class="muted">Loading…</p>;
  if ("error" in preview) {
    return (
      <p class="form-message is-error" role="alert">
        {preview.error}
      </p>
    );
  }
  const content = preview.content;
  if (content.type === "markdown") {
    return (
      <div class="merged-preview" aria-label="Merged text">
        {preview.lines.map((l, i) => (
          <div key={i} class={`merged-line from-${l.from}`}>
            {l.text || "\u00a0"}
          </div>
        ))}
      </div>
    );
  }
  const note = (
    <p class="muted">
      Every change that does not clash is kept; at each clash, your pick (yours until you choose). Compared with the
      base:
    </p>
  );
  if (content.type === "sheet") {
    return (
      <div>
        {note}
        <SheetChangesView changes={diffSheets(props.base as SheetTab, content.data)} />
      </div>
    );
  }
  if (content.type === "slides") {
    return (
      <div>
        {note}
        <DeckChangesView change={diffDecks(props.base as Deck, content.data)} />
      </div>
    );
  }
  return null;
}
