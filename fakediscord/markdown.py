"""Discord's markdown as HTML, for the transcript: what a message, an embed's text or a
Components V2 text display shows (headings, small text, quotes, lists, code blocks, bold,
italics, underline, strike, spoilers, code, masked links, member mentions as ``@name``).

Every piece of text is escaped and only the marks Discord renders become tags, so a name
like ``<script>`` or ``**<img onerror=…>**`` shows as the text it is. The rules follow
the sandbox page's renderer (bot/sandbox/static/markdown.js), which follows Discord's:
a heading (``#``, ``##``, ``###``) or small text (``-#``) is a whole line that starts with
its mark and a space; inline marks do not cross lines.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

INLINE = re.compile("|".join((
    r"\\([^\sA-Za-z0-9])",                   # 1: an escaped mark
    r"\*\*([^*\n]+?)\*\*",                   # 2: bold
    r"__([^_\n]+?)__",                       # 3: underline
    r"~~([^~\n]+?)~~",                       # 4: strike
    r"\|\|([^|\n]+?)\|\|",                   # 5: spoiler
    r"`([^`\n]+)`",                          # 6: code
    r"\*([^*\s](?:[^*\n]*[^*\s])?)\*",       # 7: italics
    r"\b_([^_\s](?:[^_\n]*[^_\s])?)_\b",     # 8: italics
    r"\[([^\]\n]+)\]\((https?://[^\s)]+)\)",  # 9, 10: a masked link
    r"<@!?(\d{1,20})>",                       # 11: a member
)))
WRAPS = {2: "b", 3: "u", 4: "s", 5: "span class='spoiler'", 7: "i", 8: "i"}
HEADING = re.compile(r"(#{1,3}) (.+)")
SUBTEXT = re.compile(r"-# (.+)")
ITEM = re.compile(r"(\s*)(?:[-*]|(\d{1,3})\.) (.*)")
FENCE = "```"


def escape(text: str) -> str:
    return html.escape(text, quote=True)


def inline(text: str, names: Mapping[str, str] | None = None) -> str:
    """One line's inline marks as tags; all of its text escaped. A member's mention reads
    ``@name`` (``names``: by user id), as in Discord; one not known, ``@unknown-user``."""
    out: list[str] = []
    at = 0
    for match in INLINE.finditer(text):
        out.append(escape(text[at:match.start()]))
        at = match.end()
        group = match.lastindex or 0
        if group == 1:
            out.append(escape(match[1]))
        elif group == 6:
            out.append(f"<code>{escape(match[6])}</code>")
        elif group in (9, 10):
            out.append(f"<a href='{escape(match[10])}' rel='noopener noreferrer'>"
                       f"{inline(match[9], names)}</a>")
        elif group == 11:
            name = (names or {}).get(match[11], "unknown-user")
            out.append(f"<span class='mention'>@{escape(name)}</span>")
        else:
            tag = WRAPS[group]
            out.append(f"<{tag}>{inline(match[group], names)}</{tag.split()[0]}>")
    out.append(escape(text[at:]))
    return "".join(out)


@dataclass
class _List:
    """A list being filled: ``ul`` or ``ol`` (from ``start``), its items' HTML."""

    tag: str
    start: int | None
    quoted: bool
    items: list[str] = field(default_factory=list)

    def html(self) -> str:
        start = f" start='{self.start}'" if self.start not in (None, 1) else ""
        return f"<{self.tag}{start}>{''.join(self.items)}</{self.tag}>"


def markdown(text: str, names: Mapping[str, str] | None = None) -> str:
    """``text`` as Discord lays it out: a block per line (headings, small text, quotes,
    list items, code blocks), each line's inline marks as tags."""
    blocks: list[tuple[bool, str | _List]] = []  # (inside a quote, the block)
    lines = text.split("\n")
    quote_all = False
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if line.startswith(FENCE):  # a code block, to its closing fence
            body, i = _code_block(lines, i)
            blocks.append((quote_all, f"<pre><code>{escape(body)}</code></pre>"))
            continue
        quoted = quote_all
        if line.startswith(">>> "):
            quote_all = quoted = True
            line = line[4:]
        elif not quoted and (line.startswith("> ") or line == ">"):
            quoted, line = True, line[2:]
        item = ITEM.fullmatch(line)
        if item is not None:
            tag = "ol" if item[2] else "ul"
            last = blocks[-1][1] if blocks else None
            if not (isinstance(last, _List) and last.tag == tag and last.quoted == quoted):
                last = _List(tag, int(item[2]) if item[2] else None, quoted)
                blocks.append((quoted, last))
            nested = " class='nested'" if len(item[1]) >= 2 else ""
            last.items.append(f"<li{nested}>{inline(item[3], names)}</li>")
            continue
        heading, sub = HEADING.fullmatch(line), SUBTEXT.fullmatch(line)
        if heading is not None:
            block = f"<div class='h{len(heading[1])}'>{inline(heading[2], names)}</div>"
        elif sub is not None:
            block = f"<div class='subtext'>{inline(sub[1], names)}</div>"
        else:
            block = f"<div class='line'>{inline(line, names) or '<br>'}</div>"
        blocks.append((quoted, block))
    return _joined(blocks)


def _code_block(lines: list[str], i: int) -> tuple[str, int]:
    """The code block whose opening fence is ``lines[i - 1]``: its text, and the index of
    the line after its closing fence (or the end)."""
    first = lines[i - 1][len(FENCE):]
    if FENCE in first:
        return first[:first.index(FENCE)], i
    body = [first] if first.strip() and not re.fullmatch(r"\w+", first) else []  # (a language)
    while i < len(lines) and FENCE not in lines[i]:
        body.append(lines[i])
        i += 1
    if i < len(lines):
        end = lines[i][:lines[i].index(FENCE)]
        if end:
            body.append(end)
        i += 1
    return "\n".join(body), i


def _joined(blocks: list[tuple[bool, str | _List]]) -> str:
    """The blocks in order, each run of quoted ones in one quote."""
    out: list[str] = []
    quote: list[str] = []
    for quoted, block in blocks:
        text = block.html() if isinstance(block, _List) else block
        if quoted:
            quote.append(text)
            continue
        if quote:
            out.append(f"<blockquote>{''.join(quote)}</blockquote>")
            quote = []
        out.append(text)
    if quote:
        out.append(f"<blockquote>{''.join(quote)}</blockquote>")
    return "".join(out)
