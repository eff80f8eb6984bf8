"""One MCP tool call's round trip from a plain HTTP client: httpx posting JSON-RPC, as a
script or a hand-written agent would (a keep-alive connection, one request at a time).

python httpx_client.py URL TOKEN NOTE_ID CALLS WARMUP  ->  one line: client p50_ms p99_ms
"""

import json
import sys

import httpx

from stats import Timer, line

PROTOCOL = "2025-11-25"


def answer(resp: httpx.Response) -> dict:
    """The JSON-RPC answer, whether sent as JSON or as one server-sent event."""
    resp.raise_for_status()
    if resp.headers.get("content-type", "").startswith("text/event-stream"):
        for row in resp.text.splitlines():
            if row.startswith("data:") and row[5:].strip():
                return json.loads(row[5:])
        raise SystemExit(f"no data in the event stream: {resp.text!r}")
    return resp.json()


def main(url: str, token: str, note: str, calls: int, warmup: int) -> None:
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }
    with httpx.Client(headers=headers, timeout=30) as http:
        init = http.post(url, json={
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": PROTOCOL, "capabilities": {},
                       "clientInfo": {"name": "httpx-latency", "version": "1"}},
        })
        answer(init)
        session = init.headers.get("mcp-session-id")
        if session:
            http.headers["Mcp-Session-Id"] = session
        http.headers["Mcp-Protocol-Version"] = PROTOCOL
        http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        timer = Timer(warmup)
        for i in range(warmup + calls):
            call = {
                "jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                "params": {"name": "read_note_tab",
                           "arguments": {"note_id": note, "tab_id": "markdown"}},
            }
            with timer.call(i):
                got = answer(http.post(url, json=call))
            if "error" in got or got["result"].get("isError"):
                raise SystemExit(f"read_note_tab failed: {got}")
    print(line("httpx", timer.samples))


if __name__ == "__main__":
    url, token, note, calls, warmup = sys.argv[1:6]
    main(url, token, note, int(calls), int(warmup))
