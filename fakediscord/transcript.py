"""Transcript: a JSON-lines log of all traffic and an HTML page of what the users saw."""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .markdown import inline, markdown
from .messages import ATTACHMENT_SCHEME, Message

if TYPE_CHECKING:
    from .state import State

STYLE_COLORS = {1: "#5865f2", 2: "#4e5058", 3: "#248046", 4: "#da373c", 5: "#4e5058", 6: "#4e5058"}

CSS = """
body { background:#313338; color:#dbdee1; font:15px/1.4 'gg sans','Noto Sans',sans-serif;
       margin:0 auto; max-width:1100px; padding:16px; }
h1,h2,h3 { color:#f2f3f5; } h2 { border-bottom:1px solid #4e5058; padding-bottom:4px; }
.msg { padding:6px 12px; margin:4px 0; border-radius:4px; }
.msg:hover { background:#2e3035; }
.msg.deleted { opacity:.45; text-decoration:line-through; }
.msg.ephemeral { background:#2b2d4a; }
.attachment img { max-width:520px; border-radius:4px; margin-top:4px; }
.attachment.file { color:#00a8fc; }
.head .author { color:#f2f3f5; font-weight:600; } .head .bot { background:#5865f2; color:#fff;
  font-size:10px; border-radius:3px; padding:0 4px; margin-left:4px; }
.head .meta { color:#949ba4; font-size:12px; margin-left:8px; }
.content { white-space:pre-wrap; }
.embed { background:#2b2d31; border-left:4px solid #1e1f22; border-radius:4px; padding:8px 12px;
         margin:4px 0; max-width:520px; }
.embed .title { font-weight:700; color:#f2f3f5; } .embed .footer { font-size:12px; color:#b5bac1; }
.embed .fields { display:flex; flex-wrap:wrap; gap:4px 16px; }
.embed .field { min-width:150px; } .embed .field.block { flex-basis:100%; }
.embed .field .name { font-weight:600; color:#f2f3f5; }
.row { display:flex; gap:8px; margin:4px 0; flex-wrap:wrap; }
.button { color:#fff; border-radius:8px; padding:4px 14px; font-size:14px; }
.button.disabled { opacity:.5; cursor:not-allowed; }
.select { background:#1e1f22; border-radius:4px; padding:6px 10px;
          min-width:300px; }
.select .opt { color:#b5bac1; font-size:13px; } .select .opt.default { color:#fff; }
.textdisplay { white-space:pre-wrap; }
.container { border-left:4px solid #4e5058; background:#2b2d31; border-radius:8px;
              padding:8px 12px; max-width:520px; }
.section { display:flex; justify-content:space-between; gap:8px; align-items:flex-start; }
.thumbnail img { max-width:80px; } .gallery { display:flex; flex-wrap:wrap; gap:4px; }
.separator { border:0; border-top:1px solid #4e5058; } .gap { height:8px; }
.note { color:#949ba4; font-size:12px; }
.mention { background:#3c4270; color:#c9cdfb; border-radius:3px; padding:0 2px; }
.h1 { font-size:24px; font-weight:700; color:#f2f3f5; margin:4px 0 2px; }
.h2 { font-size:20px; font-weight:700; color:#f2f3f5; margin:4px 0 2px; }
.h3 { font-size:16px; font-weight:700; color:#f2f3f5; margin:4px 0 2px; }
.subtext { font-size:12px; color:#949ba4; }
blockquote { border-left:4px solid #4e5058; margin:0; padding-left:12px; }
.content ul, .content ol, .textdisplay ul, .textdisplay ol { margin:0; padding-left:24px; }
li.nested { margin-left:20px; } .spoiler { background:#1e1f22; border-radius:3px; }
code { background:#2b2d31; border-radius:3px; padding:0 2px; font-size:13px; }
pre { background:#2b2d31; border:1px solid #1e1f22; border-radius:4px; padding:6px;
      white-space:pre-wrap; margin:2px 0; }
a { color:#00a8fc; }
table.log { border-collapse:collapse; font:12px monospace; width:100%; }
table.log td { border-top:1px solid #3f4147; padding:2px 6px; vertical-align:top; }
table.log tr.action td { color:#f0b232; } table.log tr.fail td { color:#f23f43; }
details summary { cursor:pointer; }
"""


def write_transcript(fake: State, directory: Path, name: str) -> list[Path]:
    """Write <name>.jsonl and <name>.html into `directory`; return both paths."""
    directory.mkdir(parents=True, exist_ok=True)
    jsonl = directory / f"{name}.jsonl"
    with jsonl.open("w") as f:
        for entry in fake.entries:
            f.write(json.dumps(entry, default=str) + "\n")
    page = directory / f"{name}.html"
    page.write_text(render_html(fake))
    return [jsonl, page]


