// Whose turn it is, as the table says: the "to play" badge beside that member.
// Loaded before app.js, which holds the page's state (state.messages, state.members).
"use strict";

function whoseTurn() {
  // The table names the player to act with its turn marker (▶️ before their name; ◀️ in a
  // right-to-left language, pointing at the name: bot/words/i18n.py TURN_MARKERS). A ping
  // or an old mention says nothing about now: only the newest table counts, and none once
  // a game's final standings (with their Rematch button) came after it.
  const news = [...state.messages.values()]
    .filter((m) => !m.deleted && m.to === null && m.bot)
    .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? 1 : -1));
  for (const m of news) {
    const ids = buttonIds(m);
    if (ids.some((id) => id.startsWith("lama:v2:rematch:"))) return null;
    if (ids.some((id) => id.startsWith("lama:v2:hand:"))) return turnMarker(messageText(m));
  }
  return null;
}

function buttonIds(m) {
  const rows = [...m.rows];
  const walk = (c) => {
    if (!c) return;
    if (c.t === 1) rows.push(c.items);
    (c.children || []).forEach(walk);
    walk(c.accessory);
  };
  (m.layout || []).forEach(walk);
  return rows.flat().map((item) => item.custom_id || "");
}

function messageText(m) {
  const parts = [m.content || ""];
  m.embeds.forEach((e) => parts.push(e.description || "", ...e.fields.map((f) => f.value)));
  const walk = (c) => {
    if (!c) return;
    if (c.t === 10) parts.push(c.text);
    (c.children || []).forEach(walk);
  };
  (m.layout || []).forEach(walk);
  return parts.join("\n");
}

function turnMarker(text) {
  for (const line of text.split("\n")) {
    const at = line.search(/[\u25b6\u25c0]/);  // ▶ or ◀ (▶️/◀️ with a variation selector)
    if (at < 0) continue;
    const rest = line.slice(at);
    const mention = /<@!?(\d+)>/.exec(rest);
    if (mention) return mention[1];
    const bold = /\*\*(.+?)\*\*/.exec(rest);
    if (!bold) continue;
    const name = bold[1].replace(/[\u200e\u200f\u2066-\u2069]/g, "").replace(/\\(.)/g, "$1");
    const member = state.members.find((mm) => mm.name === name.trim());
    return member ? member.id : null;
  }
  return null;
}
