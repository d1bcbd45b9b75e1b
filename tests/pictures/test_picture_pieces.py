"""Hands and racks joined from pieces (bot/pictures/pieces.py) decode to exactly the pixels,
palette and transparency of the straightforward encoder (the tiles pasted, zlib over the
scanlines: compose.palette_png), for seeded random hands and racks of every shape."""

from __future__ import annotations

import io
import random
import struct
import zlib

import pytest
from PIL import Image

from bot.pictures import compose, pieces, tiles
from game import player_view
from game.cards import ALL_CARDS, PLAIN_VALUES
from game.game import Game

CHIPS = ("white", "black", "token")


def decoded(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()  # (decodes every scanline: a bad stream raises here)
    return image


def idat(data: bytes) -> bytes:
    """The IDAT chunk's data, its CRC checked."""
    at = data.index(b"IDAT") - 4
    (length,) = struct.unpack(">I", data[at:at + 4])
    body = data[at + 8:at + 8 + length]
    (crc,) = struct.unpack(">I", data[at + 8 + length:at + 12 + length])
    assert zlib.crc32(b"IDAT" + body) == crc
    return body


def assert_same(ours: bytes, reference: Image.Image) -> None:
    """``ours`` decodes to ``reference``'s pixels, palette and transparency, and zlib
    checks its stream (the Adler-32 summed from the cells) against the scanlines."""
    straight = compose.palette_png(reference)
    assert ours != straight  # (really written from pieces, not by zlib)
    got, want = decoded(ours), decoded(straight)
    assert got.mode == want.mode == "P"
    assert got.size == want.size == reference.size
    assert got.tobytes() == want.tobytes() == reference.tobytes()
    assert got.getpalette() == want.getpalette()
    assert got.info.get("transparency") == want.info.get("transparency")
    scanlines = zlib.decompress(idat(ours))  # raises on a wrong Adler-32
    assert scanlines == zlib.decompress(idat(straight))


def random_hand(rng: random.Random, size: int) -> tuple[tuple[str, ...], frozenset[str] | None,
                                                       tuple[str, ...]]:
    tokens = tuple(rng.choice(ALL_CARDS).token for _ in range(size))
    playable = rng.choice([None, frozenset(rng.sample(tokens, min(size, rng.randint(0, 4))))])
    chips = tuple(rng.choice(CHIPS) for _ in range(rng.choice([0, 0, 1, 2, 5, 16])))
    return tokens, playable, chips


@pytest.mark.parametrize("size", [0, 1, 2, 7, 8, 9, 15, 16, 17, 23])
def test_hands_of_every_size_decode_to_the_pasted_tiles(size: int) -> None:
    """Single rows, full rows, wrapped rows with a partial last row; no mark, some framed
    and the rest veiled; chips strips narrower and wider than the cards."""
    rng = random.Random(f"pieces:{size}")
    for _ in range(12):
        tokens, playable, chips = random_hand(rng, size)
        ours = compose._hand_png.__wrapped__(tokens, playable, chips)
        assert_same(ours, compose._hand_image(tokens, playable, chips))


def test_every_card_in_every_mark_and_position_decodes_exactly() -> None:
    marks = {"none": None, "all framed": frozenset(c.token for c in ALL_CARDS),
             "all veiled": frozenset()}
    tokens = tuple(c.token for c in ALL_CARDS)
    for playable in marks.values():
        for start in range(0, len(tokens), 5):  # each card first, inside and last in a row
            hand = tokens[start:] + tokens[:start]
            assert_same(compose._hand_png.__wrapped__(hand, playable, ()),
                        compose._hand_image(hand, playable, ()))


def test_dice_racks_with_rolls_decode_to_the_pasted_tiles() -> None:
    rng = random.Random("pieces:dice")
    values = [c.token for c in PLAIN_VALUES]
    for _ in range(60):
        faces = tuple(rng.choice(values) for _ in range(rng.randint(0, 12)))
        roll = tuple(rng.choice(values) for _ in range(rng.choice([0, 1, 3, 6, 9])))
        playable = rng.choice([None, frozenset(rng.sample(faces, min(len(faces), 2)))])
        matching = frozenset(rng.sample(roll, min(len(roll), 2)))
        ours = compose._dice_png.__wrapped__(faces, roll, playable, matching)
        assert_same(ours, compose._dice_image(faces, roll, playable, matching))


def test_a_picture_pieces_cannot_write_falls_back_to_zlib() -> None:
    """A cell with a colour the code has no literal for, or a picture too wide to copy
    from two rows above, is left to zlib (png_idat answers None)."""
    code = compose._code()
    assert code is not None
    missing = next(i for i in range(256) if i not in code.literals)
    odd = pieces.Cell(2, 2, bytes([missing, 1, 2, 3]))
    assert pieces.png_idat(code, 2, [pieces.Row((odd,), 8)]) is None
    card = compose._cell(("card", ALL_CARDS[0], compose.Mark.NONE), 84, 120)
    assert pieces.png_idat(code, 84, [pieces.Row((card,), 8)]) is not None
    too_wide = pieces.MAX_STRIDE + 10
    assert pieces.png_idat(code, too_wide, [pieces.Row((card,), 8)]) is None
    chips = ("white",) * 60  # a strip of 60 chips: 2,872 pixels wide
    ours = compose._hand_png.__wrapped__((), None, chips)
    assert ours == compose.palette_png(compose._hand_image((), None, chips))


def test_the_code_covers_every_colour_of_the_faces_and_fits_deflate() -> None:
    """Every palette index a tile uses has an 8-bit literal; the header's code lengths are
    a complete prefix code (inflaters refuse others), seen by decoding a clear picture."""
    tiles.warm()
    code = compose._code()
    assert code is not None
    assert tiles.face_indices() <= code.literals
    assert len(set(code.literal[i] for i in code.literals)) == len(code.literals)
    for width, rows in ((1, 1), (64, 64), (500, 3)):
        stream = pieces.png_idat(code, width, [pieces.Blank(rows)])
        assert stream is not None
        assert zlib.decompress(stream) == (b"\x00" + bytes([tiles.CLEAR]) * width) * rows


def test_pictures_from_pieces_stay_near_zlibs_size() -> None:
    """Dealt hands (classic and Kadabra, with and without framed cards) from pieces weigh
    at most 1.5 times what zlib level 1 makes of them, all together (about 1.3 measured;
    any one at most 1.7)."""
    ours = straight = 0
    for variant in ("classic", "kadabra"):
        for seed in range(4):
            game = Game(variant, ["a", "b", "c", "d"], seed=f"pieces:{seed}")
            for seat in range(4):
                hand = tuple(c.token for c in player_view(game, seat).hand)
                for playable in (None, frozenset(hand[:2])):
                    mine = len(compose._hand_png.__wrapped__(hand, playable, ()))
                    theirs = len(compose.palette_png(compose._hand_image(hand, playable, ())))
                    assert mine < 1.7 * theirs, (variant, hand)
                    ours, straight = ours + mine, straight + theirs
    assert ours < 1.5 * straight


def test_after_the_warm_up_a_hand_or_rack_only_joins_pieces() -> None:
    """compose.warm (python -m bot's warm-up) cuts every tile in the cells pictures use,
    with a gap or nothing after: a hand of full rows, framed or not, and a rack's row then
    cut nothing new, nor does a row shorter than the picture (a hand's last, the chips): its
    clear margin is a run of its own, not a cut of the cell with that margin."""
    compose.warm()
    cut = pieces._segment.cache_info().misses
    hand = tuple(c.token for c in ALL_CARDS[:6])
    for playable in (None, frozenset(hand[:2])):
        compose._hand_png.__wrapped__(hand, playable, ())
    values = tuple(c.token for c in PLAIN_VALUES)
    compose._dice_png.__wrapped__(values, (), frozenset(values[:2]), frozenset())
    compose._dice_png.__wrapped__((), values[:4], None, frozenset(values[:1]))
    compose._hand_png.__wrapped__(hand, None, ("white",) * 3)  # (a narrower strip: a margin)
    compose._hand_png.__wrapped__(tuple(c.token for c in ALL_CARDS[:11]), None, ())
    for playable in (None, frozenset(hand[:1])):  # one card, its row 4 px short of the chips'
        ours = compose._hand_png.__wrapped__(hand[:1], playable, ("white", "token"))
        assert_same(ours, compose._hand_image(hand[:1], playable, ("white", "token")))
    assert pieces._segment.cache_info().misses == cut
