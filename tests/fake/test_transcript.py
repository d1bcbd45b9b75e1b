"""The transcript shows Discord's markdown as Discord renders it (headings, small text, lists,
quotes, bold, italics...) and never the text's own HTML: a hostile name stays text."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from fakediscord.markdown import inline, markdown
from fakediscord.transcript import _component

HOSTILE = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>\'"&'
ALLOWED = {"div", "br", "b", "i", "u", "s", "span", "code", "pre", "ul", "ol", "li",
           "blockquote", "a"}
ATTRIBUTES = {"class", "href", "rel", "start"}


class Tags(HTMLParser):
    """The tags, attributes and text of a piece of HTML."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.feed(page)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_text_displays_show_headings_small_text_lists_and_inline_marks() -> None:
    text = ("# Big\n## Middle\n### Round 2\n**ana** played *3* and _ben_ __u__ ~~s~~ ||x|| "
            "`code`\n-# small print\n- one\n  - nested\n* two\n1. first\n2. second\n"
            "> quoted\n\n#not a heading\n-#not small")
    assert markdown(text) == (
        "<div class='h1'>Big</div><div class='h2'>Middle</div><div class='h3'>Round 2</div>"
        "<div class='line'><b>ana</b> played <i>3</i> and <i>ben</i> <u>u</u> <s>s</s> "
        "<span class='spoiler'>x</span> <code>code</code></div>"
        "<div class='subtext'>small print</div>"
        "<ul><li>one</li><li class='nested'>nested</li><li>two</li></ul>"
        "<ol><li>first</li><li>second</li></ol>"
        "<blockquote><div class='line'>quoted</div></blockquote>"
        "<div class='line'><br></div><div class='line'>#not a heading</div>"
        "<div class='line'>-#not small</div>")


def test_quotes_code_blocks_links_and_escaped_marks() -> None:
    assert markdown(">>> all\n- of it\n```py\nx = **1**\n```") == (
        "<blockquote><div class='line'>all</div><ul><li>of it</li></ul>"
        "<pre><code>x = **1**</code></pre></blockquote>")
    assert markdown("3. third\n4. fourth") == "<ol start='3'><li>third</li><li>fourth</li></ol>"
    assert inline(r"\*not italics\* [site](https://example.com/a) [no](javascript:x)") == (
        "*not italics* <a href='https://example.com/a' rel='noopener noreferrer'>site</a> "
        "[no](javascript:x)")
    assert inline("**bold** not *across\nlines*") == "<b>bold</b> not *across\nlines*"


@pytest.mark.parametrize("template", [
    "{h}", "# {h}", "## {h}", "### {h}", "-# {h}", "- {h}", "1. {h}", "> {h}", ">>> {h}",
    "**{h}**", "*{h}*", "__{h}__", "||{h}||", "`{h}`", "```\n{h}\n```", "[{h}](https://a.b/)",
    "[x](https://a.b/{h})", "### **{h}** *{h}*", "<@5> {h}",
])
def test_hostile_text_stays_text_in_every_mark(template: str) -> None:
    page = markdown(template.format(h=HOSTILE), {"5": HOSTILE})
    parsed = Tags(page)
    assert {tag for tag, _ in parsed.tags} <= ALLOWED, page
    assert all(set(attrs) <= ATTRIBUTES for _, attrs in parsed.tags), page
    assert all((attrs.get("href") or "https://").startswith("https://")
               for _, attrs in parsed.tags), page
    if "](https://a.b/{h})" not in template:  # (there the name is in the address)
        assert HOSTILE in "".join(parsed.text), page


def test_a_member_mention_reads_as_their_name_escaped() -> None:
    names = {"5": HOSTILE, "6": "ana"}
    assert inline("hi <@6> and <@!6>, <@7>") == (
        "hi <span class='mention'>@unknown-user</span> and "
        "<span class='mention'>@unknown-user</span>, <span class='mention'>@unknown-user</span>")
    assert inline("hi <@6>", names) == "hi <span class='mention'>@ana</span>"
    parsed = Tags(markdown("### **<@5>**", names))
    assert [tag for tag, _ in parsed.tags] == ["div", "b", "span"]
    assert "".join(parsed.text) == "@" + HOSTILE


def test_a_text_display_component_renders_its_markdown() -> None:
    page = _component({"type": 10, "content": f"### {HOSTILE}\n-# **{HOSTILE}**"})
    parsed = Tags(page)
    assert [tag for tag, _ in parsed.tags] == ["div", "div", "div", "b"]
    assert [attrs.get("class") for _, attrs in parsed.tags] == [
        "textdisplay", "h3", "subtext", None]
    assert "".join(parsed.text) == HOSTILE * 2
