"""Whole pictures from faces: a hand, a dice rack, an emoji per face; PNG bytes, cached.

Keys are what a picture shows (the cards and which are playable), never the message,
so every player holding the same hand at the same moment shares one render. Hands and
racks are grids of palette tiles (bot.pictures.tiles): their 8-bit PNG is joined from
pieces compressed once per tile (bot.pictures.pieces), about a quarter of the CPU of
pasting the tiles and compressing the picture with zlib, which stays as the
straightforward way (``PIECES = False``, and where pieces cannot write a picture).
"""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Sequence
from functools import lru_cache

from PIL import Image

from bot.pictures import deflate, pieces, tiles
from bot.pictures.faces import CARD_H, CARD_W, CHIP, DIE, Mark, card_face, die_face
from bot.pictures.tiles import CLEAR, canvas, card_tile, chip_tile, die_tile, palette_bytes
from game import Card
from game.cards import ALL_CARDS, PLAIN_VALUES

GAP = 8
PER_ROW = 8
BACKGROUND = (0, 0, 0, 0)  # transparent: sits on Discord's light or dark theme
EMOJI = 128
LEVEL = 1  # zlib level: the quickest; ~15% larger than level 3 (benchmarks/pictures.py)
PIECES = True  # hands and racks from pieces (benchmarks/pictures.py times zlib in its place)


def png(image: Image.Image) -> bytes:
    """PNG bytes; fast compression (flat colours compress well anyway); a picture on the
    shared palette keeps :data:`CLEAR` transparent."""
    if image.mode == "P":
        return png_writer(image)
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=LEVEL)
    return out.getvalue()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


@lru_cache(maxsize=1)
def _palette_chunks() -> bytes:
    """PLTE and tRNS: the same for every picture (one shared palette, :data:`CLEAR` clear)."""
    return _chunk(b"PLTE", palette_bytes()) + _chunk(b"tRNS", b"\xff" * CLEAR + b"\x00")


def palette_png(image: Image.Image) -> bytes:
    """An 8-bit PNG of a picture on the shared palette, written here: its scanlines are the
    pixels after a zero byte (no filter), so they come from one paste into a canvas a
    column wider, and the chunks around them are constant but for the size. Pillow's PNG
    writer takes about a sixth more CPU for the same pixels (``benchmarks/pictures.py``)."""
    width, height = image.size
    framed = Image.new("P", (width + 1, height), 0)  # column 0: each scanline's filter byte
    framed.paste(image, (1, 0))
    return _palette_file(width, height, zlib.compress(framed.tobytes(), LEVEL))


def _palette_file(width: int, height: int, idat: bytes) -> bytes:
    """The PNG file of a picture on the shared palette around its zlib stream."""
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)  # 8-bit, palette
    return b"".join((b"\x89PNG\r\n\x1a\n", _chunk(b"IHDR", header), _palette_chunks(),
                     _chunk(b"IDAT", idat), _chunk(b"IEND", b"")))


png_writer = palette_png  # (benchmarks/pictures.py times Pillow's writer in its place)


def _mark(card: Card, playable: frozenset[str] | None) -> Mark:
    if playable is None:
        return Mark.NONE
    return Mark.PLAYABLE if card.token in playable else Mark.HELD


