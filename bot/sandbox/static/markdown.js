// Discord's markdown, built as elements from text nodes (never HTML), and its timestamps.
// Loaded before app.js, which holds the page's state (state.names, state.texts).
"use strict";

// --- inline: bold, italics, underline, strike, spoilers, code, mentions, emoji, timestamps ---
const INLINE = new RegExp([
  String.raw`\\([^\sA-Za-z0-9])`,                     // 1: an escaped mark
  String.raw`\*\*([^*\n]+?)\*\*`,                     // 2: bold
  String.raw`__([^_\n]+?)__`,                         // 3: underline
  String.raw`~~([^~\n]+?)~~`,                         // 4: strike
  String.raw`\|\|([^|\n]+?)\|\|`,                     // 5: spoiler
  String.raw`\x60([^\x60\n]+)\x60`,                   // 6: code
  String.raw`\*([^*\s](?:[^*\n]*[^*\s])?)\*`,         // 7: italics
  String.raw`\b_([^_\s](?:[^_\n]*[^_\s])?)_\b`,       // 8: italics
  String.raw`<@!?(\d{1,20})>`,                        // 9: a member
  String.raw`<@&(\d{1,20})>`,                         // 10: a role
  String.raw`<#(\d{1,20})>`,                          // 11: a channel
  String.raw`<a?:(\w{2,32}):\d{1,20}>`,               // 12: a custom emoji
  String.raw`<t:(-?\d{1,13})(?::([tTdDfFR]))?>`,      // 13, 14: a timestamp
  String.raw`\[([^\]\n]+)\]\((https?://[^\s)]+)\)`,   // 15, 16: a masked link
].join("|"), "g");

function inline(parent, text) {
  let at = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > at) parent.append(document.createTextNode(text.slice(at, m.index)));
    at = m.index + m[0].length;
    if (m[1] !== undefined) parent.append(document.createTextNode(m[1]));
    else if (m[2] !== undefined) inline(parent.appendChild(el("strong")), m[2]);
    else if (m[3] !== undefined) inline(parent.appendChild(el("u")), m[3]);
    else if (m[4] !== undefined) inline(parent.appendChild(el("s")), m[4]);
    else if (m[5] !== undefined) inline(parent.appendChild(spoiler(el("span", "spoiler"))), m[5]);
    else if (m[6] !== undefined) parent.append(isolated(el("code", "", m[6])));
    else if (m[7] !== undefined || m[8] !== undefined) {
      inline(parent.appendChild(el("em")), m[7] ?? m[8]);
    } else if (m[9] !== undefined) {
      parent.append(isolated(el("span", "mention", "@" + (state.names[m[9]] || "unknown"))));
    } else if (m[10] !== undefined) parent.append(el("span", "mention", "@role"));
    else if (m[11] !== undefined) parent.append(el("span", "mention", "#channel"));
    else if (m[12] !== undefined) parent.append(el("span", "emoji", `:${m[12]}:`));
    else if (m[13] !== undefined) parent.append(timestamp(Number(m[13]), m[14] || "f", m[0]));
    else if (m[15] !== undefined) {
      const link = parent.appendChild(el("a", "link"));
      link.href = m[16];
      link.rel = "noopener noreferrer";
      link.target = "_blank";
      link.title = m[16];
      inline(link, m[15]);
    }
  }
  if (at < text.length) parent.append(document.createTextNode(text.slice(at)));
}

function isolated(node) {
  // its own direction inside a line of the other: `/lama hand` stays whole in Persian
  node.dir = "auto";
  return node;
}

function spoiler(node) {
  node.onclick = () => node.classList.add("revealed");
  return node;
}

