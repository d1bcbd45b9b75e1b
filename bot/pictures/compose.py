"""Whole pictures from faces: a hand, a dice rack, an emoji per face; PNG bytes, cached.

Keys are what a picture shows (the cards and which are playable), never the message,
so every player holding the same hand at the same moment shares one render.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from functools import lru_cache

from PIL import Image

from bot.pictures.faces import CARD_H, CARD_W, CHIP, DIE, Mark, card_face, chip_face, die_face
from game import Card

GAP = 8
PER_ROW = 8
BACKGROUND = (0, 0, 0, 0)  # transparent: sits on Discord's light or dark theme
EMOJI = 128


def png(image: Image.Image) -> bytes:
    """PNG bytes; fast compression (flat colours compress well anyway)."""
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=3)
    return out.getvalue()


def _mark(card: Card, playable: frozenset[str] | None) -> Mark:
    if playable is None:
        return Mark.NONE
    return Mark.PLAYABLE if card.token in playable else Mark.HELD


def _grid(faces: Sequence[Image.Image], per_row: int = PER_ROW) -> Image.Image:
    """Faces left to right, wrapping after ``per_row``; every cell the size of the largest."""
    if not faces:
        return Image.new("RGBA", (1, 1), BACKGROUND)
    w = max(f.width for f in faces)
    h = max(f.height for f in faces)
    cols = min(per_row, len(faces))
    rows = -(-len(faces) // per_row)
    image = Image.new("RGBA", (cols * w + (cols - 1) * GAP, rows * h + (rows - 1) * GAP),
                      BACKGROUND)
    for i, face in enumerate(faces):
        x = (i % per_row) * (w + GAP) + (w - face.width) // 2
        y = (i // per_row) * (h + GAP) + (h - face.height) // 2
        image.alpha_composite(face, (x, y))
    return image


@lru_cache(maxsize=1024)
def _hand_png(tokens: tuple[str, ...], playable: frozenset[str] | None,
              chips: tuple[str, ...]) -> bytes:
    cards = [Card.parse(t) for t in tokens]
    faces = [card_face(c, _mark(c, playable)) for c in cards]
    image = _grid(faces)
    if chips:
        strip = _grid([chip_face(k) for k in chips], per_row=len(chips))
        full = Image.new("RGBA", (max(image.width, strip.width), image.height + GAP + CHIP),
                         BACKGROUND)
        full.alpha_composite(image, (0, 0))
        full.alpha_composite(strip, (0, image.height + GAP))
        image = full
    return png(image)


def hand_picture(cards: Sequence[Card], playable: Sequence[Card] | None = None,
                 chips: Sequence[str] = ()) -> bytes:
    """A hand of cards in hand order; with ``playable``, those framed and the rest veiled.

    ``chips`` adds a strip of ``"white"``, ``"black"`` or ``"token"`` discs below.
    """
    marks = None if playable is None else frozenset(c.token for c in playable)
    return _hand_png(tuple(c.token for c in cards), marks, tuple(chips))


@lru_cache(maxsize=1024)
def _dice_png(tiles: tuple[str, ...], roll: tuple[str, ...], playable: frozenset[str] | None,
              ) -> bytes:
    rows = []
    if tiles:
        rows.append(_grid([die_face(Card.parse(t)) for t in tiles]))
    if roll:
        rows.append(_grid([die_face(c, _mark(c, playable)) for c in map(Card.parse, roll)]))
    if not rows:
        return png(Image.new("RGBA", (DIE, DIE), BACKGROUND))
    width = max(r.width for r in rows)
    image = Image.new("RGBA", (width, sum(r.height for r in rows) + GAP * 2 * (len(rows) - 1)),
                      BACKGROUND)
    y = 0
    for r in rows:
        image.alpha_composite(r, (0, y))
        y += r.height + GAP * 2
    return png(image)


def dice_picture(tiles: Sequence[Card], roll: Sequence[Card] = (),
                 playable: Sequence[Card] | None = None) -> bytes:
    """Your face-up tiles, and below them your roll (playable dice framed)."""
    marks = None if playable is None else frozenset(c.token for c in playable)
    return _dice_png(tuple(c.token for c in tiles), tuple(c.token for c in roll), marks)


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
