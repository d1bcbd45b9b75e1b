"""Card, tile, die, chip and token faces drawn by code, cached per face.

Faces carry no words: values as digits (as on the printed cards), the llama as a
drawing, Kadabra's symbols as a star or a plus badge. Every face is drawn once per
token and marked (framed, veiled) once per mark, so composing a hand is only pastes.
"""

from __future__ import annotations

from enum import Enum
from functools import lru_cache
from importlib import resources

from PIL import Image, ImageDraw, ImageFont

from game import Card

CARD_W, CARD_H = 84, 120
DIE = 64
CHIP = 40
RADIUS = 10

# One colour per value, as the printed cards (and the text emoji 🔴🟠🟡🟢🔵🟣) show them.
VALUE_RGB: dict[int, tuple[int, int, int]] = {
    1: (214, 48, 49),
    2: (235, 130, 32),
    3: (240, 196, 25),
    4: (46, 160, 67),
    5: (38, 110, 205),
    6: (130, 64, 180),
}
LLAMA_BG = (236, 230, 214)
LLAMA_WOOL = (250, 246, 236)
LLAMA_LINE = (120, 84, 52)
PAPER = (255, 255, 255)
INK = (30, 30, 36)
GOLD = (255, 200, 40)
DIM = (54, 57, 63, 150)  # Discord's dark theme grey, half opaque


class Mark(Enum):
    """How a face is marked in a hand: playable now, not playable now, or neither."""

    NONE = "none"
    PLAYABLE = "playable"
    HELD = "held"


@lru_cache(maxsize=8)
def font(size: int) -> ImageFont.FreeTypeFont:
    """The shipped DejaVu Sans Bold, so digits look the same on every machine."""
    path = resources.files("bot.pictures") / "fonts" / "DejaVuSans-Bold.ttf"
    with resources.as_file(path) as real:
        return ImageFont.truetype(str(real), size)


def _centered(draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, size: int,
              fill: tuple[int, int, int], outline: tuple[int, int, int] | None = None) -> None:
    draw.text(xy, text, font=font(size), fill=fill, anchor="mm",
              stroke_width=2 if outline else 0, stroke_fill=outline)


def _llama(draw: ImageDraw.ImageDraw, cx: float, cy: float, s: float) -> None:
    """A standing llama in profile, ``s`` pixels tall, centred on (cx, cy)."""
    u = s / 10
    line = {"outline": LLAMA_LINE, "width": max(1, round(u * 0.35))}
    body = (cx - 3 * u, cy - 0.2 * u, cx + 2.6 * u, cy + 2.4 * u)
    for x in (-2.4, -1.2, 1.0, 2.0):  # legs
        draw.rectangle((cx + x * u, cy + 1.6 * u, cx + (x + 0.6) * u, cy + 4.8 * u),
                       fill=LLAMA_WOOL, **line)
    draw.ellipse(body, fill=LLAMA_WOOL, **line)
    draw.rectangle((cx + 1.3 * u, cy - 3.8 * u, cx + 2.6 * u, cy + 0.8 * u), fill=LLAMA_WOOL)
    draw.line((cx + 1.3 * u, cy - 3.8 * u, cx + 1.3 * u, cy + 0.2 * u), fill=LLAMA_LINE,
              width=line["width"])
    draw.line((cx + 2.6 * u, cy - 3.8 * u, cx + 2.6 * u, cy + 0.6 * u), fill=LLAMA_LINE,
              width=line["width"])
    draw.ellipse((cx + 1.0 * u, cy - 5.0 * u, cx + 4.0 * u, cy - 3.0 * u), fill=LLAMA_WOOL, **line)
    for x in (1.4, 2.2):  # ears
        draw.polygon([(cx + x * u, cy - 4.6 * u), (cx + (x + 0.3) * u, cy - 6.0 * u),
                      (cx + (x + 0.6) * u, cy - 4.6 * u)], fill=LLAMA_WOOL, **line)
    draw.ellipse((cx + 2.9 * u, cy - 4.4 * u, cx + 3.3 * u, cy - 4.0 * u), fill=INK)


