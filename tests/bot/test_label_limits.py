"""Every label the bot builds fits Discord's lengths, whatever the names."""

from __future__ import annotations

from bot.words.i18n import translator
from bot.words.markdown import BUTTON_LABEL, SELECT_LABEL, SELECT_PLACEHOLDER
from cogs.hand_view import action_components
from tests.bot.conftest import World
from tests.bot.helpers import answered, kadabra_gift_turn


def test_a_gift_menu_with_very_long_names_fits() -> None:
    names = ["n" * 150 + "-1", "n" * 150 + "-2", "n" * 150 + "-3"]
    _, view = kadabra_gift_turn(names, 500)
    for language in ("en", "fa"):
        components = action_components(translator(language), view, "0123456789ab", 999999)
        payload = components.to_components()
        selects = [c for row in payload for c in row["components"] if c["type"] == 3]
        assert selects, "the recipient is chosen in a menu"
        for select in selects:
            assert len(select.get("placeholder", "")) <= SELECT_PLACEHOLDER
            assert all(len(o["label"]) <= SELECT_LABEL for o in select["options"])
            assert len({o["value"] for o in select["options"]}) == len(select["options"])
        for row in payload:
            for item in row["components"]:
                assert len(item.get("label", "")) <= BUTTON_LABEL
                assert len(item["custom_id"]) <= 100


async def test_a_very_long_display_name_is_seated_short(world: World) -> None:
    long = world.guild.add_member("l" * 120)
    lobby = await answered(await long.slash(world.table, "lama start"))  # the host's name too
    assert lobby is not None
    twin = world.guild.add_member("l" * 120)
    await twin.click(lobby, "Join")  # the same name again: de-duplicated, still short
    session = world.bot.sessions.get(world.table.id)
    assert session is not None
    names = [s.name for s in session.seats]
    assert len(set(names)) == 2 and all(len(n) <= 40 for n in names), names
