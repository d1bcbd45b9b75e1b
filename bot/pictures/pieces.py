"""A picture's PNG from pieces compressed once: a grid of tiles is never compressed again.

A hand or a dice rack is tiles in cells on a clear background, so each of its scanlines is
the same few pieces side by side: a filter byte, a cell's row (with the gap or the clear
margin after it), and so on across. This module writes each piece's deflate code once
(per cell, per row) and a picture's IDAT is those pieces joined in scanline order, with the
Adler-32 of the scanlines summed from numbers kept per cell, not from the pixels.

Pieces join into one stream because every one is a whole number of bytes in a single
dynamic-Huffman block whose code makes every symbol byte-aligned: each literal (a palette
index the tiles use) has an 8-bit code, and each match's length code, extra bits, distance
code and distance bits add up to a multiple of 8 (:func:`_lengths`). A piece then copies
from the row above in its cell (distance: the scanline's length, so the bytes of that
distance are filled in per picture width) or repeats the byte before it (distance 1);
everything else is literals, which ``bytes.translate`` writes. The block's header is the
same for every picture, padded to a byte by empty fixed blocks before it.

``compose.palette_png`` (zlib over the pasted image) is the straightforward encoder; the
pictures here decode to exactly its pixels (tests/pictures/test_picture_pieces.py).
May import: nothing of bot/ (the standard library, and numpy to cut a cell into pieces;
compose gives it the pixels).
"""

from __future__ import annotations

