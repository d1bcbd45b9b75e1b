"""Card pictures by structure: sizes, each card's dominant colour, marks, dice pips, charts."""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from PIL import Image

from bot.pictures import dice_picture, emoji_picture, hand_picture
from bot.pictures.chart import (
    RATINGS,
    SEAT_RGB,
    TOTALS,
    Style,
    ratings_chart,
    shown_tick_labels,
    shown_ticks,
    totals_chart,
)
from bot.pictures.compose import GAP
from bot.pictures.faces import CARD_H, CARD_W, DIE, GOLD, LLAMA_BG, PAPER, VALUE_RGB
from game import Card

cards = [Card.parse(t) for t in ("1", "3", "6", "L")]


def load(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data)).convert("RGBA")


def pixels(image: Image.Image) -> Sequence[Any]:
    """Every pixel, row by row: ``get_flattened_data`` where Pillow has it (12.1 on), since
    ``getdata`` is deprecated there; ``getdata`` on the older Pillows pyproject allows."""
    flattened = getattr(image, "get_flattened_data", None)
    return flattened() if flattened is not None else image.getdata()


def dominant(image: Image.Image, box: tuple[int, int, int, int]) -> tuple[int, int, int]:
    """The most common opaque colour in ``box``."""
    counts = Counter(p[:3] for p in pixels(image.crop(box)) if p[3] == 255)
    return counts.most_common(1)[0][0]


def close(a: tuple[int, ...], b: tuple[int, ...], tolerance: int = 24) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, b, strict=True))


def seat_pixels(image: Image.Image, seat: int) -> int:
    """Pixels within 4 of the seat's colour (each colour of the chart compared once, not
    each of its 130,000 pixels)."""
    rgb = tuple(int(SEAT_RGB[seat][i:i + 2], 16) for i in (1, 3, 5))
    colours = image.convert("RGB").getcolors(maxcolors=image.width * image.height)
    return sum(n for n, colour in colours if close(colour, rgb, tolerance=4))


def test_a_hand_is_one_card_per_value_colour_in_hand_order() -> None:
    image = load(hand_picture(cards))
    assert image.size == (4 * CARD_W + 3 * GAP, CARD_H)
    for i, card in enumerate(cards):
        x = i * (CARD_W + GAP)
        # the band between the corner digits and the big digit shows the panel's colour
        colour = dominant(image, (x + 10, 30, x + CARD_W - 10, 40))
        expected = VALUE_RGB[card.numbers[0]] if card.numbers else LLAMA_BG
        assert close(colour, expected), (card, colour)


