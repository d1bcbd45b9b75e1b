"""Where the play answers' time went (``bot_load.py --trace``): the stamps of both sides
(benchmarks/load/answer_trace.py) joined by interaction id, segment by segment, with both
event loops' lag, their garbage collections and their waits for a core."""

from __future__ import annotations

import bisect
from typing import Any

from benchmarks.load.answer_trace import HarnessTrace


def waited_between(sched: list[Any], start: float, end: float) -> float:
    """Seconds the probed thread waited for a core between ``start`` and ``end`` (from the
    probe's samples around them)."""
    if not sched:
        return 0.0
    times = [s[0] for s in sched]
    i = max(0, bisect.bisect_right(times, start) - 1)
    j = min(len(sched) - 1, bisect.bisect_left(times, end))
    return max(0.0, sched[j][2] - sched[i][2])


SEGMENTS = (  # (name, from, to): in the order an answer travels
    ("fake: click to frame queued", "click", "queued"),
    ("fake: frame queued to written", "queued", "written"),
    ("wire + bot loop: frame read", "written", "frame"),
    ("bot: parse + build Interaction", "frame", "parse"),
    ("bot: item routed, handler task runs", "parse", "handler"),
    ("bot: action task starts", "handler", "act"),
    ("bot: session lock wait", "act", "locked"),
    ("bot: engine + compose", "locked", "write"),
    ("bot: store: to the transaction (0 on the loop)", "write", "db_start"),
    ("bot: store: statements + commit", "db_start", "db_end"),
    ("bot: store: back to the action", "db_end", "stored"),
    ("bot: after the write", "stored", "acted"),
    ("bot: render (hand; answering lock)", "acted", "post"),
    ("bot: handler to answer (no action)", "handler", "post"),
    ("wire + fake loop: answer reaches the fake", "post", "fake_cb"),
    ("fake: answer to the player resumed", "fake_cb", "resumed"),
)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def by_window(joined: list[tuple[float, dict[str, float]]], since: float,
              width: float = 10.0) -> list[float]:
    """p99 of the answers clicked in each ``width`` seconds after ``since``: a backlog the
    burst left shows as a slower first window."""
    windows: dict[int, list[float]] = {}
    for took, s in joined:
        windows.setdefault(int((s["click"] - since) // width), []).append(took)
    return [round(1000 * _pct(windows.get(i, []), 0.99), 1)
            for i in range(max(windows, default=-1) + 1)]


def decompose(bot: dict[str, Any], harness: HarnessTrace, since: float,
              until: float = float("inf")) -> dict[str, Any]:
    """The play answers' time, segment by segment: p50/p99 of each, and what the slowest 1%
    spent where (their mean per segment); plus both loops' lag and their collections, from
    ``since`` (perf_counter: the burst's end) to ``until`` (the measured window's end)."""
    joined: list[tuple[float, dict[str, float]]] = []
    for iid, took in harness.play:
        mine = dict(harness.stamps.get(iid, {}))
        theirs = bot["stamps"].get(str(iid), {})
        if mine.get("click", 0) < since or not theirs:
            continue
        joined.append((took, {**theirs, **mine}))
    joined.sort(key=lambda j: j[0])
    tail = joined[int(0.99 * len(joined)):] if joined else []
    rows = []
    for name, a, b in SEGMENTS:
        if b == "post" and a == "handler":
            values = [s[b] - s[a] for _, s in joined if a in s and b in s and "act" not in s]
            slow = [s[b] - s[a] for _, s in tail if a in s and b in s and "act" not in s]
        else:
            values = [s[b] - s[a] for _, s in joined if a in s and b in s]
            slow = [s[b] - s[a] for _, s in tail if a in s and b in s]
        if values:
            rows.append({"segment": name, "n": len(values),
                         "p50_ms": round(1000 * _pct(values, 0.5), 2),
                         "p99_ms": round(1000 * _pct(values, 0.99), 1),
                         "max_ms": round(1000 * max(values), 1),
                         "slowest_1pct_mean_ms": round(1000 * sum(slow) / len(slow), 1)
                         if slow else None})
    bot_side = [s["post"] - s["frame"] for _, s in joined if "post" in s and "frame" in s]
    bot_sched = bot.get("sched", [])

    def machine(answers: list[tuple[float, dict[str, float]]]) -> dict[str, float]:
        """Mean ms the bot's loop thread (frame read to answer posted) and the harness's
        (click to resumed) waited for a core during these answers."""
        spans = [(waited_between(bot_sched, s["frame"], s["post"]),
                  waited_between(harness.sched, s["click"], s["resumed"]))
                 for _, s in answers if {"frame", "post", "click", "resumed"} <= s.keys()]
        if not spans:
            return {}
        return {"bot_waited_for_core_ms": round(1000 * sum(b for b, _ in spans) / len(spans), 1),
                "harness_waited_for_core_ms": round(1000 * sum(h for _, h in spans)
                                                    / len(spans), 1)}

    ends = [t for t, _ in joined]

    def loop(lags: list[Any], pauses: list[Any]) -> dict[str, Any]:
        lags = [lag for t, lag in lags if since <= t < until]
        pauses = [p for p in pauses if since <= p[0] < until]
        full_cpu = [p[3] for p in pauses if p[1] == 2 and len(p) > 3]
        all_cpu = sum(p[3] for p in pauses if len(p) > 3)
        by_generation = [0.0, 0.0, 0.0]  # CPU in collections of each generation
        for p in pauses:
            if len(p) > 3:
                by_generation[p[1]] += p[3]
        pauses = [(p[1], p[2]) for p in pauses]
        full = [d for gen, d in pauses if gen == 2]
        return {"lag_over_1ms": len(lags), "lag_p99_ms": round(1000 * _pct(lags, 0.99), 1),
                "lag_max_ms": round(1000 * max(lags, default=0), 1),
                "lags_over_50ms": sum(lag > 0.05 for lag in lags),
                "gc_collections": len(pauses), "gc_gen2": len(full),
                "gc_gen2_max_ms": round(1000 * max(full, default=0), 1),
                "gc_gen2_cpu_max_ms": round(1000 * max(full_cpu, default=0), 1),
                "gc_max_ms": round(1000 * max((d for _, d in pauses), default=0), 1),
                "gc_total_ms": round(1000 * sum(d for _, d in pauses)),
                "gc_total_cpu_ms": round(1000 * all_cpu),
                "gc_cpu_ms_by_generation": [round(1000 * c) for c in by_generation]}

    waits = [w for w in bot["waits"] if w[2] > 0]
    holds: dict[str, list[tuple[float, int]]] = {}
    for t, what, held, hopped in bot.get("holds", []):
        if t >= since:
            holds.setdefault(what, []).append((held, hopped))
    hops = [h for h in bot.get("hops", []) if h[0] >= since]

    def hop_part(i: int) -> str:
        values = [h[i] for h in hops]
        return f"p50 {1000 * _pct(values, 0.5):.2f} p99 {1000 * _pct(values, 0.99):.1f}"

    return {
        "answers_joined": len(joined),
        "end_to_end_p50_ms": round(1000 * _pct(ends, 0.5), 1),
        "end_to_end_p99_ms": round(1000 * _pct(ends, 0.99), 1),
        "bot_side_p50_ms": round(1000 * _pct(bot_side, 0.5), 1),
        "bot_side_p99_ms": round(1000 * _pct(bot_side, 0.99), 1),
        "bot_side_max_ms": round(1000 * max(bot_side, default=0), 1),
        "end_to_end_p99_ms_by_10s_after_burst": by_window(joined, since),
        "budget_waits_before_answer": len(waits),
        "bot_gc_frozen_objects": bot.get("gc_frozen"),
        "bot_gc": {"enabled": bot.get("gc_enabled"), "threshold": bot.get("gc_threshold")},
        "bot_heap_at_end": bot.get("heap_at_end"),
        "slowest_1pct": {"mean_ms": round(1000 * sum(t for t, _ in tail) / max(len(tail), 1), 1),
                         "bot_side_mean_ms": round(1000 * sum(
                             s["post"] - s["frame"] for _, s in tail
                             if "post" in s and "frame" in s) / max(len(tail), 1), 1),
                         **machine(tail)},
        "all_answers": machine(joined),
        "segments": rows,
        "store_transactions": {what: f"{len(v)}x, p50 {1000 * _pct([h for h, _ in v], 0.5):.1f} "
                            f"p99 {1000 * _pct([h for h, _ in v], 0.99):.1f} max "
                            f"{1000 * max(h for h, _ in v):.1f} ms"
                            for what, v in sorted(holds.items())},
        "store_hops": (f"{len(hops)}: to the thread {hop_part(1)}, in SQLite {hop_part(2)}, "
                       f"back on the loop {hop_part(3)} ms"),
        "bot_loop": loop(bot["lags"], bot["gc"]),
        "harness_loop": loop(harness.lags, harness.gc.pauses),
    }
