"""Faces as 8-bit tiles on one shared palette: a hand is pastes, and its PNG is small and quick.

The faces use a few flat colours (a panel per value, paper, ink, gold, the veil) and the
soft edges of their digits: 255 colours hold them all. Every face is mapped once to one
palette, made from a sheet of every face there is and shipped (bot.pictures.palette), so
a picture is composed by pasting tiles (no blending per render) and PNG encodes one byte
per pixel instead of four: about a sixth of the CPU of blending RGBA faces, at 60% of
the size (``benchmarks/pictures.py``).
Transparency is one palette entry, :data:`CLEAR`, so the picture sits on either theme.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image

from bot.pictures.faces import INK, Mark, card_face, chip_face, die_face
from bot.pictures.palette import COLOURS
from game.cards import ALL_CARDS, PLAIN_VALUES, Card

CLEAR = 255  # the transparent entry; the faces' colours are 0 … 254
CLEAR_RGB = (255, 0, 255)  # far from every face colour, so no face pixel maps to it
CHIPS = ("white", "black", "token")
OPAQUE = 128  # alpha from which a face's pixel is drawn (the faces' alpha is 0 or 255)


def sheet_colours() -> list[int]:
    """255 colours (flat RGB values) from a sheet of every card (plain and veiled; framed
    adds only gold), every die and every chip, by median cut: what :data:`COLOURS` ships,
    made again by ``python -m bot.pictures.tiles`` when the faces change (a few hundred
    ms: too slow for a bot's first picture, hence shipped)."""
    faces = [card_face(c, m) for c in ALL_CARDS for m in (Mark.NONE, Mark.HELD)]
    faces += [card_face(ALL_CARDS[0], Mark.PLAYABLE)]
    faces += [die_face(c, m) for c in PLAIN_VALUES for m in (Mark.NONE, Mark.HELD)]
    faces += [chip_face(k) for k in CHIPS]
    sheet = Image.new("RGB", (sum(f.width for f in faces), max(f.height for f in faces)), INK)
    x = 0
    for face in faces:  # transparent corners show ink, a colour the faces have anyway
        sheet.paste(face, (x, 0), mask=face.getchannel("A"))
        x += face.width
    colours = sheet.quantize(CLEAR, method=Image.Quantize.MEDIANCUT).getpalette() or []
    return (colours[: 3 * CLEAR] + [*INK] * CLEAR)[: 3 * CLEAR]  # exactly 255 entries


@lru_cache(maxsize=1)
def palette() -> Image.Image:
    """The shared palette, as a 1×1 image to quantize with: :data:`COLOURS`, then
    :data:`CLEAR`. A face's colours come out within a few units of the drawn ones (Pillow
    maps to a palette through a cache of 4-unit cells), which no eye tells apart."""
    image = Image.new("P", (1, 1))
    image.putpalette([*COLOURS, *CLEAR_RGB])
    return image


@lru_cache(maxsize=1)
def palette_bytes() -> bytes:
    """The palette as :meth:`Image.putpalette` takes it (768 bytes)."""
    return bytes(palette().getpalette() or [])


def tile(face: Image.Image) -> Image.Image:
    """``face`` (RGBA) on the shared palette, its transparent pixels :data:`CLEAR`."""
    alpha = face.getchannel("A")
    rgb = Image.new("RGB", face.size, INK)
    rgb.paste(face, mask=alpha)
    out = rgb.quantize(palette=palette(), dither=Image.Dither.NONE)
    out.paste(CLEAR, mask=alpha.point(lambda a: 255 if a < OPAQUE else 0))
    return out


@lru_cache(maxsize=256)
def card_tile(card: Card, mark: Mark = Mark.NONE) -> Image.Image:
    return tile(card_face(card, mark))


@lru_cache(maxsize=64)
def die_tile(card: Card, mark: Mark = Mark.NONE) -> Image.Image:
    return tile(die_face(card, mark))


@lru_cache(maxsize=4)
def chip_tile(kind: str) -> Image.Image:
    return tile(chip_face(kind))


def canvas(size: tuple[int, int]) -> Image.Image:
    """A transparent picture on the shared palette, for tiles to be pasted on."""
    image = Image.new("P", size, CLEAR)
    image.putpalette(palette_bytes())
    return image


def warm() -> None:
    """Draw every tile now (benchmarks/pictures.py: renders timed after warm-up)."""
    for mark in Mark:
        for card in ALL_CARDS:
            card_tile(card, mark)
        for card in PLAIN_VALUES:
            die_tile(card, mark)
    for kind in CHIPS:
        chip_tile(kind)


def face_indices() -> frozenset[int]:
    """Every palette index a tile uses, :data:`CLEAR` included (after :func:`warm`, cheap):
    the literals of bot.pictures.pieces' code."""
    every = [card_tile(card, mark) for mark in Mark for card in ALL_CARDS]
    every += [die_tile(card, mark) for mark in Mark for card in PLAIN_VALUES]
    every += [chip_tile(kind) for kind in CHIPS]
    return frozenset(i for tile in every for i, n in enumerate(tile.histogram()) if n)


def palette_source() -> str:
    """bot/pictures/palette.py's text, from the faces as they are drawn now."""
    values = sheet_colours()
    rows = [", ".join(f"0x{v:02x}" for v in values[i:i + 12]) for i in range(0, len(values), 12)]
    lines = ['"""The shared palette of the faces\' tiles (bot.pictures.tiles), written by',
             '``python -m bot.pictures.tiles``: 255 RGB colours."""', "",
             "COLOURS: tuple[int, ...] = ("]
    return "\n".join([*lines, *(f"    {row}," for row in rows), ")", ""])


if __name__ == "__main__":  # python -m bot.pictures.tiles: writes bot/pictures/palette.py
    import logging
    from pathlib import Path

    logging.basicConfig(level=logging.INFO)
    target = Path(__file__).with_name("palette.py")
    target.write_text(palette_source())
    logging.getLogger(__name__).info("wrote %s", target)