def _star(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    from math import cos, pi, sin

    points = []
    for i in range(10):
        rr = r if i % 2 == 0 else r * 0.45
        angle = -pi / 2 + i * pi / 5
        points.append((cx + rr * cos(angle), cy + rr * sin(angle)))
    draw.polygon(points, fill=GOLD, outline=INK)


def _plus(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=PAPER, outline=INK, width=2)
    w = r * 0.28
    draw.rectangle((cx - r * 0.62, cy - w, cx + r * 0.62, cy + w), fill=INK)
    draw.rectangle((cx - w, cy - r * 0.62, cx + w, cy + r * 0.62), fill=INK)


def _marked(image: Image.Image, mark: Mark, radius: int) -> Image.Image:
    """A gold frame around a playable face; a grey veil over a held one."""
    if mark is Mark.NONE:
        return image
    w, h = image.size
    out = Image.new("RGBA", (w + 8, h + 8), (0, 0, 0, 0))
    draw = ImageDraw.Draw(out)
    if mark is Mark.PLAYABLE:
        draw.rounded_rectangle((0, 0, w + 7, h + 7), radius + 4, fill=GOLD)
    out.alpha_composite(image, (4, 4))
    if mark is Mark.HELD:
        veil = Image.new("RGBA", image.size, (0, 0, 0, 0))
        ImageDraw.Draw(veil).rounded_rectangle((0, 0, w - 1, h - 1), radius, fill=DIM)
        out.alpha_composite(veil, (4, 4))
    return out


@lru_cache(maxsize=256)
def card_face(card: Card, mark: Mark = Mark.NONE) -> Image.Image:
    """One card as printed: a coloured panel per value, the llama, doubles split, symbols."""
    return _marked(_card(card), mark, RADIUS)


@lru_cache(maxsize=64)
def _card(card: Card) -> Image.Image:
    image = Image.new("RGBA", (CARD_W, CARD_H), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((0, 0, CARD_W - 1, CARD_H - 1), RADIUS, fill=PAPER, outline=INK,
                           width=2)
    inner = (6, 6, CARD_W - 7, CARD_H - 7)
    if not card.numbers:
        draw.rounded_rectangle(inner, RADIUS - 4, fill=LLAMA_BG)
        _llama(draw, CARD_W / 2 - 6, CARD_H / 2 + 4, CARD_H * 0.62)
    elif card.is_double:
        low, high = (VALUE_RGB[v] for v in card.numbers)
        draw.rounded_rectangle(inner, RADIUS - 4, fill=high)
        draw.polygon([(inner[0], inner[1]), (inner[2], inner[1]), (inner[0], inner[3])],
                     fill=low)
        _centered(draw, (CARD_W * 0.32, CARD_H * 0.3), str(card.numbers[0]), 34, PAPER, INK)
        _centered(draw, (CARD_W * 0.68, CARD_H * 0.7), str(card.numbers[1]), 34, PAPER, INK)
    else:
        value = card.numbers[0]
        draw.rounded_rectangle(inner, RADIUS - 4, fill=VALUE_RGB[value])
        _centered(draw, (CARD_W / 2, CARD_H / 2), str(value), 52, PAPER, INK)
        for x, y in ((16, 18), (CARD_W - 16, CARD_H - 18)):
            _centered(draw, (x, y), str(value), 15, PAPER)
    if card.symbol.value == "*":
        _star(draw, CARD_W - 20, 20, 13)
    elif card.symbol.value == "+":
        _plus(draw, CARD_W - 20, 20, 12)
    return image


_PIPS = {
    1: [(0.5, 0.5)],
    2: [(0.27, 0.27), (0.73, 0.73)],
    3: [(0.27, 0.27), (0.5, 0.5), (0.73, 0.73)],
    4: [(0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)],
    5: [(0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)],
    6: [(0.27, 0.25), (0.73, 0.25), (0.27, 0.5), (0.73, 0.5), (0.27, 0.75), (0.73, 0.75)],
}


@lru_cache(maxsize=64)
def die_face(card: Card, mark: Mark = Mark.NONE) -> Image.Image:
    """A die or dice tile: pips on the value's colour, or the llama."""
    return _marked(_die(card), mark, 12)


@lru_cache(maxsize=16)
def _die(card: Card) -> Image.Image:
    image = Image.new("RGBA", (DIE, DIE), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    if not card.numbers:
        draw.rounded_rectangle((0, 0, DIE - 1, DIE - 1), 12, fill=LLAMA_BG, outline=INK, width=2)
        _llama(draw, DIE / 2 - 5, DIE / 2 + 3, DIE * 0.66)
    else:
        value = card.numbers[0]
        draw.rounded_rectangle((0, 0, DIE - 1, DIE - 1), 12, fill=VALUE_RGB[value], outline=INK,
                               width=2)
        r = DIE * 0.075
        for fx, fy in _PIPS[value]:
            cx, cy = fx * DIE, fy * DIE
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=PAPER, outline=INK)
    return image


@lru_cache(maxsize=4)
def chip_face(kind: str) -> Image.Image:
    """A white chip (1 point), a black chip (10 points) or Kadabra's magic token."""
    image = Image.new("RGBA", (CHIP, CHIP), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    box = (1, 1, CHIP - 2, CHIP - 2)
    if kind == "token":
        draw.ellipse(box, fill=(88, 40, 140), outline=GOLD, width=3)
        _star(draw, CHIP / 2, CHIP / 2, CHIP * 0.3)
    else:
        fill, ring = (PAPER, INK) if kind == "white" else (INK, (200, 200, 200))
        draw.ellipse(box, fill=fill, outline=ring, width=3)
        draw.ellipse((9, 9, CHIP - 10, CHIP - 10), outline=ring, width=2)
    return image
