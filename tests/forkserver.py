"""Start ``python -m bot`` processes for tests without paying for the imports each time.

A real start of ``python -m bot`` spends ~0.75 s of CPU importing discord.py, aiohttp,
pydantic and the project before doing anything; the suite starts dozens. A fork server
(one per pytest worker, started on first use) imports them once; each :func:`start` forks
it into a **real, separate process** that then runs ``python -m <module>`` exactly as the
interpreter would (``runpy``, ``__main__``, its own environment, working folder, standard
streams and exit code), so a test can still SIGKILL it, restart it on the same database
file, and read its exit code and output. What differs from ``subprocess``: the child's
imports ran before its environment was set, so a module that reads the environment at
import is run again in the child (``RELOADED``), and every child shares the server's hash
seed.

The returned :class:`Process` has the parts of ``asyncio.subprocess.Process`` the tests
use. Closing its connection (the test's event loop ending without waiting) kills the child;
the server exits when its pytest worker does (its standard input closes).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import ctypes
import gc
import importlib
import io
import json
import os
import runpy
import selectors
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import traceback
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parents[1]
PREIMPORTED = ("bot.__main__", "bot.common.faults", "bot.sandbox", "bot.cluster", "cogs",
               "game.__main__", "game.cli.play", "game.cli.simulate", "matplotlib.figure",
               "matplotlib.ticker", "matplotlib.backends.backend_agg")
"""What the server imports once: what ``python -m bot`` (and ``bot sandbox``, ``python -m
game``) import to start, and the modules its extensions (``cogs.EXTENSIONS``) import, with
the charts' matplotlib, which ``python -m bot`` loads as it starts (``Wiring.warm``: ~0.4 s of
CPU a start otherwise); not what a start imports later (asyncpg). It also reads the message
catalogs once (``bot.words.i18n.translator`` keeps them): a start parses them again otherwise
(0.3 s)."""
RELOADED = ("bot.common.faults",)
"""Modules that read the environment at import (``LAMA_FAULT``): run again in each child."""
PIPE, DEVNULL = asyncio.subprocess.PIPE, asyncio.subprocess.DEVNULL
FILE_OVERRIDES = (1, 2, 3)
"""CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER (linux/capability.h): what lets root
write a read-only file or folder; ``drop=FILE_OVERRIDES`` starts a child without them, as
``setpriv --bounding-set=-dac_override,-dac_read_search,-fowner`` would exec it."""
_HEADER = struct.Struct("!I")


class _Signals:
    """Signals to a forked child not yet seen to exit (both kinds of process below)."""

    pid: int
    returncode: int | None

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, sig)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class Process(_Signals):
    """A forked child: ``pid``, ``returncode``, ``wait()``, signals, piped streams."""

    def __init__(self, pid: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 stdout: asyncio.StreamReader | None, stderr: asyncio.StreamReader | None):
        self.pid, self.returncode = pid, None
        self.stdout, self.stderr = stdout, stderr
        self._reader, self._writer = reader, writer
        self._exit: asyncio.Future[int] | None = None

    async def _read_exit(self) -> int:
        line = await self._reader.readline()
        self._writer.close()
        if not line:
            raise RuntimeError("the fork server stopped before its child")
        self.returncode = int(line)
        return self.returncode

    async def wait(self) -> int:
        if self._exit is None:
            self._exit = asyncio.ensure_future(self._read_exit())
        return await asyncio.shield(self._exit)

    async def communicate(self) -> tuple[bytes, bytes]:
        out = self.stdout.read() if self.stdout else asyncio.sleep(0, b"")
        err = self.stderr.read() if self.stderr else asyncio.sleep(0, b"")
        outs = await asyncio.gather(out, err)
        await self.wait()
        return outs[0], outs[1]


class _Server:
    """The fork server's process, seen from a pytest worker."""

    _shared: _Server | None = None

    def __init__(self) -> None:
        self.path = os.path.join(tempfile.mkdtemp(prefix="lama-fork-"), "sock")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.forkserver", self.path], cwd=ROOT, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self.process.stdout is not None
        ready = self.process.stdout.readline()
        assert ready == b"ready\n", f"the fork server did not start: {ready!r}"
        atexit.register(self.stop)

    def stop(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()  # its children are killed, then it exits
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(10)

    @classmethod
    def shared(cls) -> _Server:
        if cls._shared is None or cls._shared.process.poll() is not None:
            cls._shared = cls()
        return cls._shared


Stream = int | IO[Any] | None


def _request(args: tuple[str, ...], cwd: str | Path | None, env: dict[str, str] | None,
             streams: tuple[Stream, Stream, Stream], drop: tuple[int, ...] = ()
             ) -> tuple[socket.socket, list[int | None]]:
    """Ask the server for ``python -m ...`` with these standard streams (``None``: this
    process's own; ``PIPE``: a pipe whose other end is returned, per stream, else None;
    ``DEVNULL``; a file or descriptor), without the capabilities numbered in ``drop``. The
    connection, once it read the child's pid line, later carries its exit code."""
    assert args[0] == "-m", "the fork server runs modules: -m name ..."
    given: list[int] = []  # descriptors the child gets
    ours: list[int | None] = []  # a pipe's end we keep, per stream
    opened: list[int] = []  # to close here once the child has its copies
    for target, stream in enumerate(streams):
        end = None
        if stream is None:
            fd = target
        elif stream == DEVNULL:
            fd = os.open(os.devnull, os.O_RDWR)
            opened.append(fd)
        elif stream == PIPE:
            read, write = os.pipe()
            fd, end = (read, write) if target == 0 else (write, read)
            opened.append(fd)
        else:
            fd = stream if isinstance(stream, int) else stream.fileno()
        given.append(fd)
        ours.append(end)
    request = json.dumps({"argv": list(args[1:]), "cwd": str(cwd or os.getcwd()),
                          "env": dict(os.environ if env is None else env),
                          "drop": list(drop)}).encode()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(_Server.shared().path)
        socket.send_fds(sock, [_HEADER.pack(len(request)) + request], given)
    finally:
        for fd in opened:
            os.close(fd)
    return sock, ours


async def _reader_of(fd: int | None) -> asyncio.StreamReader | None:
    if fd is None:
        return None
    reader = asyncio.StreamReader()
    loop = asyncio.get_running_loop()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader),
                                 os.fdopen(fd, "rb", 0))
    return reader