def test_playable_cards_are_framed_in_gold_and_the_others_veiled() -> None:
    plain = load(hand_picture(cards))
    marked = load(hand_picture(cards, playable=[cards[1]]))
    cell = CARD_W + 8
    assert marked.size == (4 * cell + 3 * GAP, CARD_H + 8)
    frame = marked.getpixel((cell + GAP + cell // 2, 1))[:3]
    assert close(frame, GOLD)
    held = dominant(marked, (14, 34, CARD_W - 6, 44))
    shown = dominant(plain, (10, 30, CARD_W - 10, 40))
    assert sum(held) < sum(shown) - 60  # the red of the 1 is darkened by the veil


@pytest.mark.parametrize("token", ["2/3", "4/5+"])
def test_kadabra_doubles_show_both_colours(token: str) -> None:
    card = Card.parse(token)
    image = load(hand_picture([card]))
    low, high = card.numbers
    assert close(image.getpixel((12, 12))[:3], VALUE_RGB[low])
    assert close(image.getpixel((CARD_W - 12, CARD_H - 12))[:3], VALUE_RGB[high])


@pytest.mark.parametrize("token", ["3*", "4+"])
def test_symbols_are_drawn_in_the_corner(token: str) -> None:
    marked = load(hand_picture([Card.parse(token)]))
    plain = load(hand_picture([Card.parse(token[0])]))
    corner = (CARD_W - 34, 6, CARD_W - 6, 34)
    assert list(pixels(marked.crop(corner))) != list(pixels(plain.crop(corner)))
    assert close(dominant(plain, corner), VALUE_RGB[int(token[0])], tolerance=6)


def count_pips(image: Image.Image, x: int) -> int:
    """White pips in the die at ``x``: connected runs of paper-white along its rows (within
    the few units the shared palette moves a colour)."""
    face = image.crop((x + 4, 4, x + DIE - 4, DIE - 4))

    def white(p: tuple[int, int]) -> bool:
        return close(face.getpixel(p)[:3], PAPER, tolerance=6)

    seen: set[tuple[int, int]] = set()
    blobs = 0
    for y in range(face.height):
        for xx in range(face.width):
            if (xx, y) in seen or not white((xx, y)):
                continue
            blobs += 1
            stack = [(xx, y)]
            while stack:
                p = stack.pop()
                if p in seen or not (0 <= p[0] < face.width and 0 <= p[1] < face.height):
                    continue
                if not white(p):
                    continue
                seen.add(p)
                stack += [(p[0] + 1, p[1]), (p[0] - 1, p[1]), (p[0], p[1] + 1), (p[0], p[1] - 1)]
    return blobs


def test_dice_show_their_pips_and_the_roll_sits_below_the_tiles() -> None:
    tiles = [Card.parse(t) for t in ("2", "5")]
    roll = [Card.parse(t) for t in ("1", "3", "6")]
    image = load(dice_picture(tiles, roll))
    assert image.size == (3 * DIE + 2 * GAP, 2 * DIE + 2 * GAP)
    assert [count_pips(image, i * (DIE + GAP)) for i in range(2)] == [2, 5]
    below = image.crop((0, DIE + 2 * GAP, image.width, image.height))
    assert [count_pips(below, i * (DIE + GAP)) for i in range(3)] == [1, 3, 6]


def test_pictures_are_small_and_rendered_once_per_content() -> None:
    hand = [Card.parse(t) for t in ("1", "1", "2", "3", "4", "4", "5", "6", "L", "L", "2")]
    first = hand_picture(hand, playable=hand[:3], chips=("white", "black", "token"))
    assert len(first) < 60_000
    assert hand_picture(list(hand), playable=list(hand[:3]),
                        chips=("white", "black", "token")) is first
    assert load(first).width <= 8 * (CARD_W + 8 + GAP)  # wraps after eight cards


def test_emoji_faces_are_128_pixels_square() -> None:
    for token in ("1", "L", "2/3*"):
        image = load(emoji_picture(Card.parse(token)))
        assert image.size == (128, 128)
    assert load(emoji_picture(Card.parse("4"), die=True)).size == (128, 128)


def test_the_chart_draws_each_seat_in_its_colour_and_refuses_ragged_totals() -> None:
    totals = [[5, 12, 20], [3, 9, 15], [10, 11, 25]]
    image = load(totals_chart(totals, target=40, winners=[1]))
    assert image.size == (512, 288)
    colours = Counter(p[:3] for p in pixels(image))
    for seat in range(3):
        rgb = tuple(int(SEAT_RGB[seat][i:i + 2], 16) for i in (1, 3, 5))
        assert colours[rgb] > 40, seat
    assert colours[tuple(int(SEAT_RGB[3][i:i + 2], 16) for i in (1, 3, 5))] == 0
    with pytest.raises(ValueError, match="every round"):
        totals_chart([[1, 2], [3]])


def test_a_chart_after_another_draws_only_its_own_lines() -> None:
    """Charts reuse a figure per thread: nothing of the last chart may stay on it."""
    four = load(totals_chart([[5, 9], [3, 7], [8, 20], [1, 30]], target=25, winners=[3]))
    two = load(totals_chart([[2, 4, 6], [1, 2, 3]]))
    assert seat_pixels(four, 3) > 40 and seat_pixels(four, 2) > 40
    assert seat_pixels(two, 0) > 40 and seat_pixels(two, 1) > 40
    assert seat_pixels(two, 2) == 0 and seat_pixels(two, 3) == 0


def test_the_ratings_chart_reuses_its_figure_without_the_last_charts_lines() -> None:
    """/lama stats draws on its own styled figure per thread, as the totals chart does:
    a chart after another (and after a totals chart) shows only its own rule sets."""
    three = load(ratings_chart([(0, [(1, 2.0, True), (4, 5.5, False)]),
                                (1, [(2, -1.0, False), (3, 0.5, True)]),
                                (2, [(5, 7.0, False), (6, 8.0, True)])]))
    totals_chart([[5, 9], [3, 7], [8, 20], [1, 30]], target=25, winners=[3])
    one = load(ratings_chart([(1, [(1, -3.0, False), (2, 4.0, True), (3, 1.0, False)])]))
    assert three.size == one.size == (512, 256)
    assert all(seat_pixels(three, seat) > 40 for seat in range(3))
    assert seat_pixels(one, 1) > 40
    assert seat_pixels(one, 0) == 0 and seat_pixels(one, 2) == 0 and seat_pixels(one, 3) == 0
    with pytest.raises(ValueError, match="no game"):
        ratings_chart([(0, [])])


@pytest.mark.parametrize(("draw", "style", "games"), [
    (lambda: ratings_chart([(0, [(1, -0.4, False)])]), RATINGS, [1.0]),  # one game
    (lambda: ratings_chart([(0, [(1, 5.3, True)]), (1, [(2, 5.35, False)])]), RATINGS,
     [1.0, 2.0]),
    (lambda: ratings_chart([(2, [(x, x / 7, x % 3 == 0) for x in range(1, 21)])]), RATINGS,
     None),
    (lambda: totals_chart([[0], [0]]), TOTALS, [0.0, 1.0]),  # one round, nobody scored
    (lambda: totals_chart([[5, 9], [3, 7], [8, 20], [1, 30]], target=25), TOTALS, None),
])
def test_chart_ticks_are_whole_numbers(draw: Callable[[], bytes], style: Style,
                                       games: list[float] | None) -> None:
    """Games, rounds and points are counted in whole numbers (the one-game stats chart had
    x ticks 0.5, 0.6 … 1.5), with at least one tick on each axis."""
    draw()
    xs, ys = shown_ticks(style)
    assert xs and ys, (xs, ys)
    assert all(t == int(t) for t in xs + ys), (xs, ys)
    if games is not None:
        assert xs == games


PERSIAN = "۰۱۲۳۴۵۶۷۸۹"


def test_a_persian_charts_ticks_are_persian_digits_and_signs() -> None:
    """Ticks are written as the reader's language writes numbers (bot.words: Persian digits,
    its minus sign), read from the chart's axes; without a language, matplotlib's own."""
    from bot.pictures.chart import _chart, _ratings
    from bot.words.i18n import translator
    from cogs.charts import tick_figures

    _chart.cache_clear()  # (each chart below is drawn, so its axes are the ones read)
    _ratings.cache_clear()
    fa = tick_figures("fa")
    assert fa is tick_figures("fa"), "one function per language: charts stay cached"
    totals_chart([[5, 12, 20], [3, 9, 15]], target=40, winners=[1], figures=fa)
    xs, ys = shown_tick_labels(TOTALS)
    assert xs and ys
    assert all(set(label) <= set(PERSIAN) for label in xs + ys), (xs, ys)
    assert xs == [translator("fa").figures(int(t)) for t in shown_ticks(TOTALS)[0]]
    ratings_chart([(0, [(1, -8.0, False), (2, 3.0, True)])], figures=fa)
    xs, ys = shown_tick_labels(RATINGS)
    negative = [label for label in ys if not set(label) <= set(PERSIAN)]
    assert negative and all(label.startswith(translator("fa").minus)
                            and set(label.removeprefix(translator("fa").minus)) <= set(PERSIAN)
                            for label in negative), ys
    assert all(set(label) <= set(PERSIAN) for label in xs), xs
    totals_chart([[5, 12, 20], [3, 9, 15]], target=40, winners=[1])  # (cached apart)
    xs, ys = shown_tick_labels(TOTALS)
    assert all(label.isascii() and label.isdigit() for label in xs + ys), (xs, ys)
    ratings_chart([(0, [(1, -8.0, False), (2, 3.0, True)])], figures=tick_figures("en"))
    assert any(label.startswith("-") and label[1:].isdigit()
               for label in shown_tick_labels(RATINGS)[1])


def test_the_hand_png_written_here_decodes_to_what_pillow_would_write() -> None:
    """compose.palette_png writes the PNG chunks itself: the same pixels, palette and
    transparency as Pillow's own writer gives."""
    from bot.pictures.compose import _grid, palette_png
    from bot.pictures.faces import Mark
    from bot.pictures.tiles import CLEAR, card_tile

    image = _grid([card_tile(c, Mark.PLAYABLE if c.token == "3" else Mark.HELD) for c in cards])
    ours = Image.open(io.BytesIO(palette_png(image)))
    ours.load()
    out = io.BytesIO()
    image.save(out, "PNG", transparency=CLEAR)
    pillows = Image.open(io.BytesIO(out.getvalue()))
    assert ours.mode == "P" and ours.size == image.size
    assert ours.info.get("transparency") == pillows.info.get("transparency")
    assert ours.convert("RGBA").tobytes() == pillows.convert("RGBA").tobytes()
    assert ours.getpixel((0, 0)) == CLEAR and ours.convert("RGBA").getpixel((0, 0))[3] == 0


def test_the_shipped_palette_holds_every_face_colour() -> None:
    """bot/pictures/palette.py is made from the faces (``python -m bot.pictures.tiles``):
    a face with a colour it lacks, drawn after a change without remaking it, fails here."""
    from PIL import ImageChops, ImageStat

    from bot.pictures import tiles
    from bot.pictures.faces import INK, Mark, card_face, chip_face, die_face
    from game.cards import ALL_CARDS, PLAIN_VALUES

    faces = [card_face(c, m) for c in ALL_CARDS for m in Mark]
    faces += [die_face(c, m) for c in PLAIN_VALUES for m in Mark]
    faces += [chip_face(k) for k in tiles.CHIPS]
    errors = []
    for face in faces:
        alpha = face.getchannel("A")
        drawn = Image.new("RGB", face.size, INK)
        drawn.paste(face, mask=alpha)
        shown = tiles.tile(face).convert("RGB")
        errors.append(max(ImageStat.Stat(ImageChops.difference(drawn, shown), mask=alpha).mean))
        assert errors[-1] < 8, errors[-1]  # soft edges move a little; a missing colour, far
        counts = Counter(zip(pixels(drawn), pixels(shown), pixels(alpha), strict=True))
        (colour, as_shown, _), _ = max(((k, n) for k, n in counts.items() if k[2] == 255),
                                       key=lambda kn: kn[1])
        assert close(colour, as_shown, tolerance=6), (colour, as_shown)
    assert sum(errors) / len(errors) < 2
