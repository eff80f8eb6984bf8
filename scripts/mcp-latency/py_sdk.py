"""One MCP tool call's round trip from the official Python SDK (`pip install mcp`).

python py_sdk.py URL TOKEN NOTE_ID CALLS WARMUP  ->  one line: client p50_ms p99_ms
"""

import asyncio
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from stats import Timer, line


async def main(url: str, token: str, note: str, calls: int, warmup: int) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    async with create_mcp_http_client(headers=headers) as http:
        async with streamable_http_client(url, http_client=http, terminate_on_close=False) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                args = {"note_id": note, "tab_id": "markdown"}
                timer = Timer(warmup)
                for i in range(warmup + calls):
                    with timer.call(i):
                        result = await session.call_tool("read_note_tab", args)
                    if result.is_error:
                        raise SystemExit(f"read_note_tab failed: {result}")
    print(line("python-sdk", timer.samples))


if __name__ == "__main__":
    url, token, note, calls, warmup = sys.argv[1:6]
    asyncio.run(main(url, token, note, int(calls), int(warmup)))
