// The slash-command box of the sandbox page: autocomplete from the bot's synced commands.
// Loaded before app.js, which holds the page's state and wires these functions to the box.
"use strict";

// --- slash commands and their autocomplete ----------------------------------------------------
function leaves() {
  const out = [];
  const walk = (node, path) => {
    const subs = (node.options || []).filter((o) => o.type === 1 || o.type === 2);
    if (subs.length) subs.forEach((s) => walk(s, [...path, s.name]));
    else out.push({ path: path.join(" "), description: node.description, options: node.options || [] });
  };
  state.commands.filter((c) => (c.type || 1) === 1).forEach((c) => walk(c, [c.name]));
  return out;
}

function optionDef(path, name) {
  const leaf = leaves().find((l) => l.path === path.join(" "));
  return leaf && leaf.options.find((o) => o.name === name);
}

function suggestions(text) {
  if (!text.startsWith("/")) return [];
  const body = text.slice(1);
  const leaf = leaves().filter((l) => body === l.path || body.startsWith(l.path + " "))
    .sort((a, b) => b.path.length - a.path.length)[0];
  if (!leaf) {
    return leaves().filter((l) => l.path.startsWith(body.trimStart()))
      .map((l) => ({ label: "/" + l.path, detail: l.description, text: `/${l.path} `, enter: true }));
  }
  const rest = body.slice(leaf.path.length);
  const given = new Set([...rest.matchAll(/(?:^|\s)([\w-]+):/g)].map((m) => m[1]));
  const token = /(\S*)$/.exec(rest)[1];
  const before = text.slice(0, text.length - token.length);
  const colon = token.indexOf(":");
  if (colon < 0) {
    const sep = before.endsWith(" ") ? "" : " ";
    return leaf.options.filter((o) => !given.has(o.name) && o.name.startsWith(token))
      .map((o) => ({ label: o.name + ":", detail: o.description, text: `${before}${sep}${o.name}:`,
        enter: token !== "" }));
  }
  const def = leaf.options.find((o) => o.name === token.slice(0, colon));
  if (!def) return [];
  const typed = token.slice(colon + 1).toLowerCase();
  if (def.choices) {
    return def.choices.filter((c) => String(c.value).toLowerCase().startsWith(typed)
        || c.name.toLowerCase().startsWith(typed))
      // the value beside the name only when it says more (not "classic classic")
      .map((c) => ({ label: c.name,
        detail: String(c.value).toLowerCase() === c.name.toLowerCase() ? "" : String(c.value),
        text: `${before}${def.name}:${c.value} `, enter: true }));
  }
  if (def.type === 6) {
    return state.members.filter((m) => m.name.toLowerCase().startsWith(typed))
      .map((m) => ({ label: "@" + m.name, detail: "", text: `${before}${def.name}:${m.name} `,
        enter: true }));
  }
  return [{ label: def.name, detail: def.description, text: null }];
}

let active = 0;
let shown = [];

function drawSuggestions() {
  const input = $("slash");
  shown = suggestions(input.value);
  active = Math.min(active, Math.max(shown.length - 1, 0));
  const list = $("suggestions");
  list.hidden = shown.length === 0;
  list.replaceChildren(...shown.map((s, i) => {
    const item = el("li", s.text === null ? "hint-only" : "");
    item.classList.toggle("active", i === active && s.text !== null);
    item.append(el("span", "s-label", s.label), el("span", "s-detail", s.detail || ""));
    item.onmousedown = (event) => { event.preventDefault(); choose(s); };
    return item;
  }));
}

function choose(s) {
  if (!s || s.text === null) return false;
  const input = $("slash");
  input.value = s.text;
  active = 0;
  drawSuggestions();
  input.focus();
  return true;
}

async function send() {
  const input = $("slash");
  const text = input.value.trim();
  if (!text) return;
  try {
    await post("/api/slash", { member: state.me, text, channel: slashChannel() });
    input.value = "";
    drawSuggestions();
  } catch (err) {
    showError(err.message);
  }
}

function onKey(event) {
  const input = $("slash");
  const pick = shown[active];
  // Enter completes a word being typed; otherwise it sends, as in Discord.
  const completes = pick && pick.text !== null && pick.enter
    && pick.text.trimEnd() !== input.value.trimEnd();
  if (event.key === "ArrowDown" || event.key === "ArrowUp") {
    event.preventDefault();
    const step = event.key === "ArrowDown" ? 1 : -1;
    active = (active + step + shown.length) % Math.max(shown.length, 1);
    drawSuggestions();
  } else if (event.key === "Tab" && pick) {
    event.preventDefault();
    choose(pick);
  } else if (event.key === "Enter") {
    event.preventDefault();
    if (!(completes && choose(pick))) send();
  } else if (event.key === "Escape") {
    $("suggestions").hidden = true;
  }
}