def render_html(fake: State) -> str:
    out = [
        "<!doctype html><html><head><meta charset='utf-8'><title>fake discord transcript"
        f"</title><style>{CSS}</style></head><body><h1>Fake Discord transcript</h1>"
    ]
    names = {str(user.id): user.name for user in fake.users.values()}
    for guild in fake.guilds:
        out.append(f"<h2>{_e(guild.name)}</h2>")
        for channel in guild.channels:
            gone = " (deleted)" if channel.deleted else ""
            out.append(f"<h3>#{_e(channel.name)}{gone}</h3>")
            msgs = [
                m for m in fake.messages.values() if m.channel is channel and m.ephemeral_to is None
            ]
            out.extend(render_message(m, fake.files, names) for m in msgs)
            if not msgs:
                out.append("<p class='note'>no messages</p>")
        for member in guild.members:
            eph = [m for m in fake.messages.values() if m.ephemeral_to is member]
            if eph:
                out.append(f"<h3>Only {_e(member.name)} can see these</h3>")
                out.extend(render_message(m, fake.files, names) for m in eph)
    if fake.failures:
        out.append("<h2>Failed interactions</h2><ul>")
        out.extend(f"<li>{_e(f.user)}: {_e(f.reason)}</li>" for f in fake.failures)
        out.append("</ul>")
    out.append("<h2>Log</h2><table class='log'>")
    out.extend(_log_row(entry) for entry in fake.entries)
    out.append("</table></body></html>")
    return "\n".join(out)


def render_message(msg: Message, files: dict[int, bytes] | None = None,
                   names: Mapping[str, str] | None = None) -> str:
    """One message as its channel shows it; ``names``: users' names by id, for mentions."""
    classes = ["msg"]
    if msg.deleted:
        classes.append("deleted")
    if msg.ephemeral:
        classes.append("ephemeral")
    meta = [msg.timestamp[11:19]]
    if msg.edited_timestamp:
        meta.append("(edited)")
    if msg.loading:
        meta.append("is thinking…")
    if msg.ephemeral:
        meta.append("only you can see this")
    if msg.deleted:
        meta.append("deleted")
    if msg.interaction_metadata:
        meta.append(f"↪ {msg.interaction_metadata['user']['username']} used a command")
    bot = "<span class='bot'>APP</span>" if msg.author.bot else ""
    parts = [
        f"<div class='{' '.join(classes)}' id='m{msg.id}'><div class='head'>"
        f"<span class='author'>{_e(msg.author.name)}</span>{bot}"
        f"<span class='meta'>{_e(' · '.join(meta))}</span></div>"
    ]
    if msg.content:
        parts.append(f"<div class='content'>{markdown(msg.content, names)}</div>")
    parts.extend(_embed(e, names) for e in msg.embed_dicts)
    if not msg.v2:  # a V2 message shows its files where its components reference them
        parts.extend(_attachment(a, files or {}) for a in msg.attachments)
    by_name = {str(a.get("filename")): a for a in msg.attachments}
    parts.extend(_component(c, by_name, files or {}, names) for c in msg.component_dicts)
    parts.append("</div>")
    return "".join(parts)


IMAGE_TYPES = {b"\x89PNG": "image/png", b"RIFF": "image/webp", b"\xff\xd8\xff": "image/jpeg"}


def _attachment(data: dict[str, Any], files: dict[int, bytes]) -> str:
    """An uploaded image inline (with ``fake.keep_files``), else the file's name and size."""
    raw = files.get(int(data["id"]))
    kind = next((t for magic, t in IMAGE_TYPES.items() if raw and raw.startswith(magic)), None)
    name = _e(str(data.get("filename", "file")))
    if raw is not None and kind is not None:
        src = f"data:{kind};base64,{base64.b64encode(raw).decode()}"
        return f"<div class='attachment'><img src='{src}' alt='{name}'></div>"
    return f"<div class='attachment file'>📎 {name} ({int(data.get('size', 0))} bytes)</div>"


def _embed(data: dict[str, Any], names: Mapping[str, str] | None = None) -> str:
    color = data.get("color")
    border = f"#{color:06x}" if isinstance(color, int) else "#1e1f22"
    parts = [f"<div class='embed' style='border-left-color:{border}'>"]
    if (data.get("author") or {}).get("name"):
        parts.append(f"<div class='author'>{_e(data['author']['name'])}</div>")
    if data.get("title"):
        parts.append(f"<div class='title'>{inline(data['title'], names)}</div>")
    if data.get("description"):
        parts.append(f"<div class='content'>{markdown(data['description'], names)}</div>")
    if data.get("fields"):
        parts.append("<div class='fields'>")
        for f in data["fields"]:
            block = "" if f.get("inline") else " block"
            parts.append(
                f"<div class='field{block}'><div class='name'>{inline(f['name'], names)}"
                f"</div><div class='content'>{markdown(f['value'], names)}</div></div>"
            )
        parts.append("</div>")
    if (data.get("footer") or {}).get("text"):
        parts.append(f"<div class='footer'>{_e(data['footer']['text'])}</div>")
    parts.append("</div>")
    return "".join(parts)


