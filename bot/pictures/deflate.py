"""A deflate code in which every symbol a picture uses is a whole number of bytes.

bot/pictures/pieces.py joins pictures from pieces coded once; they can only be joined as
bytes if each ends on a byte boundary inside one dynamic-Huffman block. So here each
literal (a palette index the tiles use, and the filter byte 0) has an 8-bit code, and each
length code with its extra bits, and each distance code a picture uses with its extra bits,
make whole bytes: a length of 83-98 (a card's row and its gap) and of 3-18 one byte, the
rest two; a copy from the row above one byte for scanlines of 385-512 bytes (4-5 framed
cards), two for most others (:func:`distance_lengths`). Where a code's lengths do not fill
the code space, lengths for symbols never used complete it (inflaters refuse an incomplete
code). The block's header, padded to a byte boundary by empty fixed blocks before it, is
written per distance code (per picture width).

May import: nothing of bot/ (the standard library only).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

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


def code_of(distance: int) -> int:
    """The distance code of ``distance``."""
    return max(c for c in range(30) if DISTANCE_BASE[c] <= distance)


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


def header(lit: Sequence[int], dist: Sequence[int]) -> bytes:
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


def distance_lengths(wanted: Sequence[int]) -> list[int]:
    """Code lengths of a distance code in which each code of ``wanted`` makes whole bytes
    with its extra bits: each the shortest that still fits, in the order given, then the
    others completing the code."""
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
    assert filled  # (fifteen free codes complete any code: at most 15 bits to fill)
    return dist


def distance_bytes(dist: Sequence[int], distance: int) -> bytes:
    """``distance``'s code in the distance code of lengths ``dist``, and its extra bits."""
    c = code_of(distance)
    bits = _Bits()
    bits.put(_reverse(_canonical(dist)[c], dist[c]), dist[c])
    bits.put(distance - DISTANCE_BASE[c], DISTANCE_EXTRA[c])
    return bits.bytes()

