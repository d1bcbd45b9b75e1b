"""Readable rule summaries for ``/lama rules`` (msgids; RULES.md is the reference)."""

from __future__ import annotations

from bot.i18n import N_

RULES: dict[str, tuple[str, ...]] = {
    "classic": (
        N_("Get rid of your cards. On your turn, play a card of the same value as the top card "
           "or one higher (1 → 2 → … → 6 → 🦙 → 1), draw a card, or quit the round."),
        N_("The round ends when someone plays their last card or everyone has quit. Cards "
           "left in hand score their distinct values once; llamas together score 10."),
        N_("Emptying your hand returns one of your chips (a black one if you have it). The "
           "game ends when someone reaches the target; fewest points wins."),
    ),
    "kadabra": (
        N_("Like L.L.A.M.A., with magic. Double cards (2/3, 4/5) count as both values. "
           "Every player starts with 3 white chips."),
        N_("A 1 gives one of your chips to a player of your choice. A ➕ card makes the next "
           "player draw. A ⭐ card takes the magic token 🎩."),
        N_("Playing a 🦙 puts one of your chips on the magic stage; from 5 chips on, the "
           "magic show is on: play a 🦙, skip with the token, or take the stage."),
        N_("The token's holder may skip a turn by giving it back; holding it at the end of "
           "a round costs 10 points."),
    ),
    "dice": (
        N_("Your six tiles lie face up. On your turn, roll the three dice or quit."),
        N_("If dice match your tiles, discard up to one tile per matching die. Otherwise take "
           "one matching tile from the llama row; if nothing matches, take the whole row and "
           "the round ends. Three 🦙 cost you a chip."),
        N_("Scoring is as in L.L.A.M.A.; fewest points wins."),
    ),
    "tutorial": (
        N_("House rules without chips. Play a card at least as high as the top card (🦙 "
           "counts 8 and goes on anything), draw a card, or stop the round."),
        N_("A drawn card you can play may be played at once, or kept (Pass)."),
        N_("Each round scores minus the cards in your hand (🦙 = 10); stopping on a 🦙 "
           "scores +1. After the last round, the highest total wins."),
    ),
}
