"""A picture's PNG from pieces compressed once: a grid of tiles is never compressed again.

A hand or a dice rack is tiles in cells on a clear background, so each of its scanlines is
the same few pieces side by side: a filter byte, then each cell's row with the gap (or
nothing) after it, then, in a row shorter than the picture (a hand's last, a chip strip),
the clear margin as a run of its own. Each piece's deflate code is written once per cell,
tail and row (and per picture width, for the bytes of its distances), and a picture's IDAT
is those pieces joined in scanline order by ``bytes.join``, its Adler-32 summed from
numbers kept per cell instead of read from the pixels. A cell is cut with a gap or nothing
after it, as the start-up's warm-up cuts it, and never with a margin: cut with every width
of margin it met, 1-14 ms a cut, at 200 games the cells kept falling out of the caches
and being cut again (docs/performance.md, sixth round).

A piece copies from where its bytes were already (:data:`SHIFTS`: the byte before, the row
above straight or a pixel or two aside, two rows above; the longest copy, greedily) or
writes literals with ``bytes.translate``; a cell the same as the one to its left (a hand's
pair) is one copy of that cell's row. Pieces join as bytes because every symbol of the
code they use is a whole number of bytes (bot/pictures/deflate.py). The pictures are
about 1.3 times zlib level 1's size, for about a fifth of its CPU
(``benchmarks/pictures.py``; docs/performance.md, "Pictures from pieces").

``compose.palette_png`` (the tiles pasted, zlib over the scanlines) is the straightforward
encoder: pictures from here decode to exactly its pixels
(tests/pictures/test_picture_pieces.py), and it writes those pieces cannot (a colour the
code lacks, a picture wider than :data:`MAX_STRIDE`).
May import: nothing of bot/ but bot.pictures.deflate (and numpy, to cut a cell).
"""

from __future__ import annotations

import struct
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate, chain
from typing import TYPE_CHECKING

from bot.pictures.deflate import (
    MAX_MATCH,
    Code,
    code_of,
    distance_bytes,
    distance_lengths,
    header,
)

if TYPE_CHECKING:  # numpy (matplotlib's own) is imported at the first cell cut in pieces
    import numpy as np

MOD = 65521  # Adler-32's modulus
LEFT_CODES = (10, 11, 12, 13)
LEFT = range(33, 129)
"""A copy from the cell to the left when it is the same tile: its distance, the cells'
pitch (a chip's cell with its gap is 48 bytes, a framed card's 100), and their codes."""
MAX_STRIDE = 2046
"""The longest scanline (in bytes) whose pieces may copy from two rows above (distances up
to 4,096, each with a code of whole bytes); a wider picture is compressed by zlib. Eight
framed cards make 793."""


@dataclass(frozen=True, eq=False)
class Cell:
    """A tile centred in its grid cell: ``height`` rows of ``width`` palette indices.
    Compared by identity: compose keeps one per tile and cell size."""

    width: int
    height: int
    pixels: bytes


@dataclass(frozen=True)
class Row:
    """Cells side by side, ``gap`` clear pixels apart, from the picture's left edge; clear
    after the last to the picture's width."""

    cells: tuple[Cell, ...]
    gap: int


@dataclass(frozen=True)
class Blank:
    """``rows`` clear scanlines."""

    rows: int


Band = Row | Blank


SHIFTS = ((0, -1), (1, 0), (1, -1), (1, 1), (1, -2), (1, 2), (2, 0))
"""Where a copy may come from, as (rows up, columns right) of the byte it starts at: the
byte before (a run), the row above straight or up to 2 columns aside (anti-aliased edges
move sideways a pixel or two a row), two rows above. (Farther aside and 2-4 bytes back
in the row were tried: 1-2% smaller pictures, a third more time to cut each cell.)"""


ROW_END = 255


@dataclass(frozen=True)
class _Segment:
    """A cell's rows with the clear after each, compactly: its code, every row's in turn,
    in pieces that end where a copy's distance goes (which depends on the picture's
    width) or where a row ends; and sums of its bytes for the Adler-32."""

    code: bytes
    ends: array  # where each piece of ``code`` ends
    after: bytes  # after each piece: the index in SHIFTS of a distance, or ROW_END
    total: int  # Σ of every byte
    by_row: int  # Σ row index × the row's byte sum
    by_column: int  # Σ column × byte


