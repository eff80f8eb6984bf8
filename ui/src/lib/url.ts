// A source's key in a Note, computed as the server computes it (quire-model's `normalize_url`):
// https, lower-case host without `www.`, no fragment, no `utm_*` parameters, no trailing slash.
// The Sources tab uses it to say "This source is already attached" before anything is sent;
// the server stays the judge (its `add_source` returns the existing source for any spelling).

export type UrlProblem =
  | { kind: "empty" }
  | { kind: "scheme"; scheme: string }
  | { kind: "malformed" }
  | { kind: "no_host" };

export type UrlCheck = { ok: true; url: string } | { ok: false; problem: UrlProblem };

/** The sentence the Sources form shows under the address field. */
export function describeUrlProblem(problem: UrlProblem): string {
  switch (problem.kind) {
    case "empty":
      return "Type or paste a web address.";
    case "scheme":
      return `Only http and https links can be sources, not ${problem.scheme}:`;
    case "malformed":
      return "That is not a web address.";
    case "no_host":
      return "The address has no host.";
  }
}

/** `scheme:` at the start, unless what follows the colon is a port (`example.org:8080/x`). */
function hasScheme(raw: string): boolean {
  const colon = raw.indexOf(":");
  if (colon <= 0) return false;
  const scheme = raw.slice(0, colon);
  const rest = raw.slice(colon + 1);
  if (!/^[A-Za-z][A-Za-z0-9+.-]*$/.test(scheme)) return false;
  const beforePath = rest.split(/[/?#]/, 1)[0] ?? "";
  const looksLikePort = beforePath.length > 0 && /^[0-9]+$/.test(beforePath);
  return !looksLikePort;
}

function parseWebUrl(raw: string): { ok: true; url: URL } | { ok: false; problem: UrlProblem } {
  const candidate = hasScheme(raw) ? raw : `https://${raw}`;
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    // An unknown scheme such as `javascript:` parses; a broken address does not.
    return { ok: false, problem: { kind: "malformed" } };
  }
  const scheme = url.protocol.replace(/:$/, "");
  if (scheme !== "http" && scheme !== "https") {
    return { ok: false, problem: { kind: "scheme", scheme } };
  }
  if (url.hostname === "") return { ok: false, problem: { kind: "no_host" } };
  return { ok: true, url };
}

/** The Note-wide key of a web page (see the module comment). */
export function normalizeUrl(input: string): UrlCheck {
  const raw = input.trim();
  if (raw === "") return { ok: false, problem: { kind: "empty" } };
  const parsed = parseWebUrl(raw);
  if (!parsed.ok) return parsed;
  const { url } = parsed;
  const lower = url.hostname.toLowerCase();
  const host = lower.startsWith("www.") ? lower.slice(4) : lower;
  // `URL.port` is empty for the scheme's default port (80 for http, 443 for https).
  const port = url.port === "" ? "" : `:${url.port}`;
  const path = url.pathname.replace(/\/+$/, "");
  const kept = new URLSearchParams();
  for (const [key, value] of new URLSearchParams(url.search)) {
    if (!key.toLowerCase().startsWith("utm_")) kept.append(key, value);
  }
  const query = kept.toString();
  return { ok: true, url: `https://${host}${port}${path}${query === "" ? "" : `?${query}`}` };
}

/** The address as the person would open it: `https://` added when no scheme was typed. */
export function webUrl(input: string): UrlCheck {
  const raw = input.trim();
  if (raw === "") return { ok: false, problem: { kind: "empty" } };
  const parsed = parseWebUrl(raw);
  return parsed.ok ? { ok: true, url: parsed.url.toString() } : parsed;
}

/** The source already attached under any spelling of `input`, if there is one. */
export function findAttached<S extends { normalized_url: string }>(
  sources: readonly S[],
  input: string,
): S | undefined {
  const key = normalizeUrl(input);
  if (!key.ok) return undefined;
  return sources.find((s) => s.normalized_url === key.url);
}
