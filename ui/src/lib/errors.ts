// What the person reads when a command is refused. The UI switches on the command's `code`,
// never on its message; the engine's message (which names the field) is kept as the detail.

import type { CommandError } from "../bindings";

/** Type guard for a command's rejection. */
export function isCommandError(value: unknown): value is CommandError {
  if (typeof value !== "object" || value === null) return false;
  const { code, message } = value as Record<string, unknown>;
  return typeof code === "string" && typeof message === "string";
}

export function errorCode(error: unknown): string {
  return isCommandError(error) ? error.code : "internal";
}

/** A one-line explanation for the person, then the engine's own words. */
export function explain(error: unknown): { code: string; text: string; detail: string } {
  if (!isCommandError(error)) {
    const detail = error instanceof Error ? error.message : String(error);
    return { code: "internal", text: `Something went wrong: ${detail}`, detail };
  }
  const { code, message } = error;
  const text = ((): string => {
    switch (code) {
      case "offline":
        return "The server cannot be reached. Your work is kept on this computer and saved when it is back.";
      case "tab_gone":
        return "This tab no longer exists.";
      case "note_not_open":
        return "This Note is not open any more; open it again.";
      case "would_discard_drafts":
        return "This would throw away unsaved changes.";
      case "conflict_moved":
        return "The tab changed again on the server while you were deciding: look at it again.";
      case "no_conflict":
        return "There is no conflict to resolve any more.";
      case "choice_unavailable":
        return "The tab was deleted on the server: only “Take theirs” applies.";
      case "save_in_flight":
        return "A save is on its way; try again in a moment.";
      case "version_conflict":
        return "The Note changed meanwhile, so this was refused. Nothing was lost: look again and retry.";
      case "note_in_trash":
        return "This Note is in the Trash: restore it to change it. Nothing in it was lost.";
      case "note_not_in_trash":
        return "This Note is not in the Trash any more.";
      case "remote_mode":
        return "Agent tokens for a remote server are made on that server.";
      case "local_store":
        return "Your draft could not be written on this computer. Keep the app open and check the disk.";
      case "unauthorized":
      case "forbidden":
        return "The server refused the token.";
      case "token_revoked":
        return "The server refused the token: it was revoked. Ask its administrator for a new one.";
      case "token_expired":
        return "The server refused the token: it has expired. Ask its administrator for a new one.";
      case "certificate_untrusted":
        return "The server's certificate is signed by an authority this computer does not trust. If your team has its own certificate authority, name its file in ca_file (settings.json) or QUIRE_CA_FILE.";
      case "certificate_expired":
        return "The server's certificate has expired: its administrator must renew it.";
      case "certificate_not_yet_valid":
        return "The server's certificate is not valid yet: check this computer's clock.";
      case "certificate_wrong_host":
        return "The server's certificate is for another name than the one in the address: use the name on the certificate.";
      case "certificate_revoked":
        return "The server's certificate has been revoked.";
      case "certificate_invalid":
        return "The server's certificate is not valid for a server.";
      case "tls_handshake":
        return "No secure connection could be made: this address may not speak HTTPS (try http://).";
      case "client_setup":
        return `The connection could not be set up: ${message}`;
      case "not_found":
        return "Not found on the server.";
      case "invalid_argument":
      case "invalid_op":
      case "invalid_content":
      case "invalid_merge":
        return `Refused: ${message}`;
      default:
        return message;
    }
  })();
  return { code, text, detail: message };
}