def _grid(tiles: Sequence[Image.Image], per_row: int = PER_ROW) -> Image.Image:
    """Tiles left to right, wrapping after ``per_row``; every cell the size of the largest."""
    if not tiles:
        return canvas((1, 1))
    w = max(f.width for f in tiles)
    h = max(f.height for f in tiles)
    cols = min(per_row, len(tiles))
    rows = -(-len(tiles) // per_row)
    image = canvas((cols * w + (cols - 1) * GAP, rows * h + (rows - 1) * GAP))
    for i, tile in enumerate(tiles):
        x = (i % per_row) * (w + GAP) + (w - tile.width) // 2
        y = (i // per_row) * (h + GAP) + (h - tile.height) // 2
        image.paste(tile, (x, y))  # same palette, cells apart: a copy of the indices
    return image


TileKey = tuple[str, Card | str, Mark]
"""A tile as (kind, card or chip kind, mark): ``("card", card, mark)``, ``("die", …)``,
``("chip", "white", Mark.NONE)``."""


def _tile(key: TileKey) -> Image.Image:
    kind, what, mark = key
    if kind == "chip":
        assert isinstance(what, str)
        return chip_tile(what)
    assert isinstance(what, Card)
    return card_tile(what, mark) if kind == "card" else die_tile(what, mark)


@lru_cache(maxsize=1)
def _code() -> deflate.Code | None:
    """The deflate code of every hand and rack, for every colour the faces use (every tile
    drawn now, once a process: about 25 ms, tiles the pictures use anyway)."""
    tiles.warm()
    return deflate.build(tiles.face_indices(), CLEAR)


@lru_cache(maxsize=256)
def _cell(key: TileKey, width: int, height: int) -> pieces.Cell:
    """A tile centred in a grid cell, as :func:`_grid` pastes it."""
    tile = _tile(key)
    cell = canvas((width, height))
    cell.paste(tile, ((width - tile.width) // 2, (height - tile.height) // 2))
    return pieces.Cell(width, height, cell.tobytes())


def warm() -> None:
    """Cut every tile into pieces now, in the cells hands and racks put it in (``python -m
    bot``'s warm-up, beside the login: about 0.2 s of CPU once), so the first hands of a
    busy start only join pieces."""
    code = _code()
    if code is None:
        return
    cells: list[pieces.Cell] = []
    for mark in Mark:
        card_cell = (CARD_W, CARD_H) if mark is Mark.NONE else (CARD_W + 8, CARD_H + 8)
        cells += [_cell(("card", card, mark), *card_cell) for card in ALL_CARDS]
        for size in ({DIE, DIE + 8} if mark is Mark.NONE else {DIE + 8}):
            cells += [_cell(("die", card, mark), size, size) for card in PLAIN_VALUES]
    cells += [_cell(("chip", kind, Mark.NONE), CHIP, CHIP) for kind in tiles.CHIPS]
    for cell in cells:
        for tail in (GAP, 0):
            pieces.prepare(code, cell, tail)


def _grid_bands(keys: Sequence[TileKey], per_row: int = PER_ROW
                ) -> tuple[int, int, list[pieces.Band]]:
    """:func:`_grid` as bands: its width, its height, its rows of cells and gaps."""
    if not keys:
        return 1, 1, [pieces.Blank(1)]
    sizes = [_tile(k).size for k in keys]
    w = max(size[0] for size in sizes)
    h = max(size[1] for size in sizes)
    cols = min(per_row, len(keys))
    bands: list[pieces.Band] = []
    for start in range(0, len(keys), per_row):
        if start:
            bands.append(pieces.Blank(GAP))
        bands.append(pieces.Row(tuple(_cell(k, w, h) for k in keys[start:start + per_row]),
                                GAP))
    rows = -(-len(keys) // per_row)
    return cols * w + (cols - 1) * GAP, rows * h + (rows - 1) * GAP, bands


def _stacked(grids: Sequence[tuple[int, int, list[pieces.Band]]], gap: int
             ) -> tuple[int, int, list[pieces.Band]]:
    """Grids one under the other, ``gap`` apart, left-aligned."""
    bands: list[pieces.Band] = []
    for i, (_, _, grid) in enumerate(grids):
        if i:
            bands.append(pieces.Blank(gap))
        bands += grid
    return (max(g[0] for g in grids), sum(g[1] for g in grids) + gap * (len(grids) - 1),
            bands)


def _from_pieces(layout: tuple[int, int, list[pieces.Band]]) -> bytes | None:
    """The PNG of ``layout`` joined from pieces; None where they cannot write it."""
    code = _code()
    if code is None or not PIECES:
        return None
    width, height, bands = layout
    idat = pieces.png_idat(code, width, bands)
    return None if idat is None else _palette_file(width, height, idat)


def _hand_keys(tokens: tuple[str, ...], playable: frozenset[str] | None) -> list[TileKey]:
    return [("card", c, _mark(c, playable)) for c in map(Card.parse, tokens)]


def _hand_image(tokens: tuple[str, ...], playable: frozenset[str] | None,
                chips: tuple[str, ...]) -> Image.Image:
    """The hand pasted tile by tile: what :func:`_hand_png` draws without pieces."""
    image = _grid([_tile(k) for k in _hand_keys(tokens, playable)])
    if chips:
        strip = _grid([chip_tile(k) for k in chips], per_row=len(chips))
        full = canvas((max(image.width, strip.width), image.height + GAP + CHIP))
        full.paste(image, (0, 0))
        full.paste(strip, (0, image.height + GAP))
        image = full
    return image


@lru_cache(maxsize=1024)
def _hand_png(tokens: tuple[str, ...], playable: frozenset[str] | None,
              chips: tuple[str, ...]) -> bytes:
    grids = [_grid_bands(_hand_keys(tokens, playable))]
    if chips:
        grids.append(_grid_bands([("chip", k, Mark.NONE) for k in chips], len(chips)))
    made = _from_pieces(_stacked(grids, GAP))
    return made if made is not None else png(_hand_image(tokens, playable, chips))


def hand_picture(cards: Sequence[Card], playable: Sequence[Card] | None = None,
                 chips: Sequence[str] = ()) -> bytes:
    """A hand of cards in hand order; with ``playable``, those framed and the rest veiled.

    ``chips`` adds a strip of ``"white"``, ``"black"`` or ``"token"`` discs below.
    """
    marks = None if playable is None else frozenset(c.token for c in playable)
    return _hand_png(tuple(c.token for c in cards), marks, tuple(chips))


def _dice_keys(tiles_: tuple[str, ...], roll: tuple[str, ...], playable: frozenset[str] | None,
               matching: frozenset[str]) -> list[list[TileKey]]:
    """The rack's rows: the face-up tiles, then the roll (never veiled: every die of the roll
    counts; those that let you take, framed)."""
    rows: list[list[TileKey]] = []
    if tiles_:
        rows.append([("die", c, _mark(c, playable)) for c in map(Card.parse, tiles_)])
    if roll:
        rows.append([("die", c, Mark.PLAYABLE if c.token in matching else Mark.NONE)
                     for c in map(Card.parse, roll)])
    return rows


def _dice_image(tiles_: tuple[str, ...], roll: tuple[str, ...], playable: frozenset[str] | None,
                matching: frozenset[str]) -> Image.Image:
    """The rack pasted tile by tile: what :func:`_dice_png` draws without pieces."""
    rows = [_grid([_tile(k) for k in keys])
            for keys in _dice_keys(tiles_, roll, playable, matching)]
    if not rows:
        return canvas((DIE, DIE))
    width = max(r.width for r in rows)
    image = canvas((width, sum(r.height for r in rows) + GAP * 2 * (len(rows) - 1)))
    y = 0
    for r in rows:
        image.paste(r, (0, y))
        y += r.height + GAP * 2
    return image


@lru_cache(maxsize=1024)
def _dice_png(tiles_: tuple[str, ...], roll: tuple[str, ...], playable: frozenset[str] | None,
              matching: frozenset[str]) -> bytes:
    rows = _dice_keys(tiles_, roll, playable, matching)
    layout = (_stacked([_grid_bands(keys) for keys in rows], GAP * 2) if rows
              else (DIE, DIE, [pieces.Blank(DIE)]))
    made = _from_pieces(layout)
    return made if made is not None else png(_dice_image(tiles_, roll, playable, matching))


def dice_picture(tiles: Sequence[Card], roll: Sequence[Card] = (),
                 playable: Sequence[Card] | None = None, matching: Sequence[Card] = ()) -> bytes:
    """Your face-up tiles, and below them your roll. With ``playable`` (the tiles you may
    discard now), those tiles are framed and the rest veiled, as a hand's cards are; the
    dice of ``matching`` (those that let you take a row tile) are framed; the roll is
    never veiled."""
    marks = None if playable is None else frozenset(c.token for c in playable)
    return _dice_png(tuple(c.token for c in tiles), tuple(c.token for c in roll), marks,
                     frozenset(c.token for c in matching))


def emoji_picture(card: Card, die: bool = False) -> bytes:
    """A 128×128 face for an application emoji (Discord's recommended emoji size)."""
    face = die_face(card) if die else card_face(card)
    image = Image.new("RGBA", (EMOJI, EMOJI), BACKGROUND)
    scale = EMOJI / max(face.width, face.height)
    resized = face.resize((max(1, round(face.width * scale)), max(1, round(face.height * scale))),
                          Image.Resampling.LANCZOS)
    image.alpha_composite(resized, ((EMOJI - resized.width) // 2, (EMOJI - resized.height) // 2))
    return png(image)


SIZE = (CARD_W, CARD_H)
