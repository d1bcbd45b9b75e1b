"""Pictures of cards, dice and scores (Pillow and matplotlib), drawn without words.

Everything here takes plain values a player may see (their own cards, the public
table, final totals) and returns PNG bytes; callers render outside the event loop.

May import: nothing of bot/ (Pillow and matplotlib only).
"""

from __future__ import annotations

from bot.pictures.compose import dice_picture, emoji_picture, hand_picture

__all__ = ["dice_picture", "emoji_picture", "hand_picture"]
