"""One request per Discord rule: the broken one gets Discord's answer, the fixed one passes.

``path`` may be ``"bad|good"`` when the fix is in the path. ``expect`` is ``(status, code)``
for a refusal (50035 must carry Discord's ``errors`` tree) or ``"lint"`` for what Discord
silently ignores.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from fakediscord.messages import EPHEMERAL, IS_COMPONENTS_V2
from tests.fake.rawclient import Env, env

__all__ = ["env"]

CMDS = "/applications/{app}/commands"
MSGS = "/channels/{channel}/messages"


def opt(**over: Any) -> dict[str, Any]:
    base = {"type": 4, "name": "target", "description": "Points", "min_value": 1, "max_value": 500}
    return {**base, **over}


def cmd(**over: Any) -> list[dict[str, Any]]:
    return [{"name": "lama", "description": "Play L.A.M.A.", "options": [opt()], **over}]


def choices(n: int, **over: Any) -> dict[str, Any]:
    return opt(
        type=3,
        min_value=None,
        max_value=None,
        choices=[{"name": f"c{i}", "value": f"v{i}", **over} for i in range(n)],
    )


def text(**over: Any) -> dict[str, Any]:
    return opt(type=3, min_value=None, max_value=None, **over)


def strs(n: int) -> list[dict[str, Any]]:
    return [text(name=f"o{i}") for i in range(n)]


def row(*components: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"type": 1, "components": list(components)}]


def button(**over: Any) -> dict[str, Any]:
    return {"type": 2, "style": 1, "custom_id": "b", "label": "Go", **over}


def select(options: list[dict[str, Any]], **over: Any) -> dict[str, Any]:
    return {"type": 3, "custom_id": "s", "options": options, **over}


def embed(**over: Any) -> dict[str, Any]:
    return {"content": "x", "embeds": [{"title": "t", **over}]}


def modal(**text_input: Any) -> dict[str, Any]:
    field = {"type": 4, "custom_id": "f", "style": 1, "label": "Name", **text_input}
    data = {"custom_id": "m", "title": "Who", "components": row(field)}
    return {"type": 9, "data": data}


V2 = IS_COMPONENTS_V2


def texts(n: int, text: str = "t") -> list[dict[str, Any]]:
    return [{"type": 10, "content": text} for _ in range(n)]


def container(*children: dict[str, Any]) -> dict[str, Any]:
    return {"type": 17, "components": list(children)}


THUMB = {"type": 11, "media": {"url": "https://lama.invalid/lama.png"}}


def section(n: int, accessory: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": 9, "components": texts(n), "accessory": accessory or button()}


def gallery(n: int) -> dict[str, Any]:
    return {"type": 12, "items": [{"media": {"url": f"https://lama.invalid/{i}.png"}}
                                  for i in range(n)]}


def v2(*children: dict[str, Any], **over: Any) -> dict[str, Any]:
    """A V2 message body: one container (holding ``children``, else one text display)."""
    return {"flags": V2, "components": [container(*(children or texts(1)))], **over}


CASES: list[tuple[str, str, str, Any, Any, Any]] = [
    # --- application commands, at sync ----------------------------------------------------
    ("cmd-upper", "PUT", CMDS, cmd(name="Lama"), cmd(name="lama"), (400, 50035)),
    ("cmd-space", "PUT", CMDS, cmd(name="la ma"), cmd(name="la-ma"), (400, 50035)),
    ("cmd-long", "PUT", CMDS, cmd(name="l" * 33), cmd(name="l" * 32), (400, 50035)),
    ("cmd-deva", "PUT", CMDS, cmd(name="खेल!"), cmd(name="खेल"), (400, 50035)),
    ("cmd-thai", "PUT", CMDS, cmd(name="เกม?"), cmd(name="เกม"), (400, 50035)),
    ("cmd-unicode", "PUT", CMDS, cmd(name="Ĳeu"), cmd(name="jeu_élan'"), (400, 50035)),
    ("cmd-desc-empty", "PUT", CMDS, cmd(description=""), cmd(description="d"), (400, 50035)),
    ("cmd-desc-long", "PUT", CMDS, cmd(description="d" * 101), cmd(description="d" * 100),
     (400, 50035)),
    ("cmd-locale", "PUT", CMDS, cmd(name_localizations={"fa": "lama"}),
     cmd(name_localizations={"fr": "lama"}), (400, 50035)),
    ("cmd-locale-name", "PUT", CMDS, cmd(name_localizations={"de": "Lama"}),
     cmd(name_localizations={"de": "lama"}), (400, 50035)),
    ("cmd-locale-desc", "PUT", CMDS, cmd(description_localizations={"fr": "d" * 101}),
     cmd(description_localizations={"fr": "jouer"}), (400, 50035)),
    ("cmd-dup", "PUT", CMDS, cmd() + cmd(), cmd(), (400, 50035)),
    ("cmd-count", "PUT", CMDS, [cmd(name=f"c{i}")[0] for i in range(101)],
     [cmd(name=f"c{i}")[0] for i in range(100)], (400, 50035)),
    ("opt-count", "PUT", CMDS, cmd(options=strs(26)), cmd(options=strs(25)), (400, 50035)),
    ("opt-order", "PUT", CMDS, cmd(options=[opt(), opt(name="need", required=True)]),
     cmd(options=[opt(name="need", required=True), opt()]), (400, 50035)),
    ("opt-dup", "PUT", CMDS, cmd(options=[opt(), opt()]), cmd(options=[opt(), opt(name="b")]),
     (400, 50035)),
    ("opt-type", "PUT", CMDS, cmd(options=[opt(type=12)]), cmd(options=[opt(type=4)]),
     (400, 50035)),
    ("opt-name", "PUT", CMDS, cmd(options=[opt(name="Target")]), cmd(options=[opt()]),
     (400, 50035)),
    ("opt-bound-type", "PUT", CMDS, cmd(options=[opt(type=3)]), cmd(options=[text()]),
     (400, 50035)),
    ("opt-length", "PUT", CMDS, cmd(options=[text(max_length=6001)]),
     cmd(options=[text(max_length=6000)]), (400, 50035)),
    ("choice-count", "PUT", CMDS, cmd(options=[choices(26)]), cmd(options=[choices(25)]),
     (400, 50035)),
    ("choice-name", "PUT", CMDS, cmd(options=[choices(1, name="n" * 101)]),
     cmd(options=[choices(1, name="n" * 100)]), (400, 50035)),
    ("choice-value", "PUT", CMDS, cmd(options=[choices(1, value="v" * 101)]),
     cmd(options=[choices(1, value="v" * 100)]), (400, 50035)),
    ("cmd-unknown-field", "PUT", CMDS, cmd(descripton="x"), cmd(), "lint"),
    # --- message values ---------------------------------------------------------------------
    ("color-range", "POST", MSGS, embed(color=0x1000000), embed(color=0xFFFFFF), (400, 50035)),
    ("color-type", "POST", MSGS, embed(color="red"), embed(color=0xFF0000), (400, 50035)),
    ("embed-url", "POST", MSGS, embed(url="lama"), embed(url="https://lama.invalid/"),
     (400, 50035)),
    ("timestamp", "POST", MSGS, embed(timestamp="yesterday"),
     embed(timestamp="2026-11-30T10:00:00+00:00"), (400, 50035)),
    ("inline", "POST", MSGS, embed(fields=[{"name": "n", "value": "v", "inline": "yes"}]),
     embed(fields=[{"name": "n", "value": "v", "inline": True}]), (400, 50035)),
    ("disabled", "POST", MSGS, {"content": "x", "components": row(button(disabled="no"))},
     {"content": "x", "components": row(button(disabled=False))}, (400, 50035)),
    ("emoji-name", "POST", MSGS, {"content": "x", "components": row(button(emoji={}))},
     {"content": "x", "components": row(button(emoji={"name": "🦙"}))}, (400, 50035)),
    ("mentions-parse", "POST", MSGS, {"content": "x", "allowed_mentions": {"parse": ["all"]}},
     {"content": "x", "allowed_mentions": {"parse": ["users"]}}, (400, 50035)),
    ("mentions-exclusive", "POST", MSGS,
     {"content": "x", "allowed_mentions": {"parse": ["users"], "users": ["1"]}},
     {"content": "x", "allowed_mentions": {"parse": [], "users": ["1"]}}, (400, 50035)),
    ("mentions-100", "POST", MSGS,
     {"content": "x", "allowed_mentions": {"users": [str(i) for i in range(101)]}},
     {"content": "x", "allowed_mentions": {"users": [str(i) for i in range(100)]}},
     (400, 50035)),
    ("button-url", "POST", MSGS,
     {"content": "x", "components": row(button(url="https://lama.invalid/"))},
     {"content": "x", "components": row({"type": 2, "style": 5, "label": "Rules",
                                          "url": "https://lama.invalid/"})}, (400, 50035)),
    ("option-label", "POST", MSGS,
     {"content": "x", "components": row(select([{"label": "", "value": "a"}]))},
     {"content": "x", "components": row(select([{"label": "A", "value": "a"}]))}, (400, 50035)),
    ("select-id", "POST", MSGS,
     {"content": "x", "components": row(select([{"label": "A", "value": "a"}], custom_id=""))},
     {"content": "x", "components": row(select([{"label": "A", "value": "a"}]))}, (400, 50035)),
    ("flags-string", "POST", MSGS, {"content": "x", "flags": "4"}, {"content": "x", "flags": 4},
     (400, 50035)),
    ("flags-unknown", "POST", MSGS, {"content": "x", "flags": 1 << 20},
     {"content": "x", "flags": 4}, (400, 50035)),
    ("nonce-long", "POST", MSGS, {"content": "x", "nonce": "n" * 26},
     {"content": "x", "nonce": "n" * 25}, (400, 50035)),
    ("history-limit", "GET", MSGS + "?limit=101|" + MSGS + "?limit=100", None, None,
     (400, 50035)),
    # --- Components V2 -------------------------------------------------------------------------
    ("v2-content", "POST", MSGS, v2(content="x"), v2(), (400, 50035)),
    ("v2-embeds", "POST", MSGS, v2(embeds=[{"title": "t"}]), v2(embeds=[]), (400, 50035)),
    ("v2-poll", "POST", MSGS, v2(poll={"question": {"text": "?"}, "answers": []}), v2(),
     (400, 50035)),
    ("v2-stickers", "POST", MSGS, v2(sticker_ids=["1"]), v2(sticker_ids=[]), (400, 50035)),
    ("v2-40-components", "POST", MSGS, v2(*texts(40)), v2(*texts(39)), (400, 50035)),
    ("v2-4000-characters", "POST", MSGS, v2(*texts(4, "x" * 1000), texts(1, "y")[0]),
     v2(*texts(4, "x" * 1000)), (400, 50035)),
    ("v2-without-flag", "POST", MSGS, {"components": [container(*texts(1))]},
     v2(*texts(1)), (400, 50035)),
    ("v2-followup-content", "POST", "/{followup}", v2(content="x"), v2(), (400, 50035)),
    ("v2-answer-content", "POST", "/{callback}", {"type": 4, "data": v2(content="x")},
     {"type": 4, "data": v2()}, (400, 50035)),
    ("v2-section-texts", "POST", MSGS, v2(section(4)), v2(section(3)), (400, 50035)),
    ("v2-section-accessory", "POST", MSGS, v2(section(1, accessory=texts(1)[0])),
     v2(section(1, accessory=THUMB)), (400, 50035)),
    ("v2-container-in-container", "POST", MSGS, v2(container(*texts(1))), v2(*texts(1)),
     (400, 50035)),
    ("v2-row-holds-buttons", "POST", MSGS, v2(row(*texts(1))[0]), v2(row(button())[0]),
     (400, 50035)),
    ("v2-gallery-items", "POST", MSGS, v2(gallery(11)), v2(gallery(10)), (400, 50035)),
    ("v2-file-attachment-only", "POST", MSGS,
     v2({"type": 13, "file": {"url": "https://lama.invalid/a.png"}}),
     v2({"type": 13, "file": {"url": "attachment://a.png"}}), (400, 50035)),
    ("v2-media-alt-text", "POST", MSGS,
     v2(section(1, accessory={**THUMB, "description": "d" * 1025})),
     v2(section(1, accessory={**THUMB, "description": "d" * 1024})), (400, 50035)),
    ("v2-text-empty", "POST", MSGS, v2(*texts(1, "")), v2(*texts(1)), (400, 50035)),
    ("v2-unique-ids", "POST", MSGS, v2({"type": 10, "id": 7, "content": "a"},
                                       {"type": 10, "id": 7, "content": "b"}),
     v2({"type": 10, "id": 7, "content": "a"}, {"type": 10, "id": 8, "content": "b"}),
     (400, 50035)),
    ("defer-v2-flag", "POST", "/{callback}", {"type": 5, "data": {"flags": V2 | EPHEMERAL}},
     {"type": 5, "data": {"flags": EPHEMERAL}}, (400, 50035)),
    ("defer-other-flag", "POST", "/{callback}", {"type": 5, "data": {"flags": 4}},
     {"type": 5, "data": {}}, (400, 50035)),
    ("attachment-no-file", "POST", MSGS, {"content": "x", "attachments": [{"id": "0"}]},
     {"content": "x", "attachments": []}, (400, 50035)),
    # --- lint: what Discord silently ignores --------------------------------------------------
    ("lint-contnet", "POST", MSGS, {"contnet": "x", "content": "x"}, {"content": "x"}, "lint"),
    ("lint-lable", "POST", MSGS, {"content": "x", "components": row(button(lable="Go"))},
     {"content": "x", "components": row(button())}, "lint"),
    ("lint-colour", "POST", MSGS, embed(colour=1), embed(color=1), "lint"),
    ("lint-gallery-item", "POST", MSGS,
     v2({"type": 12, "items": [{"media": {"url": "https://lama.invalid/a.png"}, "alt": "a"}]}),
     v2({"type": 12, "items": [{"media": {"url": "https://lama.invalid/a.png"},
                                "description": "a"}]}), "lint"),
    ("lint-ephemeral", "POST", MSGS, {"content": "x", "flags": EPHEMERAL}, {"content": "x"},
     "lint"),
    ("lint-callback", "POST", "/{callback}", {"type": 4, "data": {"content": "x", "ephemral": 1}},
     {"type": 4, "data": {"content": "x", "flags": EPHEMERAL}}, "lint"),
    # --- interaction answers ------------------------------------------------------------------
    ("modal-label", "POST", "/{callback}", modal(label="l" * 46), modal(label="l" * 45),
     (400, 50035)),
    ("modal-style", "POST", "/{callback}", modal(style=3), modal(style=2), (400, 50035)),
    ("modal-length", "POST", "/{callback}", modal(max_length=4001), modal(max_length=4000),
     (400, 50035)),
    ("autocomplete-name", "POST", "/{autocomplete}",
     {"type": 8, "data": {"choices": [{"name": "n" * 101, "value": "v"}]}},
     {"type": 8, "data": {"choices": [{"name": "n" * 100, "value": "v"}]}}, (400, 50035)),
    ("autocomplete-count", "POST", "/{autocomplete}",
     {"type": 8, "data": {"choices": [{"name": f"{i}", "value": "v"} for i in range(26)]}},
     {"type": 8, "data": {"choices": [{"name": f"{i}", "value": "v"} for i in range(25)]}},
     (400, 50035)),
    ("followup-wait", "POST", "/{followup}?wait=maybe|/{followup}?wait=1", {"content": "x"},
     {"content": "x"}, (400, 50035)),
    # --- threads ------------------------------------------------------------------------------
    ("thread-type", "POST", "/channels/{channel}/threads", {"name": "t", "type": 0},
     {"name": "t", "type": 12}, (400, 50035)),
    ("thread-name", "POST", "/channels/{channel}/threads", {"name": "", "type": 11},
     {"name": "t", "type": 11}, (400, 50035)),
    ("thread-locked", "POST", "/channels/{locked}/messages|/channels/{thread}/messages",
     {"content": "x"}, {"content": "x"}, (400, 160005)),
    ("thread-archive-duration", "PATCH", "/channels/{thread}", {"auto_archive_duration": 30},
     {"auto_archive_duration": 60}, (400, 50035)),
    ("thread-edit-archived", "PATCH", "/channels/{archived}/messages/{message}",
     {"content": "x"}, None, (400, 50083)),
]


def _has_errors_tree(body: Any) -> bool:
    return isinstance(body, dict) and "_errors" in json.dumps(body.get("errors", {}))


@pytest.mark.parametrize(
    ("method", "path", "bad", "good", "expect"),
    [pytest.param(*case[1:], id=case[0]) for case in CASES],
)
async def test_rule(env: Env, method: str, path: str, bad: Any, good: Any, expect: Any) -> None:
    fake = env.fake
    if "{archived}/messages/{message}" in path:
        env.message = env.bot_message(env.archived, "old")
    if method == "PATCH" and path == "/channels/{thread}":
        env.thread.owner_id = fake.bot_user.id  # the bot's own thread: no Manage Threads
    before = list(fake.global_commands)
    path, _, good_path = path.partition("|")
    answer = await env.call(method, path, bad)
    if expect == "lint":
        assert answer.status < 300, answer.body
        assert len(fake.lint) >= 1 and not fake.refusals
        fake.lint.clear()
    else:
        status, code = expect
        assert (answer.status, answer.code) == (status, code), answer.body
        assert isinstance(answer.body["message"], str)
        assert code != 50035 or _has_errors_tree(answer.body), answer.body
        assert fake.refusals[-1].code == code
        assert fake.global_commands == before, "a refused sync leaves the commands intact"
    if good is None and not good_path:
        return
    fixed = await env.call(method, good_path or path, good)
    assert fixed.status < 300, fixed.body
    assert not fake.lint