async def start(*args: str, cwd: str | Path, env: dict[str, str],
                stdin: Stream = DEVNULL, stdout: Stream = None, stderr: Stream = None,
                drop: tuple[int, ...] = ()) -> Process:
    """``python -m module ...`` (``args`` = ``("-m", "bot", ...)``) forked from the server,
    for a test's event loop (``asyncio.create_subprocess_exec``'s parts); ``drop``:
    capabilities the child runs without (:data:`FILE_OVERRIDES`)."""
    assert stdin != PIPE, "not needed yet"
    sock, (_, out, err) = _request(args, cwd, env, (stdin, stdout, stderr), drop)
    reader, writer = await asyncio.open_unix_connection(sock=sock)
    pid = int(await reader.readline())
    return Process(pid, reader, writer, await _reader_of(out), await _reader_of(err))


class Popen(_Signals):
    """A forked child for synchronous tests: ``subprocess.Popen``'s parts they use."""

    def __init__(self, *args: str, cwd: str | Path | None = None,
                 env: dict[str, str] | None = None, stdin: Stream = None,
                 stdout: Stream = None, stderr: Stream = None) -> None:
        self._sock, ends = _request(args, cwd, env, (stdin, stdout, stderr))
        self._buffer = b""
        self.returncode: int | None = None
        self.pid = int(self._line(None))
        self.stdin = None if ends[0] is None else open(ends[0], "wb")  # noqa: SIM115
        self.stdout, self.stderr = (None if fd is None else open(fd, "rb")  # noqa: SIM115
                                    for fd in ends[1:])

    def _line(self, timeout: float | None) -> bytes:
        self._sock.settimeout(timeout)
        while b"\n" not in self._buffer:
            chunk = self._sock.recv(64)
            if not chunk:
                raise RuntimeError("the fork server stopped before its child")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            try:
                self.returncode = int(self._line(timeout))
            except (TimeoutError, BlockingIOError):  # (a timeout of 0: not blocking)
                raise subprocess.TimeoutExpired(["-m"], timeout or 0) from None
            self._sock.close()
        return self.returncode

    def poll(self) -> int | None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            return self.wait(0)
        return None

    def communicate(self, input: bytes | None = None, timeout: float | None = None
                    ) -> tuple[bytes | None, bytes | None]:
        """Write ``input`` (then close standard input), read both outputs to their end."""
        read: dict[int, bytes] = {}
        readers = [threading.Thread(target=lambda i=i, f=f: read.__setitem__(i, f.read()))
                   for i, f in enumerate((self.stdout, self.stderr)) if f is not None]
        for thread in readers:
            thread.start()
        if self.stdin is not None:
            with contextlib.suppress(BrokenPipeError):
                if input:
                    self.stdin.write(input)
                self.stdin.close()
        for thread in readers:
            thread.join(timeout)
        self.wait(timeout)
        return (read.get(0) if self.stdout else None), (read.get(1) if self.stderr else None)


def run(*args: str, cwd: str | Path | None = None, env: dict[str, str] | None = None,
        input: bytes | str | None = None, text: bool = False, timeout: float | None = None,
        stdin: Stream = None) -> subprocess.CompletedProcess[Any]:
    """``subprocess.run(..., capture_output=True)`` for ``python -m module ...``."""
    data = input.encode() if isinstance(input, str) else input
    child = Popen(*args, cwd=cwd, env=env, stdin=PIPE if input is not None else stdin,
                  stdout=PIPE, stderr=PIPE)
    try:
        out, err = child.communicate(data, timeout)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
        raise
    if text:
        return subprocess.CompletedProcess(args, child.wait(), (out or b"").decode(),
                                           (err or b"").decode())
    return subprocess.CompletedProcess(args, child.wait(), out, err)