import struct
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate, chain
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy (matplotlib's own) is imported at the first cell cut in pieces
    import numpy as np

MOD = 65521  # Adler-32's modulus
MAX_MATCH = 258

# RFC 1951 §3.2.5: length codes 257… and distance codes 0…, base values and extra bits.
LENGTH_BASE = (3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83,
               99, 115, 131, 163, 195, 227, 258)
LENGTH_EXTRA = (0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5,
                5, 0)
DISTANCE_BASE = (1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769,
                 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577)
DISTANCE_EXTRA = (0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11,
                  12, 12, 13, 13)
CODE_LENGTH_ORDER = (16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15)
EOB = 256
LEFT_CODES = (10, 11, 12, 13)
"""Distance codes of a copy from the cell to the left (33-128 bytes back: a chip's cell
with its gap is 48, a framed card's 100), when it is the same tile."""
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


# ---- the code ------------------------------------------------------------------------------


def _reverse(code: int, length: int) -> int:
    """A Huffman code as deflate stores it: its bits from the last (RFC 1951 §3.1.1)."""
    return int(format(code, f"0{length}b")[::-1], 2) if length else 0


def _canonical(lengths: Sequence[int]) -> list[int]:
    """RFC 1951 §3.2.2: the codes of a canonical Huffman code, from its code lengths."""
    counts = [0] * 16
    for length in lengths:
        counts[length] += 1
    counts[0] = 0
    code, following = 0, [0] * 16
    for bits in range(1, 16):
        code = (code + counts[bits - 1]) << 1
        following[bits] = code
    codes = []
    for length in lengths:
        codes.append(following[length] if length else 0)
        following[length] += bool(length)
    return codes


class _Bits:
    """Bits in deflate's order: each value's lowest bit first."""

    def __init__(self) -> None:
        self.value = 0
        self.count = 0

    def put(self, value: int, bits: int) -> None:
        self.value |= value << self.count
        self.count += bits

    def bytes(self) -> bytes:
        assert self.count % 8 == 0
        return self.value.to_bytes(self.count // 8, "little")


def _aligned(extra: int) -> tuple[int, ...]:
    """Code lengths (1–15) that with ``extra`` extra bits make whole bytes, shortest first."""
    return tuple(n for n in range(1, 16) if (n + extra) % 8 == 0)


def _fill(lengths: list[int], free: Sequence[int]) -> bool:
    """Give the symbols of ``free`` lengths that complete the code (a Kraft sum of exactly
    one, as inflaters require); False if they cannot."""
    left = (1 << 15) - sum(1 << (15 - n) for n in lengths if n)
    if left < 0:
        return False
    spare = iter(free)
    for bit in range(15):
        if left >> bit & 1:
            symbol = next(spare, None)
            if symbol is None:
                return False
            lengths[symbol] = 15 - bit
    return True


def _lengths(literals: frozenset[int]) -> list[int] | None:
    """Code lengths of the literal/length code, every symbol a picture uses byte-aligned
    with its extra bits; None if the literals leave no room (more than about 225 of them)."""
    lit = [0] * 286
    for symbol in (*literals, EOB):
        lit[symbol] = 8
    # length codes: the shortest aligned length for the first ones in this order, the
    # longest for the rest; 83-98 (a card's row with its gap) and 11-18 first, then the rest
    upgrades = (278, 265, 266, 267, 268, 269, 270, 271, 272, 277, 279, 273, 274, 275, 276)
    for index, extra in enumerate(LENGTH_EXTRA):
        lit[257 + index] = _aligned(extra)[-1]
    for symbol in upgrades:
        shortest = _aligned(LENGTH_EXTRA[symbol - 257])[0]
        was, lit[symbol] = lit[symbol], shortest
        if sum(1 << (15 - n) for n in lit if n) > 1 << 15:
            lit[symbol] = was
    if not _fill(lit, [s for s in range(256) if s not in literals]):
        return None
    return lit


def _code_of(distance: int) -> int:
    return max(c for c in range(30) if DISTANCE_BASE[c] <= distance)


def _distance(shift: tuple[int, int], stride: int) -> int:
    """The distance of a copy from ``shift`` (rows up, columns right); at least 1, for the
    clear pictures narrower than a shift, which have no copies from above."""
    dy, dx = shift
    return max(1, dy * stride - dx)


def _distance_lengths(stride: int) -> list[int]:
    """Code lengths of the distance code for scanlines of ``stride`` bytes: each distance of
    :data:`SHIFTS` byte-aligned with its extra bits, the row above's the shortest that fits,
    then two rows above's, then the rest."""
    order = sorted(SHIFTS, key=lambda s: (s[0] != 1, s[0] != 2, abs(s[1])))
    wanted = list(dict.fromkeys([*(_code_of(_distance(s, stride)) for s in order),
                                 *LEFT_CODES]))
    dist = [0] * 30
    for code in wanted:
        dist[code] = _aligned(DISTANCE_EXTRA[code])[-1]
    for code in wanted:
        for option in _aligned(DISTANCE_EXTRA[code]):
            was, dist[code] = dist[code], option
            if sum(1 << (15 - n) for n in dist if n) <= 1 << 15:
                break
            dist[code] = was
    filled = _fill(dist, [c for c in range(30) if not dist[c]])
    assert filled  # (at most a dozen codes wanted: eighteen or more free)
    return dist


def _code_length_symbols(lengths: Sequence[int], repeats: bool) -> list[tuple[int, int, int]]:
    """RFC 1951 §3.2.7: code lengths as (symbol, extra value, extra bits): runs of zeros
    as 17 or 18, and with ``repeats`` runs of another length as that length then 16."""
    out: list[tuple[int, int, int]] = []
    i = 0
    while i < len(lengths):
        n = lengths[i]
        run = 1
        while i + run < len(lengths) and lengths[i + run] == n:
            run += 1
        if n == 0 and run >= 11:
            run = min(run, 138)
            out.append((18, run - 11, 7))
        elif n == 0 and run >= 3:
            out.append((17, run - 3, 3))
        elif n and repeats and run >= 4:
            run = min(run, 7)
            out += [(n, 0, 0), (16, run - 4, 2)]
        else:
            run = 1
            out.append((n, 0, 0))
        i += run
    return out


def _code_length_code(symbols: Sequence[tuple[int, int, int]], flat: bool) -> list[int]:
    """Lengths of the code-length code (at most 7 bits): Huffman's, or all about equal."""
    counts = [0] * 19
    for symbol, _, _ in symbols:
        counts[symbol] += 1
    used = [s for s in range(19) if counts[s]]
    lengths = [0] * 19
    if not flat:
        heap = [(counts[s], [s]) for s in used]
        while len(heap) > 1:
            heap.sort(key=lambda node: node[0], reverse=True)
            (a, left), (b, right) = heap.pop(), heap.pop()
            for s in left + right:
                lengths[s] += 1
            heap.append((a + b, left + right))
        if max(lengths) <= 7:
            return lengths
    width = max(1, (len(used) - 1).bit_length())  # complete: the first ones a bit shorter
    for rank, symbol in enumerate(used):
        lengths[symbol] = width - 1 if rank < (1 << width) - len(used) else width
    return lengths


def _header(lit: Sequence[int], dist: Sequence[int]) -> bytes:
    """The final dynamic block's header, after as many empty fixed blocks (10 bits each) as
    bring it to a byte boundary: of the ways tried to write it, the first whose bit count
    is even."""
    for repeats in (True, False):
        for flat in (False, True):
            symbols = _code_length_symbols([*lit, *dist], repeats)
            cl = _code_length_code(symbols, flat)
            least = max(4, max(i for i, s in enumerate(CODE_LENGTH_ORDER) if cl[s]) + 1)
            body = sum(cl[s] + extra for s, _, extra in symbols)
            for described in range(least, 20):
                if (3 + 14 + 3 * described + body) % 2 == 0:
                    return _header_bits(lit, dist, symbols, cl, described)
    raise AssertionError("no even header")  # (a new code: add a way to write it)


def _header_bits(lit: Sequence[int], dist: Sequence[int],
                 symbols: Sequence[tuple[int, int, int]], cl: Sequence[int],
                 described: int) -> bytes:
    bits = _Bits()
    header_bits = 3 + 14 + 3 * described + sum(cl[s] + extra for s, _, extra in symbols)
    for _ in range((-header_bits % 8) // 2):
        bits.put(0b010, 3)  # BFINAL 0, fixed codes
        bits.put(0, 7)  # end of block
    bits.put(0b101, 3)  # BFINAL 1, dynamic codes
    bits.put(len(lit) - 257, 5)
    bits.put(len(dist) - 1, 5)
    bits.put(described - 4, 4)
    for symbol in CODE_LENGTH_ORDER[:described]:
        bits.put(cl[symbol], 3)
    codes = _canonical(cl)
    for symbol, value, extra in symbols:
        bits.put(_reverse(codes[symbol], cl[symbol]), cl[symbol])
        bits.put(value, extra)
    return bits.bytes()


@dataclass(frozen=True, eq=False)
class Code:
    """The literal/length code of every picture here, as bytes to join."""

    literals: frozenset[int]
    clear: int  # the background's palette index
    literal: bytes  # a translate table: a palette index's 8-bit code
    length: tuple[bytes, ...]  # by match length: its length code and extra bits
    lengths: tuple[int, ...]  # its code lengths, for the header
    end: bytes  # end of block


def build(literals: Iterable[int], clear: int) -> Code | None:
    """The code for pictures of these palette indices on ``clear`` (the filter byte 0 is
    added); None if there are too many of them."""
    used = frozenset(literals) | {0, clear}
    lit = _lengths(used)
    if lit is None:
        return None
    codes = _canonical(lit)
    table = bytes(_reverse(codes[s], 8) if s in used else 0 for s in range(256))
    lengths = [b""] * (MAX_MATCH + 1)
    for length in range(3, MAX_MATCH + 1):
        index = 28 if length == MAX_MATCH else max(i for i in range(28)
                                                   if LENGTH_BASE[i] <= length)
        bits = _Bits()
        n = lit[257 + index]
        bits.put(_reverse(codes[257 + index], n), n)
        bits.put(length - LENGTH_BASE[index], LENGTH_EXTRA[index])
        lengths[length] = bits.bytes()
    return Code(literals=used, clear=clear, literal=table, length=tuple(lengths),
                lengths=tuple(lit), end=bytes([_reverse(codes[EOB], 8)]))


@lru_cache(maxsize=64)
def _for_stride(code: Code, stride: int) -> tuple[bytes, tuple[bytes, ...]]:
    """For scanlines of ``stride`` bytes: the block's header, and the code of each distance
    of :data:`SHIFTS` (whole bytes)."""
    dist = _distance_lengths(stride)
    codes = _canonical(dist)
    far = []
    for shift in SHIFTS:
        distance = _distance(shift, stride)
        c = _code_of(distance)
        bits = _Bits()
        bits.put(_reverse(codes[c], dist[c]), dist[c])
        bits.put(distance - DISTANCE_BASE[c], DISTANCE_EXTRA[c])
        far.append(bits.bytes())
    return _header(code.lengths, dist), tuple(far)


# ---- pieces --------------------------------------------------------------------------------


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


@lru_cache(maxsize=256)
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


@lru_cache(maxsize=512)
def _rows(code: Code, cell: Cell, tail: int, stride: int) -> tuple[bytes, ...] | None:
    """The segment's code row by row, for scanlines of ``stride`` bytes."""
    segment = _segment(code, cell, tail)
    if segment is None:
        return None
    far = _for_stride(code, stride)[1]
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


@lru_cache(maxsize=256)
def _far(code: Code, stride: int, distance: int) -> bytes:
    """Distance ``distance``'s code and extra bits in the code for ``stride`` (whole bytes:
    a distance of :data:`SHIFTS` or :data:`LEFT_CODES`)."""
    dist = _distance_lengths(stride)
    c = _code_of(distance)
    bits = _Bits()
    bits.put(_reverse(_canonical(dist)[c], dist[c]), dist[c])
    bits.put(distance - DISTANCE_BASE[c], DISTANCE_EXTRA[c])
    return bits.bytes()


def _clear_run(code: Code, stride: int, count: int) -> bytes:
    """``count`` clear bytes: one, then repeats of it."""
    if not count:
        return b""
    out = bytearray([code.literal[code.clear]])
    left = count - 1
    while left >= 3:
        take = min(left, MAX_MATCH) if left - MAX_MATCH >= 3 or left <= MAX_MATCH else left - 3
        out += code.length[take] + _far(code, stride, 1)
        left -= take
    out += bytes([code.literal[code.clear]]) * left
    return bytes(out)


@lru_cache(maxsize=128)
def _twin(code: Code, cell: Cell, gap: int, tail: int, stride: int) -> tuple[bytes, ...]:
    """The rows of a cell the same as the one to its left (a hand's pairs): each a copy of
    the cell to the left's row, then its clear tail."""
    pitch = cell.width + gap
    if tail == gap:
        return (code.length[pitch] + _far(code, stride, pitch),) * cell.height
    row = code.length[cell.width] + _far(code, stride, pitch) + _clear_run(code, stride, tail)
    return (row,) * cell.height


@lru_cache(maxsize=64)
def _blank(code: Code, width: int) -> bytes:
    """One clear scanline: its filter byte, a clear pixel, then repeats of it."""
    out = bytearray(code.literal[0:1] + bytes([code.literal[code.clear]]))
    left = width - 1
    repeat = _for_stride(code, width + 1)[1][SHIFTS.index((0, -1))]
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
    parts = [_for_stride(code, stride)[0] if up else b""]
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
            tail = band.gap if k < len(cells) - 1 else stride - x - cell.width
            segment = _segment(code, cell, tail)
            rows = _rows(code, cell, tail, stride)
            if segment is None or rows is None or not up:
                return None
            if k and cell is cells[k - 1] and cell.width + band.gap <= MAX_MATCH:
                rows = _twin(code, cell, band.gap, tail, stride)
            columns.append(rows)
            total += segment.total
            weighted += (base + x) * segment.total + stride * segment.by_row + segment.by_column
            x += cell.width + tail
        parts.append(b"".join(chain.from_iterable(zip(*columns, strict=True))))
        base += height * stride
    parts.append(code.end)
    a = (1 + total) % MOD
    b = (base + base * total - weighted) % MOD
    return b"".join((b"\x78\x01", *parts, struct.pack(">I", b << 16 | a)))
