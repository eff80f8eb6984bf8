// The Files tab: attachments' metadata (the content stays on this computer and the server; the
// agent only ever sees metadata). Attach with the system dialog or by dropping files on the
// window; open with the system's application or save a copy.

import { isTauri } from "@tauri-apps/api/core";
import { useEffect, useState } from "preact/hooks";
import { type FileMeta, onFilesDropped, type TabView } from "../api";
import { attachDropped, chooseAndAttach, confirm, openAttachment, saveAttachmentCopy, write } from "../app-state";
import { formatBytes } from "../lib/format";
import { relativeTime, toDate } from "../lib/status";
import { TID } from "../testids";
import { Icon, RemoveButton } from "./Icon";

/**
 * Files dropped on the window: Tauri's webview events say when a drag is over the window (for
 * the highlight); the app keeps the dropped paths and announces the drop by number
 * (`onFilesDropped`), which `onDrop` attaches. The page never sees nor sends a path.
 */
function useFileDrop(onDrop: (dropId: number) => void): boolean {
  const [over, setOver] = useState(false);
  useEffect(() => {
    const stops: (() => void)[] = [];
    let cancelled = false;
    const keep = (un: () => void) => {
      if (cancelled) un();
      else stops.push(un);
    };
    void (async () => {
      try {
        if (!isTauri()) return;
        keep(await onFilesDropped((dropped) => onDrop(dropped.drop_id)));
        const { getCurrentWebview } = await import("@tauri-apps/api/webview");
        keep(
          await getCurrentWebview().onDragDropEvent((event) => {
            const kind = event.payload.type;
            setOver(kind === "enter" || kind === "over");
          }),
        );
      } catch {
        // Without Tauri's drag-and-drop events, the Attach button still works.
      }
    })();
    return () => {
      cancelled = true;
      for (const stop of stops) stop();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return over;
}

export function FilesEditor(props: { tab: TabView }) {
  const files = (Array.isArray(props.tab.data) ? props.tab.data : []) as FileMeta[];
  const [busy, setBusy] = useState(false);
  const attach = async (dropId: number) => {
    setBusy(true);
    await attachDropped(dropId);
    setBusy(false);
  };
  const over = useFileDrop((dropId) => void attach(dropId));

  const remove = async (f: FileMeta) => {
    const ok = await confirm({
      title: `Remove “${f.name}”?`,
      body: "The attachment is removed from the Note. The Note's history keeps its record.",
      confirmLabel: "Remove file",
      danger: true,
    });
    if (ok) await write([{ op: "remove_file", file_id: f.id }], "removing the file");
  };

  const now = new Date();
  return (
    <div class="list-editor" data-testid={TID.editorFiles} data-tab-id={props.tab.id}>
      <div
        class={`drop-zone${over ? " is-over" : ""}`}
        data-testid={TID.fileDrop}
        onDragOver={(e) => e.preventDefault()}
        onDrop={(e) => e.preventDefault()}
      >
        <Icon name="file" size={22} />
        <div>
          <strong>{over ? "Drop to attach" : "Drop files anywhere on this window"}</strong>
          <div class="muted">or</div>
        </div>
        <button
          type="button"
          class="button primary"
          data-testid={TID.fileAttach}
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            await chooseAndAttach();
            setBusy(false);
          }}
        >
          {busy ? "Attaching…" : "Choose a file…"}
        </button>
      </div>
      {files.length === 0 ? (
        <p class="muted center">No files attached yet.</p>
      ) : (
        <ul class="item-list">
          {files.map((f) => (
            <li key={f.id} class="item" data-testid={TID.fileItem} data-file-id={f.id}>
              <Icon name="file" />
              <div class="item-main">
                <div class="item-title">{f.name}</div>
                <div class="item-meta">
                  <span>{formatBytes(f.size)}</span>
                  <span>{f.mime}</span>
                  <span title={`SHA-256 ${f.sha256}`}>sha256 {f.sha256.slice(0, 10)}…</span>
                  {f.added_by && (
                    <span>
                      added by {f.added_by}
                      {f.added_at ? ` · ${relativeTime(toDate(f.added_at), now)}` : ""}
                    </span>
                  )}
                </div>
              </div>
              <button type="button" class="button small" data-testid={TID.fileOpen} onClick={() => void openAttachment(f.id)}>
                <Icon name="external" /> Open
              </button>
              <button type="button" class="button small" data-testid={TID.fileSave} onClick={() => void saveAttachmentCopy(f.id)}>
                Save a copy…
              </button>
              <RemoveButton testId={TID.fileRemove} label={`Remove ${f.name}`} onClick={() => void remove(f)} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