# ---- the server's side ----------------------------------------------------------------

def _receive(conn: socket.socket) -> tuple[dict[str, Any], list[int]]:
    conn.settimeout(30)
    data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
    (size,) = _HEADER.unpack_from(data)
    while len(data) < _HEADER.size + size:
        chunk = conn.recv(1 << 16)
        assert chunk, "the request was cut short"
        data += chunk
    return json.loads(data[_HEADER.size:]), fds


def _drop_capabilities(numbers: list[int]) -> None:
    """Give up these capabilities for good, as ``setpriv --bounding-set=-...`` then exec
    leaves a root process: out of the bounding set, and out of the effective, permitted and
    inheritable sets (capget/capset, version 3: two 32-bit words per set)."""
    libc = ctypes.CDLL(None, use_errno=True)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()  # (effective, permitted, inheritable) for caps 0-31, 32-63
    if libc.capget(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capget")
    for number in numbers:
        if libc.prctl(24, number, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), f"PR_CAPBSET_DROP {number}")
        word, bit = divmod(number, 32)
        for index in range(3 * word, 3 * word + 3):
            data[index] &= ~(1 << bit)
    if libc.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capset")


def _child(request: dict[str, Any], fds: list[int]) -> None:
    """In the forked child: become ``python -m <argv>``; never returns."""
    code, interrupted = 1, False
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in map(int, os.listdir("/proc/self/fd")):
            if fd > 2:
                with contextlib.suppress(OSError):
                    os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        if request["drop"]:
            _drop_capabilities(request["drop"])
        sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)),
                                     line_buffering=os.isatty(0))  # as the interpreter opens
        sys.stdout = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)),
                                      line_buffering=os.isatty(1))  # them at start-up
        sys.stderr = io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
                                      line_buffering=True, errors="backslashreplace")
        sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr
        sys.path[0] = os.getcwd()  # as ``python -m`` sets it
        for name in RELOADED:
            importlib.reload(sys.modules[name])
        module = sys.modules.get(request["argv"][0])
        if module is not None and not hasattr(module, "__path__"):  # a module, not a package:
            del sys.modules[module.__name__]  # runpy runs it afresh as __main__, unwarned
        sys.argv = ["-m", *request["argv"][1:]]
        try:
            runpy.run_module(request["argv"][0], run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as exc:
            if exc.code is None or isinstance(exc.code, int):
                code = exc.code or 0
            else:
                sys.stderr.write(f"{exc.code}\n")
        except KeyboardInterrupt:
            interrupted = True  # the interpreter then ends itself by SIGINT
        except BaseException:
            traceback.print_exc()
        threading._shutdown()  # type: ignore[attr-defined]  # as the interpreter's exit does
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        if interrupted:
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
    finally:
        os._exit(code)


def serve(path: str) -> None:
    """Import once, then fork a child per request; report each child's exit to its caller."""
    for name in PREIMPORTED:
        importlib.import_module(name)
        if name.endswith(".__main__"):  # what it imports stays; a child runs it as __main__
            del sys.modules[name]
    from bot.words import i18n
    from cogs import EXTENSIONS

    for name in EXTENSIONS:
        importlib.import_module(name)
    for language in i18n.available():
        i18n.translator(language)
    assert threading.active_count() == 1, "a thread would not survive the fork"
    gc.freeze()  # the imports stay out of each child's collections (and its copied pages)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C in pytest: the worker stops us
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "accept")
    selector.register(wake_read, selectors.EVENT_READ, "reap")
    selector.register(sys.stdin.fileno(), selectors.EVENT_READ, "worker")
    callers: dict[int, socket.socket] = {}  # child pid -> its caller's connection
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        for key, _ in selector.select():
            if key.data == "accept":
                conn, _ = listener.accept()
                request, fds = _receive(conn)
                pid = os.fork()
                if pid == 0:
                    _child(request, fds)
                for fd in fds:
                    os.close(fd)
                conn.sendall(f"{pid}\n".encode())
                callers[pid] = conn
                selector.register(conn, selectors.EVENT_READ, pid)
            elif key.data == "reap":
                os.read(wake_read, 4096)
                while callers:
                    pid, status = os.waitpid(-1, os.WNOHANG)
                    if pid == 0:
                        break
                    conn = callers.pop(pid)
                    with contextlib.suppress(KeyError):  # still registered unless it hung up
                        selector.unregister(conn)
                    with contextlib.suppress(OSError):
                        conn.sendall(f"{os.waitstatus_to_exitcode(status)}\n".encode())
                    conn.close()
            elif key.data == "worker":  # the pytest worker is gone: so are its children
                for pid in callers:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                return
            else:  # a caller hung up before its child ended: end the child
                with contextlib.suppress(ProcessLookupError):
                    os.kill(key.data, signal.SIGKILL)
                selector.unregister(key.fileobj)


if __name__ == "__main__":
    serve(sys.argv[1])