def _longest(pixels: np.ndarray) -> tuple[list[list[int]], list[list[int]]]:
    """For every byte, the longest copy (capped at 258) from one of :data:`SHIFTS` that
    reproduces the bytes from it, and which shift; the first shift of the longest wins."""
    import numpy as np

    h, n = pixels.shape
    columns = np.arange(n)
    found = np.zeros((len(SHIFTS), h, n), dtype=np.int32)
    for k, (dy, dx) in enumerate(SHIFTS):
        same = np.zeros((h, n), dtype=bool)
        lo, hi = max(0, -dx), min(n, n - dx)  # columns whose source is inside the row
        if dy < h and lo < hi:
            same[dy:, lo:hi] = pixels[dy:, lo:hi] == pixels[:h - dy, lo + dx:hi + dx]
        stop = np.where(same, n, columns)  # the first mismatch from each byte on
        stop = np.minimum.accumulate(stop[:, ::-1], axis=1)[:, ::-1]
        if dx > 0:  # a copy may not read past the row above's end
            stop = np.minimum(stop, n - dx)
        found[k] = np.minimum(stop - columns, MAX_MATCH)
    best = found.argmax(axis=0)
    return np.take_along_axis(found, best[None], axis=0)[0].tolist(), best.tolist()


def _row_code(code: Code, row: bytes, lengths: list[int], shifts: list[int]
              ) -> tuple[bytes | int, ...]:
    """One row's code, greedily: the longest copy from where it starts, unless the next byte
    starts a longer one; else a literal."""
    parts: list[bytes | int] = []
    out = bytearray()
    literal_from = i = 0
    n = len(row)
    while i < n:
        length = lengths[i]
        if length < 3 or (i + 1 < n and lengths[i + 1] > length + 1):
            i += 1
            continue
        out += row[literal_from:i].translate(code.literal)
        out += code.length[length]
        parts += (bytes(out), shifts[i])
        out = bytearray()
        i += length
        literal_from = i
    out += row[literal_from:].translate(code.literal)
    parts.append(bytes(out))
    return tuple(parts)


@lru_cache(maxsize=512)
def _segment(code: Code, cell: Cell, tail: int) -> _Segment | None:
    """``cell`` with ``tail`` clear pixels after each row; None if it has a colour the code
    lacks."""
    import numpy as np

    if cell.pixels.translate(None, bytes(sorted(code.literals))):
        return None
    pixels = np.full((cell.height, cell.width + tail), code.clear, dtype=np.uint8)
    pixels[:, :cell.width] = np.frombuffer(cell.pixels, dtype=np.uint8).reshape(
        cell.height, cell.width)
    lengths, shifts = _longest(pixels)
    rows = [row.tobytes() for row in pixels]
    sums = pixels.sum(axis=1, dtype=np.int64)
    pieces: list[bytes] = []
    after = bytearray()
    for r, row in enumerate(rows):
        parts = _row_code(code, row, lengths[r], shifts[r])
        pieces += parts[::2]
        after += bytes(parts[1::2]) + bytes([ROW_END])
    ends = array("I", accumulate(map(len, pieces)))
    return _Segment(code=b"".join(pieces), ends=ends, after=bytes(after),
                    total=int(sums.sum()), by_row=int((sums * np.arange(len(rows))).sum()),
                    by_column=int((pixels.astype(np.int64) * np.arange(pixels.shape[1])).sum()))


def prepare(code: Code, cell: Cell, tail: int) -> None:
    """Cut ``cell`` with ``tail`` clear pixels after each row into pieces now."""
    _segment(code, cell, tail)


@lru_cache(maxsize=2048)  # (every rule set's hands: about 1,100; a few MB)
def _rows(code: Code, cell: Cell, tail: int, stride: int) -> tuple[bytes, ...] | None:
    """The segment's code row by row, for scanlines of ``stride`` bytes."""
    segment = _segment(code, cell, tail)
    if segment is None:
        return None
    far = [_far(stride, _distance(shift, stride)) for shift in SHIFTS]
    once: dict[bytes, bytes] = {}  # equal rows as one object (a card's plain rows are many)
    rows: list[bytes] = []
    row = bytearray()
    start = 0
    for end, then in zip(segment.ends, segment.after, strict=True):
        row += segment.code[start:end]
        start = end
        if then == ROW_END:
            done = bytes(row)
            rows.append(once.setdefault(done, done))
            row.clear()
        else:
            row += far[then]
    return tuple(rows)


def _distance(shift: tuple[int, int], stride: int) -> int:
    """The distance of a copy from ``shift`` (rows up, columns right); at least 1, for the
    clear pictures narrower than a shift, which have no copies from above."""
    dy, dx = shift
    return max(1, dy * stride - dx)


@lru_cache(maxsize=64)
def _distances(stride: int) -> tuple[int, ...]:
    """The distance code for scanlines of ``stride`` bytes: the row above's distance the
    shortest, then two rows above's, then the rest of :data:`SHIFTS` and
    :data:`LEFT_CODES`."""
    order = sorted(SHIFTS, key=lambda s: (s[0] != 1, s[0] != 2, abs(s[1])))
    wanted = [*(code_of(_distance(s, stride)) for s in order), *LEFT_CODES]
    return tuple(distance_lengths(list(dict.fromkeys(wanted))))


