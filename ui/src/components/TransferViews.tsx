// Export and import on screen: the progress bar while one runs, and the summary when it is done
// (how many Notes, and what was skipped and why).

import { closeDialog, navigate, useApp } from "../app-state";
import type { TransferSummary } from "../api";
import {
  noteLines,
  progressPercent,
  progressText,
  skippedLines,
  summaryHeadline,
  summaryTitle,
} from "../lib/transfer";
import { TID } from "../testids";
import { Modal } from "./Modal";

/** Shown once the app reports how many Notes there are (not while the folder dialog is open). */
export function TransferProgressBar() {
  const transfer = useApp((s) => s.transfer);
  if (!transfer?.progress) return null;
  const { progress, action } = transfer;
  const percent = progressPercent(progress);
  return (
    <div
      class="transfer-progress"
      role="progressbar"
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={percent}
      aria-label={progressText(action, progress)}
      data-testid={TID.transferProgress}
      data-action={action}
      data-done={progress.done}
      data-total={progress.total}
    >
      <span class="transfer-progress-text">{progressText(action, progress)}</span>
      <span class="transfer-progress-track" aria-hidden="true">
        <span class="transfer-progress-fill" style={{ width: `${percent}%` }} />
      </span>
    </div>
  );
}

export function TransferSummaryDialog(props: { summary: TransferSummary }) {
  const { summary } = props;
  const notes = noteLines(summary);
  const skipped = skippedLines(summary);
  return (
    <Modal label={summaryTitle(summary)} onClose={closeDialog} testId={TID.transferSummary} className="transfer-summary">
      <div
        class="confirm"
        data-kind={summary.kind}
        data-count={summary.notes.length}
        data-skipped={summary.skipped.length}
      >
        <h2>{summaryTitle(summary)}</h2>
        <p data-testid={TID.transferSummaryText}>{summaryHeadline(summary)}</p>
        {notes.length > 0 && (
          <ul class="transfer-list">
            {notes.map((n) => (
              <li key={n.noteId} data-testid={TID.transferSummaryNote} data-note-id={n.noteId}>
                {summary.kind === "import" ? (
                  <button
                    type="button"
                    class="link-button"
                    onClick={() => {
                      closeDialog();
                      navigate({ kind: "note", noteId: n.noteId });
                    }}
                  >
                    {n.title}
                  </button>
                ) : (
                  <span>{n.title}</span>
                )}
                <span class="muted small"> {n.path}</span>
              </li>
            ))}
          </ul>
        )}
        {skipped.length > 0 && (
          <>
            <h3>Skipped</h3>
            <ul class="transfer-list transfer-skipped">
              {skipped.map((line, i) => (
                <li key={i} data-testid={TID.transferSummarySkipped}>
                  {line}
                </li>
              ))}
            </ul>
          </>
        )}
        <div class="modal-foot">
          <div class="toolbar-spacer" />
          <button
            type="button"
            class="button primary"
            data-testid={TID.transferSummaryClose}
            data-autofocus
            onClick={closeDialog}
          >
            Close
          </button>
        </div>
      </div>
    </Modal>
  );
}
