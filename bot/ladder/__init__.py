"""The ladder's arithmetic: a finished game's places and the skill ratings they move, as
plain values (no SQL, no Discord).

May import: bot.common and the game engine.
"""