@lru_cache(maxsize=64)
def _header(code: Code, stride: int) -> bytes:
    return header(code.lengths, _distances(stride))


@lru_cache(maxsize=1024)
def _far(stride: int, distance: int) -> bytes:
    """Distance ``distance``'s code and extra bits for scanlines of ``stride`` bytes (whole
    bytes: a distance of :data:`SHIFTS` or :data:`LEFT_CODES`)."""
    return distance_bytes(_distances(stride), distance)


@lru_cache(maxsize=512)
def _clear_run(code: Code, stride: int, count: int) -> bytes:
    """``count`` clear bytes: one, then repeats of it."""
    if not count:
        return b""
    out = bytearray([code.literal[code.clear]])
    left = count - 1
    while left >= 3:
        take = min(left, MAX_MATCH) if left - MAX_MATCH >= 3 or left <= MAX_MATCH else left - 3
        out += code.length[take] + _far(stride, 1)
        left -= take
    out += bytes([code.literal[code.clear]]) * left
    return bytes(out)


@lru_cache(maxsize=1024)
def _twin(code: Code, cell: Cell, gap: int, tail: int, stride: int) -> tuple[bytes, ...]:
    """The rows of a cell the same as the one to its left (a hand's pairs): each a copy of
    the cell to the left's row, then its clear tail."""
    pitch = cell.width + gap
    if tail == gap:
        return (code.length[pitch] + _far(stride, pitch),) * cell.height
    row = code.length[cell.width] + _far(stride, pitch) + _clear_run(code, stride, tail)
    return (row,) * cell.height


@lru_cache(maxsize=64)
def _blank(code: Code, width: int) -> bytes:
    """One clear scanline: its filter byte, a clear pixel, then repeats of it."""
    out = bytearray(code.literal[0:1] + bytes([code.literal[code.clear]]))
    left = width - 1
    repeat = _far(width + 1, 1)
    while left >= 3:
        take = min(left, MAX_MATCH) if left - MAX_MATCH >= 3 or left <= MAX_MATCH else left - 3
        out += code.length[take] + repeat
        left -= take
    out += bytes([code.literal[code.clear]]) * left
    return bytes(out)


def png_idat(code: Code, width: int, bands: Sequence[Band]) -> bytes | None:
    """The zlib stream of a picture ``width`` pixels wide made of ``bands`` top to bottom;
    None where this code cannot write it (zlib then does)."""
    stride = width + 1
    up = stride <= MAX_STRIDE
    parts = [_header(code, stride) if up else b""]
    filter_byte = code.literal[0:1]
    total = weighted = base = 0  # Σ bytes, Σ position × byte, the band's first byte
    for band in bands:
        if isinstance(band, Blank):
            parts.append(_blank(code, width) * band.rows)
            for _ in range(band.rows):
                total += code.clear * width
                weighted += code.clear * (width * (base + 1) + width * (width - 1) // 2)
                base += stride
            continue
        cells = band.cells
        height = cells[0].height
        columns: list[Sequence[bytes]] = [(filter_byte,) * height]
        x = 1
        for k, cell in enumerate(cells):
            # the last cell's tail: a gap if the row's margin has room for one, else nothing
            # (the warm-up cuts cells with these two only); the rest of the margin is the
            # clear run below (a one-card hand is 4 px narrower than its two chips' strip)
            tail = band.gap if k < len(cells) - 1 or stride - x - cell.width >= band.gap else 0
            segment = _segment(code, cell, tail)
            rows = _rows(code, cell, tail, stride)
            if segment is None or rows is None or not up:
                return None
            if k and cell is cells[k - 1] and cell.width + band.gap in LEFT:
                rows = _twin(code, cell, band.gap, tail, stride)
            columns.append(rows)
            total += segment.total
            weighted += (base + x) * segment.total + stride * segment.by_row + segment.by_column
            x += cell.width + tail
        margin = stride - x  # the clear right of a short row (a hand's last, the chips)
        if margin > 0:
            columns.append((_clear_run(code, stride, margin),) * height)
            total += code.clear * margin * height
            weighted += code.clear * (height * margin * (base + x)
                                      + margin * stride * (height * (height - 1) // 2)
                                      + height * (margin * (margin - 1) // 2))
        parts.append(b"".join(chain.from_iterable(zip(*columns, strict=True))))
        base += height * stride
    parts.append(code.end)
    a = (1 + total) % MOD
    b = (base + base * total - weighted) % MOD
    return b"".join((b"\x78\x01", *parts, struct.pack(">I", b << 16 | a)))
