"""The suite's longest tests start first, one per worker (pytest-xdist's ``--dist worksteal``).

Work stealing splits the collection into one contiguous share per worker and lets an idle
worker take the second half of the longest queue. A test of 40 s near the end of the
collection (the sandbox's and the screenshots' come late in alphabetical order) was stolen
last and started when the others were nearly done, so the run waited for it alone. Here the
tests named in ``LONG`` are dealt out first, longest first, each to the worker with the least
long work so far, at the head of its queue; the rest follow in collection order, split evenly,
and are stolen as before (from the tail: never a long test that is about to start).

``LONG`` holds rough seconds, measured with ``--durations`` on two busy cores; a name that no
longer matches only loses its place at the front. It changes when tests run, never what they
do or whether they pass.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdist.scheduler import WorkStealingScheduling

LONG: dict[str, float] = {
    # node id, or its start (a file, a test with all its parameters): rough seconds
    "tests/sandbox/test_page_screenshots.py": 45,
    "tests/bot/test_cluster.py::test_two_processes_one_killed_mid_round": 55,
    "tests/bot/test_outbox.py::test_killed_between_a_commit_and_its_messages": 50,
    "tests/sandbox/test_page.py::test_a_game_with_two_members_and_an_ai": 35,
    "tests/bot/test_load_smoke.py::test_json_has_every_figure": 30,
    "tests/bot/test_load_smoke.py::test_the_table_prints_a_run": 25,
    "tests/bot/test_idle_memory.py::test_a_thousand_waiting_relaxed_games": 30,
    "tests/game_ai/test_players.py::test_ais_only_choose_legal_actions[heuristic-dice]": 15,
    "tests/bot/test_games.py::test_whole_game[classic": 28,
    "tests/bot/test_startup_faults.py::test_a_database_in_a_read_only_folder": 25,
    "tests/bot/test_startup_faults.py::test_a_read_only_wal_database_with_its_logs": 20,
    "tests/bot/test_startup_faults.py::test_not_a_database": 14,
    "tests/bot/test_startup_faults.py::test_a_read_only_wal_database": 12,
    "tests/bot/test_startup_faults.py::test_a_read_only_database": 12,
    "tests/bot/test_restart.py::test_a_deleted_table_is_posted_again": 22,
    "tests/bot/test_flow.py::test_kadabra_gift_select": 22,
    "tests/bot/test_transcript_screenshot.py": 20,
    "tests/bot/test_kill.py": 18,
    "tests/bot/test_backup.py::test_a_backup_taken_mid_game": 16,
    "tests/bot/test_faults.py::test_a_stuck_store_still_answers_in_time": 15,
    "tests/bot/test_kill_random.py": 13,
    "tests/bot/test_ladder_restart.py": 13,
    "tests/bot/test_log_redaction.py::test_no_token_in_a_debug_log": 12,
    "tests/bot/test_round_summary.py::test_through_discord": 12,
    "tests/bot/test_fragments_static.py::test_no_call_site_passes": 11,
    "tests/bot/test_relaxed_days.py": 11,
    "tests/bot/test_races.py::test_concurrent_rematches": 11,
}


def weight(nodeid: str) -> float:
    """The rough seconds of the longest entry of ``LONG`` that ``nodeid`` starts with; else 0."""
    found = [key for key in LONG if nodeid.startswith(key)]
    return LONG[max(found, key=len)] if found else 0.0


def plan(collection: Sequence[str], workers: int) -> list[list[int]]:
    """Each worker's first queue (indices into ``collection``): its long tests, longest first,
    then an even share of the rest in collection order."""
    weights = [weight(nodeid) for nodeid in collection]
    queues: list[list[int]] = [[] for _ in range(workers)]
    loads = [0.0] * workers
    for index in sorted((i for i, w in enumerate(weights) if w), key=lambda i: -weights[i]):
        least = min(range(workers), key=loads.__getitem__)
        queues[least].append(index)
        loads[least] += weights[index]
    rest = [i for i, w in enumerate(weights) if not w]
    for k, queue in enumerate(queues):
        queue.extend(rest[k * len(rest) // workers:(k + 1) * len(rest) // workers])
    return queues


class LongestFirst(WorkStealingScheduling):
    """Work stealing whose first distribution is ``plan``'s; stealing is unchanged."""

    def schedule(self) -> None:
        if (self.collection is None and self.collection_is_completed
                and self._check_nodes_have_same_collection()):
            collection = next(iter(self.node2collection.values()))
            if collection:
                self.collection = collection
                for node, queue in zip(self.nodes, plan(collection, len(self.nodes)),
                                       strict=True):
                    if queue:
                        self.node2pending[node].extend(queue)
                        node.send_runtest_some(queue)
                self.check_schedule()  # a worker left with under two tests steals or stops
                return
        super().schedule()