def _media(media: Any, by_name: dict[str, dict[str, Any]], files: dict[int, bytes]) -> str:
    """A V2 media item: its upload (``attachment://name``) inline, else its URL."""
    url = str(media.get("url") or "") if isinstance(media, dict) else ""
    found = by_name.get(url.removeprefix(ATTACHMENT_SCHEME))
    if url.startswith(ATTACHMENT_SCHEME) and found is not None:
        return _attachment(found, files)
    return f"<div class='attachment file'>🔗 {_e(url)}</div>"


def _component(
    comp: dict[str, Any],
    by_name: dict[str, dict[str, Any]] | None = None,
    files: dict[int, bytes] | None = None,
    names: Mapping[str, str] | None = None,
) -> str:
    by_name, files = by_name or {}, files or {}
    kind = comp.get("type")

    def inner(children: Any) -> str:
        items = children if isinstance(children, list) else []
        return "".join(_component(c, by_name, files, names) for c in items
                       if isinstance(c, dict))

    if kind == 1:
        return f"<div class='row'>{inner(comp.get('components'))}</div>"
    if kind == 2:
        emoji = (comp.get("emoji") or {}).get("name") or ""
        label = f"{emoji} {comp.get('label') or ''}".strip()
        disabled = " disabled" if comp.get("disabled") else ""
        color = STYLE_COLORS.get(comp.get("style", 1), "#4e5058")
        link = " ↗" if comp.get("style") == 5 else ""
        return (
            f"<span class='button{disabled}' style='background:{color}' "
            f"title='{_e(str(comp.get('custom_id') or comp.get('url') or ''))}'>"
            f"{_e(label)}{link}</span>"
        )
    if kind in (3, 5, 6, 7, 8):
        disabled = " disabled" if comp.get("disabled") else ""
        opts = "".join(
            f"<div class='opt{' default' if o.get('default') else ''}'>• {_e(o.get('label', ''))}"
            f"</div>"
            for o in comp.get("options", [])
        )
        return (
            f"<div class='select{disabled}'><div>{_e(comp.get('placeholder') or 'Select…')}"
            f" ▾</div>{opts}</div>"
        )
    if kind == 9:
        accessory = comp.get("accessory")
        side = (_component(accessory, by_name, files, names) if isinstance(accessory, dict)
                else "")
        return (f"<div class='section'><div>{inner(comp.get('components'))}</div>"
                f"<div class='accessory'>{side}</div></div>")
    if kind == 10:
        return f"<div class='textdisplay'>{markdown(str(comp.get('content', '')), names)}</div>"
    if kind == 11:
        return f"<div class='thumbnail'>{_media(comp.get('media'), by_name, files)}</div>"
    if kind == 12:
        items = comp.get("items") if isinstance(comp.get("items"), list) else []
        shown = "".join(_media(i.get("media"), by_name, files) for i in items
                        if isinstance(i, dict))
        return f"<div class='gallery'>{shown}</div>"
    if kind == 13:
        return _media(comp.get("file"), by_name, files)
    if kind == 14:
        return "<hr class='separator'>" if comp.get("divider", True) else "<div class='gap'></div>"
    if kind == 17:
        color = comp.get("accent_color")
        border = f" style='border-left-color:#{color:06x}'" if isinstance(color, int) else ""
        return f"<div class='container'{border}>{inner(comp.get('components'))}</div>"
    return f"<div class='note'>component type {_e(str(kind))}</div>"


def _summary(entry: dict[str, Any]) -> str:
    kind = entry["kind"]
    if kind == "rest":
        return f"→ {entry['method']} {entry['path']}"
    if kind == "rest-answer":
        return f"← {entry['status']} {entry['method']} {entry['path']}"
    if kind == "gateway":
        return f"⇐ {entry['event']}"
    if kind == "gateway-in":
        return f"⇒ op {entry['op']}"
    rest = {k: v for k, v in entry.items() if k not in ("time", "clock", "kind")}
    return f"{kind}: {json.dumps(rest, default=str)[:200]}"


def _log_row(entry: dict[str, Any]) -> str:
    kind = entry["kind"]
    css = "action" if kind == "action" else "fail" if "fail" in kind or "error" in kind else ""
    detail = json.dumps(
        {k: v for k, v in entry.items() if k not in ("time", "clock", "kind")},
        default=str,
        indent=1,
    )
    return (
        f"<tr class='{css}'><td>{entry['time']:.3f}</td><td><details><summary>"
        f"{_e(_summary(entry))}</summary><pre>{_e(detail)}</pre></details></td></tr>"
    )


def _e(text: str) -> str:
    return html.escape(text, quote=True)
