// Toasts, the confirmation question, and which dialog is open.

import { explain } from "../lib/errors";
import { type Dialog, type Toast, app } from "./state";

let toastSeq = 0;

export function toast(
  tone: Toast["tone"],
  text: string,
  extra: { detail?: string; code?: string; action?: Toast["action"] } = {},
): void {
  const id = ++toastSeq;
  app.set((s) => ({ toasts: [...s.toasts.slice(-3), { id, tone, text, ...extra }] }));
  // A toast with an action (Undo) stays longer: the person needs the time to reach it.
  setTimeout(() => dismissToast(id), tone === "error" ? 12000 : extra.action ? 10000 : 5000);
}

/** The toast's action (Undo), once: the toast goes with it. */
export function runToastAction(id: number): void {
  const t = app.get().toasts.find((x) => x.id === id);
  dismissToast(id);
  t?.action?.run();
}

export function toastError(error: unknown, prefix?: string): void {
  const e = explain(error);
  toast("error", prefix ? `${prefix} ${e.text}` : e.text, { detail: e.detail, code: e.code });
}

export function dismissToast(id: number): void {
  app.set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) }));
}

export function confirm(opts: { title: string; body: string; confirmLabel: string; danger?: boolean }): Promise<boolean> {
  return new Promise((resolve) => {
    answerConfirm(false);
    app.set({
      confirm: {
        title: opts.title,
        body: opts.body,
        confirmLabel: opts.confirmLabel,
        danger: opts.danger ?? false,
        resolve,
      },
    });
  });
}

export function answerConfirm(ok: boolean): void {
  const c = app.get().confirm;
  if (!c) return;
  app.set({ confirm: null });
  c.resolve(ok);
}

export function openDialog(dialog: Dialog): void {
  app.set({ dialog });
}

export function closeDialog(): void {
  app.set({ dialog: null });
}
