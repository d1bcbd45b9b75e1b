"""What sending a hand's picture costs the bot: discord.py's form against one body.

Prints numbers and asserts nothing. A minimal HTTP server (another process, on loopback,
answering ``{}`` at once) takes ``--requests`` PATCH uploads from one aiohttp session on
uvloop, as the bot sends them; the CPU time of this process per request is printed for
each way of building the body, the two interleaved ``--rounds`` times:

- ``form``: discord.py's own way (``handle_message_parameters``, then an aiohttp
  ``FormData`` of its parts, as its webhook adapter and ``HTTPClient.request`` build it):
  aiohttp writes it part by part, nine writes to the socket;
- ``one body``: cogs/discord_compat.py's ``one_body``, the same parts in one piece::

    python benchmarks/upload_body.py             # 9 KB (a hand's median), 3000 requests
    python benchmarks/upload_body.py --size 40000
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp
import discord
import uvloop
from discord.http import handle_message_parameters

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cogs.discord_compat import one_body  # noqa: E402

SERVER = """
import asyncio, sys, uvloop

class Answer(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport, self.buffer = transport, b""

    def data_received(self, data):
        self.buffer += data
        while (end := self.buffer.find(b"\\r\\n\\r\\n")) >= 0:
            length = next((int(line.split(b":")[1]) for line in self.buffer[:end].split(b"\\r\\n")
                           if line.lower().startswith(b"content-length:")), 0)
            if len(self.buffer) < end + 4 + length:
                return
            self.buffer = self.buffer[end + 4 + length:]
            self.transport.write(b"HTTP/1.1 200 OK\\r\\nContent-Type: application/json\\r\\n"
                                 b"Content-Length: 2\\r\\n\\r\\n{}")

async def main():
    server = await asyncio.get_running_loop().create_server(Answer, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()

uvloop.run(main())
"""


def body(way: str, picture: bytes) -> Any:
    files = [discord.File(io.BytesIO(picture), filename="hand-0123abcd.png",
                          description="Your hand: 1, 3, 3, 5, 6, lama")]
    with handle_message_parameters(content=None, embed=discord.Embed(description="x" * 300),
                                   files=files) as params:
        if way == "one body":
            return one_body(params)
        form = aiohttp.FormData(quote_fields=False)
        for part in params.multipart or ():
            form.add_field(**part)
        return form


async def cpu_per_request(url: str, way: str, picture: bytes, requests: int) -> float:
    async with aiohttp.ClientSession() as session:
        async def send() -> None:
            async with session.patch(url, data=body(way, picture),
                                     headers={"Authorization": "Bot x"}) as answer:
                await answer.read()

        for _ in range(200):  # (a warm connection and warm caches)
            await send()
        start = time.process_time()
        for _ in range(requests):
            await send()
        return (time.process_time() - start) / requests * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=9_000,
                        help="the picture's bytes (a hand's median is 8-10 KB)")
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    picture = os.urandom(args.size)
    server = subprocess.Popen([sys.executable, "-c", SERVER], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        url = f"http://127.0.0.1:{server.stdout.readline().strip()}/upload"
        figures: dict[str, list[float]] = {"form": [], "one body": []}
        for _ in range(args.rounds):
            for way, runs in figures.items():
                runs.append(uvloop.run(cpu_per_request(url, way, picture, args.requests)))
    finally:
        server.terminate()
        server.wait()
    print(f"picture {args.size} bytes, {args.requests} requests a run, CPU of the sender:")
    for way, runs in figures.items():
        print(f"  {way:<9} " + ", ".join(f"{r:.0f}" for r in runs) + " us a request")
    return 0


if __name__ == "__main__":
    sys.exit(main())
