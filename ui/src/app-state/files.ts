// Links, sources and attached files.

import * as api from "../api";
import { toast, toastError } from "./messages";
import { refreshView } from "./notes";
import { app } from "./state";
import { reportQueued } from "./writes";

export async function openLink(url: string): Promise<void> {
  try {
    await api.openUrl(url);
  } catch (error) {
    toastError(error, "The link could not be opened.");
  }
}

/** Attaches the files of a drop (`onFilesDropped`) to the open Note. */
export async function attachDropped(dropId: number): Promise<void> {
  const noteId = app.get().open?.noteId;
  if (!noteId) return;
  try {
    for (const file of await api.attachDropped(noteId, dropId)) {
      reportQueued(file.outcome, `the attachment ${file.name}`);
    }
  } catch (error) {
    toastError(error, "The files could not be attached.");
  }
  await refreshView();
}

export async function chooseAndAttach(): Promise<void> {
  const noteId = app.get().open?.noteId;
  if (!noteId) return;
  try {
    const file = await api.attachFile(noteId);
    if (!file) return;
    reportQueued(file.outcome, `the attachment ${file.name}`);
  } catch (error) {
    toastError(error, "The file could not be attached.");
  }
  await refreshView();
}

export async function openAttachment(fileId: string): Promise<void> {
  const noteId = app.get().open?.noteId;
  if (!noteId) return;
  try {
    await api.openFile(noteId, fileId);
  } catch (error) {
    toastError(error, "The file could not be opened.");
  }
}

export async function saveAttachmentCopy(fileId: string): Promise<void> {
  const noteId = app.get().open?.noteId;
  if (!noteId) return;
  try {
    const path = await api.saveFileCopy(noteId, fileId);
    if (path) toast("info", `Saved a copy to ${path}`);
  } catch (error) {
    toastError(error, "The copy could not be saved.");
  }
}

/** Why an image cannot be pasted or dropped (too large), or null. */
export function imageRefusal(file: { name: string; size: number }): string | null {
  if (file.size <= api.IMAGE_BYTES) return null;
  const mb = (n: number) => (n / 1_048_576).toFixed(1);
  return `“${file.name || "The image"}” is ${mb(file.size)} MB: images up to ${api.IMAGE_BYTES / 1_048_576} MB can be pasted or dropped into a Note.`;
}

/** Images a paste or drop holds (PNG, JPEG, GIF, WebP). */
export function imagesOf(files: FileList | File[] | null | undefined): File[] {
  return Array.from(files ?? []).filter((f) => /^image\/(png|jpeg|gif|webp)$/.test(f.type));
}

/**
 * Attaches pasted or dropped images to the open Note; resolves to each attached image's
 * `{fileId, name}` (an over-large one is refused with a message naming the limit).
 */
export async function attachImages(files: File[]): Promise<{ fileId: string; name: string }[]> {
  const noteId = app.get().open?.noteId;
  if (!noteId) return [];
  const done: { fileId: string; name: string }[] = [];
  for (const file of files) {
    const refused = imageRefusal(file);
    if (refused) {
      toast("error", refused);
      continue;
    }
    try {
      const bytes = new Uint8Array(await file.arrayBuffer());
      const attached = await api.attachImage(noteId, file.name || "pasted image", bytes);
      reportQueued(attached.outcome, `the image ${attached.name}`);
      if (attached.file_id) done.push({ fileId: attached.file_id, name: attached.name });
    } catch (error) {
      toastError(error, "The image could not be attached.");
    }
  }
  if (files.length > 0) await refreshView();
  return done;
}

/** Object URLs of attached images already loaded, by Note and file ID. */
const imageUrls = new Map<string, Promise<string | undefined>>();

/** An object URL with the attached image's content (loaded once), or undefined if it cannot be shown. */
export function imageUrl(noteId: string, fileId: string): Promise<string | undefined> {
  const key = `${noteId}/${fileId}`;
  let url = imageUrls.get(key);
  if (!url) {
    url = api.imageContent(noteId, fileId).then(
      (buf) => URL.createObjectURL(new Blob([buf])),
      () => {
        imageUrls.delete(key);
        return undefined;
      },
    );
    imageUrls.set(key, url);
  }
  return url;
}

/**
 * Attaches the files of a drop on the window (`onFilesDropped`) while the Markdown editor is
 * shown, and resolves to the images among them the text may show (`{fileId, name}`); an image
 * over the limit stays attached (as any file) and is not referenced, with a message naming it.
 */
export async function attachDroppedImages(dropId: number): Promise<{ fileId: string; name: string }[]> {
  const noteId = app.get().open?.noteId;
  if (!noteId) return [];
  const images: { fileId: string; name: string }[] = [];
  try {
    for (const file of await api.attachDropped(noteId, dropId)) {
      reportQueued(file.outcome, `the attachment ${file.name}`);
      if (!file.file_id || !/^image\/(png|jpeg|gif|webp)$/.test(file.mime)) continue;
      const refused = imageRefusal(file);
      if (refused) toast("error", `${refused} It is attached (Files tab) but not shown in the text.`);
      else images.push({ fileId: file.file_id, name: file.name });
    }
  } catch (error) {
    toastError(error, "The files could not be attached.");
  }
  await refreshView();
  return images;
}
