"""Per-call CPU of small parts every move runs: translated texts, the filled-text cache's
drop, the click's check against the clicked message, the store's byte count, the legend.

Prints numbers and asserts nothing. Run it against another tree with ``PYTHONPATH`` at
that tree (docs/performance.md compares main and a branch this way)::

    python benchmarks/move_parts.py
    PYTHONPATH=/path/to/main python /path/to/main/benchmarks/move_parts.py
"""

from __future__ import annotations

import os
import sys
import time
import timeit
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace as Node

if not os.environ.get("PYTHONPATH"):  # (else the tree it names)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.process.clicks import drawn_on
from bot.store.sql import size
from bot.words.i18n import FILLED_KEPT, translator
from cogs.hand_view import legend_line


def best(work: Callable[[], object], number: int = 20_000) -> float:
    """µs per call, the best of five."""
    return min(timeit.repeat(work, number=number, repeat=5)) / number * 1e6


def hand_message() -> Node:
    """A hand's V2 layout as discord.py parses it: text, a section, three rows of buttons."""
    def button(i: int) -> Node:
        return Node(type=Node(value=2), custom_id=f"lama:act:3f2a9c1b:12:{i}")
    rows = [Node(type=Node(value=1), children=[button(i + 5 * r) for i in range(5)])
            for r in range(3)]
    section = Node(type=Node(value=9), children=[Node(type=Node(value=10))],
                   accessory=Node(type=Node(value=11)))
    text = Node(type=Node(value=10))
    card = Node(type=Node(value=17), children=[text, section, text, text, *rows])
    return Node(components=[card])


def filled_misses(tr: Callable[..., str], calls: int = 50_000) -> float:
    """µs per filled text that misses the full cache (so its oldest entry is dropped)."""
    for n in range(FILLED_KEPT * 3):
        tr("{n} thing", n=n)
    n, times = FILLED_KEPT * 3, []
    for _ in range(5):
        start = time.process_time()
        for _ in range(calls):
            tr("{n} thing", n=n)
            n += 1
        times.append((time.process_time() - start) / calls * 1e6)
    return min(times)


def main() -> None:
    print(f"the code of {Path(sys.modules['bot'].__file__ or '').parent.parent}")
    tr = translator("en")
    message, params = hand_message(), (1, 10 ** 17, 2, "play 3", '{"version": 12}')
    print(f"a plain text             {best(lambda: tr('**Your turn.**')):6.2f} µs")
    print(f"a filled text (kept)     "
          f"{best(lambda: tr('Your hand: {cards}', cards='<:a:1> <:b:2>')):6.2f} µs")
    print(f"a filled text, missed    {filled_misses(tr):6.2f} µs  (the oldest dropped)")
    print(f"the click's check        "
          f"{best(lambda: drawn_on(message, 'lama:act:3f2a9c1b:12:12', 2)):6.2f} µs")
    print(f"size() of a statement    {best(lambda: size(params)):6.2f} µs")
    print(f"legend_line, nothing new {best(lambda: legend_line(tr, ())):6.2f} µs")


if __name__ == "__main__":
    main()
