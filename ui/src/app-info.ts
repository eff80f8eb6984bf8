// What crosses the IPC boundary for the shell. Hand-written for now; once the commands grow,
// these types are generated from the Rust ones (ts-rs) instead.

/** `app_info`'s result. */
export interface AppInfo {
  name: string;
  version: string;
}

/** Every command's error: the UI switches on `code`, never on `message`. */
export interface CommandError {
  code: string;
  message: string;
}

/** Checks `app_info`'s reply, so a changed command fails loudly instead of showing "undefined". */
export function parseAppInfo(value: unknown): AppInfo {
  if (typeof value === "object" && value !== null) {
    const { name, version } = value as Record<string, unknown>;
    if (typeof name === "string" && typeof version === "string") {
      return { name, version };
    }
  }
  throw new Error(`app_info returned an unexpected value: ${JSON.stringify(value)}`);
}

/** The version as the header shows it: `v0.1.0`. */
export function versionLabel(info: AppInfo): string {
  return `v${info.version}`;
}

export function isCommandError(value: unknown): value is CommandError {
  if (typeof value !== "object" || value === null) return false;
  const { code, message } = value as Record<string, unknown>;
  return typeof code === "string" && typeof message === "string";
}

/** A one-line description of anything a command can reject with. */
export function describeError(error: unknown): string {
  if (isCommandError(error)) return `${error.message} (${error.code})`;
  if (error instanceof Error) return error.message;
  return String(error);
}