// --- blocks: headings, subtext, quotes, lists, code blocks ---------------------------------
function markdown(cls, text) {
  const box = el("div", cls);
  const lines = String(text).split("\n");
  let quoteAll = false;
  let list = null;
  for (let i = 0; i < lines.length; i += 1) {
    let line = lines[i];
    if (line.startsWith("```")) {  // a code block, to its closing fence
      const body = [];
      const first = line.slice(3);
      if (first.includes("```")) {
        body.push(first.slice(0, first.indexOf("```")));
      } else {
        if (/\S/.test(first) && !/^\w+$/.test(first)) body.push(first);  // not a language
        while (i + 1 < lines.length && !lines[i + 1].includes("```")) body.push(lines[++i]);
        if (i + 1 < lines.length) {
          i += 1;
          const end = lines[i].slice(0, lines[i].indexOf("```"));
          if (end) body.push(end);
        }
      }
      const pre = (quoteAll ? quoteBox(box) : box).appendChild(el("pre"));
      pre.append(el("code", "", body.join("\n")));
      pre.dir = "ltr";
      list = null;
      continue;
    }
    let parent = box;
    if (line.startsWith(">>> ")) { quoteAll = true; line = line.slice(4); }
    if (quoteAll) parent = quoteBox(box);
    else if (line.startsWith("> ") || line === ">") {
      parent = quoteBox(box);
      line = line.slice(2);
    }
    const item = /^(\s*)(?:[-*]|(\d{1,3})\.) (.*)$/.exec(line);
    if (item) {
      const tag = item[2] ? "ol" : "ul";
      if (!list || list.tagName.toLowerCase() !== tag || list.parentNode !== parent) {
        list = parent.appendChild(el(tag));
        if (item[2]) list.start = Number(item[2]);
      }
      const li = list.appendChild(el("li"));
      if (item[1].length >= 2) li.className = "nested";
      inline(li, item[3]);
      continue;
    }
    list = null;
    const heading = /^(#{1,3}) (.+)$/.exec(line);
    const sub = /^-# (.+)$/.exec(line);
    const block = heading ? el("div", "h" + heading[1].length)
      : sub ? el("div", "subtext") : el("div", "line");
    inline(block, heading ? heading[2] : sub ? sub[1] : line);
    if (!heading && !sub && line === "") block.append(document.createTextNode("\u200b"));
    parent.append(block);
  }
  box.dir = direction(box);
  return box;
}

// A block of text reads in the direction most of its letters do: a Persian table whose title
// ("L.L.A.M.A.") and names are Latin still reads right to left, an English one left to
// right. Code spans, mentions and timestamps (isolated, with their own dir) do not count.
const RTL_LETTERS = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]/g;
const LTR_LETTERS = /[A-Za-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff]/g;

function direction(node) {
  let rtl = 0;
  let ltr = 0;
  const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT, {
    acceptNode: (text) => (text.parentElement.closest("[dir]") !== node
      && text.parentElement.closest("[dir]") !== null
      && node.contains(text.parentElement.closest("[dir]"))
      ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  for (let text = walker.nextNode(); text; text = walker.nextNode()) {
    rtl += (text.data.match(RTL_LETTERS) || []).length;
    ltr += (text.data.match(LTR_LETTERS) || []).length;
  }
  return rtl > ltr ? "rtl" : ltr > 0 ? "ltr" : "auto";
}

function directed(node) {
  node.dir = direction(node);
  return node;
}

function quoteBox(box) {
  const last = box.lastElementChild;
  if (last && last.tagName.toLowerCase() === "blockquote") return last;
  return box.appendChild(el("blockquote"));
}

// --- <t:unix:style>: in the member's language; R counts live ----------------------------------
const STYLES = {
  t: { hour: "numeric", minute: "2-digit" },
  T: { hour: "numeric", minute: "2-digit", second: "2-digit" },
  d: { year: "numeric", month: "2-digit", day: "2-digit" },
  D: { year: "numeric", month: "long", day: "numeric" },
  f: { year: "numeric", month: "long", day: "numeric", hour: "numeric", minute: "2-digit" },
  F: { weekday: "long", year: "numeric", month: "long", day: "numeric", hour: "numeric",
    minute: "2-digit" },
};
// [unit, its seconds, shown below this many seconds] (a chat client's thresholds: 44 s, then
// minutes to 44 min, hours to 21 h...): a deadline under a minute counts down second by second
const UNITS = [["second", 1, 45], ["minute", 60, 2700], ["hour", 3600, 79200],
  ["day", 86400, 2246400], ["month", 2592000, 27648000], ["year", 31536000, Infinity]];

function pageLocale() {
  return (state.texts && state.texts._lang) || navigator.language || "en";
}

function timestamp(seconds, style, raw) {
  const date = new Date(seconds * 1000);
  if (Number.isNaN(date.getTime())) return document.createTextNode(raw);
  const node = el("time", "timestamp");
  node.dateTime = date.toISOString();
  node.dataset.ts = String(seconds);
  node.dataset.style = style;
  node.dir = "auto";
  node.title = new Intl.DateTimeFormat(pageLocale(), STYLES.F).format(date);
  node.textContent = formatTimestamp(seconds, style);
  return node;
}

function formatTimestamp(seconds, style, now = Date.now()) {
  if (style !== "R") {
    return new Intl.DateTimeFormat(pageLocale(), STYLES[style]).format(new Date(seconds * 1000));
  }
  const delta = seconds - Math.round(now / 1000);
  const [unit, size] = UNITS.find(([, , below]) => Math.abs(delta) < below);
  return new Intl.RelativeTimeFormat(pageLocale(), { numeric: "auto" })
    .format(Math.round(delta / size), unit);
}

function tickTimestamps() {
  document.querySelectorAll('time.timestamp[data-style="R"]').forEach((node) => {
    const text = formatTimestamp(Number(node.dataset.ts), "R");
    if (node.textContent !== text) node.textContent = text;
  });
}
setInterval(tickTimestamps, 1000);
