// The list page of `sectionctl serve` (docs/browser.md): a grouped table read through the
// service's endpoints, kept live by its event stream, reordered by drag (SortableJS, when the
// server has it) or by keyboard, saved as one change of intents. Titles are only ever inserted as
// text (textContent), escaped as the command line escapes them.
//
// Any size: the page holds the list's outline (every section's title and row count) and only the
// windows of rows it shows, read from the service as they come on screen. Only the rows near the
// screen are in the page; spacers above and below stand for the rest, sized from the counts (every
// row is as tall as every other). A reorder in progress is a list of moves over the rows read.

import { escaped } from "./escape.js";

const listName = decodeURIComponent(location.pathname.split("/")[2] || "");
const base = "/lists/" + encodeURIComponent(listName);
const $ = (id) => document.getElementById(id);

/** A row's height in CSS pixels, as page.css draws it (`--row`). */
const ROW = 44;
/** A section header's height, with the gap above it (`--head`). */
const HEAD = 40;
/** An empty section's drop area while editing (`--empty`), and its "No Data" footer (`--foot`). */
const EMPTY = 44;
const FOOT = 26;
/** The tallest the table is laid out; a taller list is scaled onto it (browsers stop near 33M px). */
const MAX_HEIGHT = 15_000_000;
/** Rows in one window read from the service. */
const CHUNK = 250;
/** Rows kept in the page beyond each edge of the screen. */
const OVERSCAN = 16;
/** The window of rows in the page moves in steps of this many rows, not at every pixel. */
const STEP = 8;
/** The most windows of rows kept read; those farthest from the screen are dropped past it. */
const KEPT_CHUNKS = 24;

/** The page's state: the list's outline and the windows read of it, the session, the reorder in progress. */
const state = {
  version: 0,
  outline: [], // [{id, title, emptyText, count}] at `version`
  starts: [0], // starts[s]: the list-wide index of section s's first row; the last: the list's row count
  chunks: new Map(), // window number k → rows at list-wide indexes k * CHUNK …, read at `version`
  requested: new Set(), // "version:k": windows asked for
  layout: null, // {tops, height}: where each section starts, in unscaled pixels
  role: null,
  csrf: "",
  editing: false,
  moves: [], // the reorder: [{row, from: [s, i], to: [s, i]}], places in the draft at that move
  draftCounts: [], // each section's row count in the draft
  baseVersion: 0, // the version the reorder started from
  stale: false, // someone else changed the list while editing
  picked: null, // the row id picked by keyboard
  pickedMoves: null, // the moves before the pick: what Escape restores
  sortables: [],
  dragging: false,
  rendered: "", // what the last render drew: it draws again only when that changes
  events: null,
  lastDeleted: null,
  painted: false,
};

const dragAvailable = typeof window.Sortable === "function";

/** Says `text` to a screen reader. */
function announce(text) {
  const live = $("live");
  live.textContent = "";
  window.setTimeout(() => { live.textContent = text; }, 20);
}

function showNotice(text) {
  const notice = $("notice");
  notice.textContent = text;
  notice.hidden = !text;
}

function canEdit() {
  return state.role === "edit" || state.role === "admin";
}

/** A request to the service; the session's CSRF value goes with every write. */
async function call(method, path, body) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET") headers["X-Sectionctl-CSRF"] = state.csrf;
  const response = await fetch(base + path, {
    method, headers, credentials: "same-origin", cache: "no-store",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let answer = null;
  try { answer = await response.json(); } catch (_) { answer = null; }
  if (response.status === 401 && path !== "/session" && $("editor").hidden) {
    // The session ended (its token revoked or expired, or the server started again): ask again.
    $("login").hidden = false;
    $("login-error").textContent = (answer && answer.error) || "The session ended; type the token again.";
  }
  return { status: response.status, answer };
}

// MARK: - The outline and the windows read

/** Takes the outline of a window's answer: the version, and every section with its row count. */
function setOutline(answer) {
  state.version = answer.version;
  state.outline = answer.sections.map((s) => ({ id: s.id, title: s.title, emptyText: s.empty_text, count: s.rows }));
  state.starts = [0];
  for (const section of state.outline) state.starts.push(state.starts[state.starts.length - 1] + section.count);
  state.chunks = new Map();
  state.requested = new Set();
  recount();
}

/** Keeps a window's rows, by their list-wide index. */
function keepRows(answer) {
  for (const row of answer.rows) {
    const at = state.starts[row.section] + row.index;
    const k = Math.floor(at / CHUNK);
    if (!state.chunks.has(k)) state.chunks.set(k, []);
    state.chunks.get(k)[at % CHUNK] = { id: row.id, kind: row.kind, title: row.title, value: row.value };
  }
}

/** The row at list-wide index `at` of the version read, when its window was read. */
function cached(at) {
  const chunk = state.chunks.get(Math.floor(at / CHUNK));
  return (chunk && chunk[at % CHUNK]) || null;
}

/** The place `S:R` of the row at list-wide index `at` (empty sections are passed over). */
function pathOf(at) {
  const starts = state.starts;
  let low = 0;
  let high = state.outline.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle] <= at) low = middle; else high = middle - 1;
  }
  return low + ":" + (at - starts[low]);
}

/** Reads `limit` rows from list-wide index `at` (at the reorder's version while editing). */
async function readWindow(at, limit) {
  const total = state.starts[state.starts.length - 1];
  const from = at > 0 && at < total ? pathOf(at) : "0:0";
  const pinned = state.editing ? "&version=" + state.baseVersion : "";
  let { status, answer } = await call("GET", "/window?limit=" + limit + "&from=" + from + pinned);
  if (status === 400 && from !== "0:0" && !pinned) {
    // The list lost the section the place names meanwhile: read from its start.
    ({ status, answer } = await call("GET", "/window?limit=" + limit + "&from=0:0"));
  }
  if (status === 409) return null;
  if (status !== 200) throw new Error((answer && answer.error) || "the list could not be read (" + status + ")");
  return answer;
}

/** Reads the window `k` (list-wide rows k * CHUNK …) and draws it. */
async function readChunk(k) {
  const key = (state.editing ? state.baseVersion : state.version) + ":" + k;
  if (state.requested.has(key)) return;
  state.requested.add(key);
  const answer = await readWindow(k * CHUNK, CHUNK);
  if (answer === null) {
    if (state.editing) state.stale = true;
    else await refresh();
    return;
  }
  if (state.editing) {
    if (answer.version !== state.baseVersion) return;
    keepRows(answer);
  } else if (answer.version > state.version) {
    adopt(answer);
    return;
  } else if (answer.version === state.version) {
    keepRows(answer);
  } else {
    return;
  }
  forgetFarWindows();
  render(true);
}

/** Drops the windows farthest from the screen, past `KEPT_CHUNKS` of them. */
function forgetFarWindows() {
  if (state.chunks.size <= KEPT_CHUNKS) return;
  const centre = Math.floor(firstShown() / CHUNK);
  const far = [...state.chunks.keys()].sort((a, b) => Math.abs(b - centre) - Math.abs(a - centre));
  for (const k of far.slice(0, state.chunks.size - KEPT_CHUNKS)) {
    state.chunks.delete(k);
    for (const key of [...state.requested]) if (key.endsWith(":" + k)) state.requested.delete(key);
  }
}

/** Reads the rows on screen afresh (the list changed, or the page opens) and draws them, rows sliding from where they were. */
async function refresh() {
  const at = Math.floor(firstShown() / CHUNK) * CHUNK;
  const answer = await readWindow(at, 2 * CHUNK);
  if (state.editing) {
    if (answer === null || answer.version !== state.baseVersion) state.stale = true;
    return;
  }
  if (answer === null || answer.version < state.version) return;
  adopt(answer);
}

/** Takes a fresh answer as the list: its outline and its rows, drawn with moves animated. */
function adopt(answer) {
  const positions = rowPositions();
  setOutline(answer);
  keepRows(answer);
  render(true);
  animateFrom(positions);
}

// MARK: - Layout: where every section and row is, without reading them

/** A section's row count in what is shown (the draft while editing). */
function countOf(s) {
  return state.editing ? state.draftCounts[s] : state.outline[s].count;
}

function sectionHeight(s) {
  const count = countOf(s);
  return HEAD + (count > 0 ? count * ROW : state.editing ? EMPTY + FOOT : 0);
}

/** Each section's top and the table's height, unscaled; computed again when counts change. */
function layout() {
  if (state.layout) return state.layout;
  const tops = [];
  let y = 0;
  for (let s = 0; s < state.outline.length; s += 1) {
    tops.push(y);
    y += sectionHeight(s);
  }
  tops.push(y);
  state.layout = { tops, height: y };
  return state.layout;
}

/** What the screen shows: `p`, the table's scrolled offset, and `v`, the same in the unscaled table. */
function viewport() {
  const bar = document.querySelector(".bar").offsetHeight;
  const { height } = layout();
  const physical = Math.min(height, MAX_HEIGHT);
  const seen = Math.max(ROW, window.innerHeight - bar);
  const spaceTop = $("table").getBoundingClientRect().top + window.scrollY;
  const maxP = Math.max(0, physical - seen);
  const maxV = Math.max(0, height - seen);
  const p = Math.min(maxP, Math.max(0, window.scrollY + bar - spaceTop));
  const v = maxP > 0 ? (p * maxV) / maxP : 0;
  return { p, v, seen, physical, height, maxP, maxV, spaceTop, bar };
}

/** The last section that starts at or above `y`. */
function sectionAt(tops, y) {
  let low = 0;
  let high = Math.max(0, state.outline.length - 1);
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (tops[middle] <= y) low = middle; else high = middle - 1;
  }
  return low;
}

/** The rows to put in the page: for each section near the screen, its rows [first, end). */
function rangeOf(view) {
  const { tops } = layout();
  const step = STEP * ROW;
  const top = Math.max(0, Math.floor((view.v - Math.min(OVERSCAN * ROW, view.p)) / step) * step);
  const bottom = Math.ceil((view.v + view.seen + OVERSCAN * ROW) / step) * step;
  const parts = [];
  for (let s = sectionAt(tops, top); s < state.outline.length && tops[s] < bottom; s += 1) {
    const count = countOf(s);
    const first = Math.max(0, Math.min(count, Math.floor((top - tops[s] - HEAD) / ROW)));
    const end = Math.max(first, Math.min(count, Math.ceil((bottom - tops[s] - HEAD) / ROW)));
    parts.push({ s, first, end });
  }
  return parts;
}

/** The list-wide index of the first row in the page (0 before anything is laid out). */
function firstShown() {
  if (state.outline.length === 0) return 0;
  const parts = rangeOf(viewport());
  return parts.length ? state.starts[parts[0].s] + parts[0].first : 0;
}

/** Scrolls so that row `i` of section `s` (of what is shown) is on screen, when it is not. */
function scrollToRow(s, i) {
  const view = viewport();
  const y = layout().tops[s] + HEAD + i * ROW;
  if (y >= view.v && y + ROW <= view.v + view.seen) return;
  const v = Math.max(0, Math.min(view.maxV, y - view.seen / 2));
  const p = view.maxV > 0 ? (v * view.maxP) / view.maxV : 0;
  window.scrollTo(0, p + view.spaceTop - view.bar);
}

// MARK: - Rendering

/** The row at place `i` of section `s` in what is shown: through the reorder's moves to the row read. */
function rowAt(s, i) {
  if (state.editing) {
    for (let k = state.moves.length - 1; k >= 0; k -= 1) {
      const move = state.moves[k];
      if (s === move.to[0]) {
        if (i === move.to[1]) return move.row;
        if (i > move.to[1]) i -= 1;
      }
      if (s === move.from[0] && i >= move.from[1]) i += 1;
    }
  }
  return cached(state.starts[s] + i);
}

/** Draws the rows near the screen (again only when they, or what they are, changed, unless `force`). */
function render(force) {
  const table = $("table");
  const view = viewport();
  const parts = rangeOf(view);
  const key = parts.map((p) => p.s + ":" + p.first + "-" + p.end).join(",");
  if (!force && key === state.rendered) return;
  state.rendered = key;
  const focused = document.activeElement && document.activeElement.closest ? document.activeElement.closest(".row") : null;
  const focusedID = focused && table.contains(focused) ? focused.dataset.id : null;
  for (const sortable of state.sortables) sortable.destroy();
  state.sortables = [];
  table.classList.toggle("editing", state.editing);
  const missing = new Set();
  const nodes = [];
  let drawn = 0;
  for (const { s, first, end } of parts) {
    const section = state.outline[s];
    const count = countOf(s);
    const element = document.createElement("section");
    element.className = "section" + (state.editing ? " editing-section" : "");
    element.dataset.id = String(section.id);
    const header = document.createElement("h2");
    header.className = "section-header";
    header.id = "section-" + section.id;
    header.textContent = escaped(section.title);
    header.title = header.textContent;
    const head = document.createElement("div");
    head.className = "section-head";
    head.append(header);
    if (canEdit() && !state.editing) head.append(sectionActions(section, s, count));
    const rows = document.createElement("ul");
    rows.className = "rows" + (count === 0 ? " empty" : "");
    rows.dataset.section = String(s);
    rows.dataset.first = String(first);
    rows.setAttribute("aria-labelledby", header.id);
    for (let i = first; i < end; i += 1) {
      const row = rowAt(s, i);
      if (row === null) missing.add(Math.floor(rowAtBase(s, i) / CHUNK));
      rows.append(rowElement(row, s, i, count));
    }
    const footer = document.createElement("p");
    footer.className = "footer";
    footer.textContent = escaped(section.emptyText ?? "No Data");
    footer.hidden = !(state.editing && count === 0);
    element.append(head, rows, footer);
    nodes.push(element);
    drawn += HEAD + (end - first) * ROW + (count === 0 && state.editing ? EMPTY + FOOT : 0);
    if (state.editing && dragAvailable) {
      state.sortables.push(window.Sortable.create(rows, {
        group: "rows", animation: 150, handle: ".handle", draggable: ".row", filter: ".placeholder",
        forceFallback: true, fallbackTolerance: 3,
        onStart: () => { state.dragging = true; },
        onEnd: (event) => {
          state.dragging = false;
          const from = [Number(event.from.dataset.section), Number(event.from.dataset.first) + event.oldIndex];
          const to = [Number(event.to.dataset.section), Number(event.to.dataset.first) + event.newIndex];
          const row = rowAt(from[0], from[1]);
          window.setTimeout(() => {
            if (row && (from[0] !== to[0] || from[1] !== to[1])) addMove(row, from, to);
            render(true);
          }, 0);
        },
      }));
    }
  }
  const firstY = parts.length ? layout().tops[parts[0].s] + parts[0].first * ROW : 0;
  const above = Math.max(0, Math.round(view.p + firstY - view.v));
  const below = Math.max(0, Math.round(view.physical - above - drawn));
  table.replaceChildren(spacer(above), ...nodes, spacer(below));
  $("version").textContent = "version " + state.version;
  $("edit").hidden = !canEdit() || state.editing;
  $("add-section").hidden = !canEdit() || state.editing;
  $("save").hidden = !state.editing;
  $("cancel").hidden = !state.editing;
  if (focusedID !== null) focusRow(focusedID);
  for (const k of missing) readChunk(k).catch(fail);
}

/** The list-wide index, in the version read, of the row shown at place `i` of section `s`. */
function rowAtBase(s, i) {
  if (state.editing) {
    for (let k = state.moves.length - 1; k >= 0; k -= 1) {
      const move = state.moves[k];
      if (s === move.to[0] && i > move.to[1]) i -= 1;
      if (s === move.from[0] && i >= move.from[1]) i += 1;
    }
  }
  return state.starts[s] + i;
}

function spacer(height) {
  const element = document.createElement("div");
  element.className = "spacer";
  element.style.height = height + "px";
  element.setAttribute("aria-hidden", "true");
  return element;
}

function rowElement(row, s, i, count) {
  const item = document.createElement("li");
  item.setAttribute("aria-posinset", String(i + 1));
  item.setAttribute("aria-setsize", String(count));
  if (row === null) {
    // Its window is being read.
    item.className = "row placeholder";
    item.setAttribute("aria-busy", "true");
    const title = document.createElement("span");
    title.className = "title";
    title.textContent = "\u2026";
    item.append(title);
    return item;
  }
  item.className = "row " + row.kind;
  item.dataset.id = String(row.id);
  item.tabIndex = 0;
  if (state.editing) {
    item.setAttribute("aria-roledescription", "movable row");
    const handle = document.createElement("span");
    handle.className = "handle";
    handle.setAttribute("aria-hidden", "true");
    handle.textContent = "\u2630";
    item.append(handle);
  }
  const title = document.createElement("span");
  title.className = "title";
  title.textContent = escaped(row.title);
  title.title = title.textContent;
  item.append(title);
  if (row.kind === "field") {
    const value = document.createElement("span");
    value.className = "value";
    value.textContent = row.value === null || row.value === undefined ? "-" : escaped(row.value);
    item.append(value);
  }
  if (canEdit() && !state.editing) {
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "delete";
    remove.textContent = "Delete";
    remove.setAttribute("aria-label", "Delete " + escaped(row.title));
    remove.addEventListener("click", () => { deleteRow(row.id).catch(fail); });
    const rename = document.createElement("button");
    rename.type = "button";
    rename.className = "rename";
    rename.textContent = "Rename";
    rename.setAttribute("aria-label", "Rename " + escaped(row.title));
    rename.addEventListener("click", () => renameRow(row));
    item.append(rename, remove);
  }
  if (state.picked === row.id) item.classList.add("picked");
  return item;
}

/** Where each row is on screen, by id: what a move animates from. */
function rowPositions() {
  const positions = new Map();
  for (const item of document.querySelectorAll(".row[data-id]")) positions.set(item.dataset.id, item.getBoundingClientRect().top);
  return positions;
}

/** Animates each row that was on screen from where it was to where it is: a move, not a delete and an insert. */
function animateFrom(positions) {
  for (const item of document.querySelectorAll(".row[data-id]")) {
    const was = positions.get(item.dataset.id);
    if (was === undefined) continue;
    const delta = was - item.getBoundingClientRect().top;
    if (Math.abs(delta) < 1 || Math.abs(delta) > window.innerHeight || !item.animate) continue;
    item.animate([{ transform: `translateY(${delta}px)` }, { transform: "translateY(0)" }], { duration: 250, easing: "ease-out" });
  }
}

/** Where a row in the page is: [section index, place in its section], or null when it is not in the page. */
function placeOf(id) {
  const item = document.querySelector(`.row[data-id="${id}"]`);
  if (!item) return null;
  return [Number(item.parentElement.dataset.section), Number(item.getAttribute("aria-posinset")) - 1];
}

// MARK: - Reorder mode

function startEditing() {
  state.editing = true;
  state.moves = [];
  state.baseVersion = state.version;
  state.stale = false;
  recount();
  render(true);
  announce(dragAvailable ? "Editing. Drag rows, or pick one with Space and move it with the arrow keys." : "Editing. Pick a row with Space and move it with the arrow keys.");
}

/** Each section's count in the draft, after the moves; the layout is computed again. */
function recount() {
  state.draftCounts = state.outline.map((s) => s.count);
  for (const move of state.moves) {
    state.draftCounts[move.from[0]] -= 1;
    state.draftCounts[move.to[0]] += 1;
  }
  state.layout = null;
}

/** Adds a move of `row` from place `from` to place `to` of the draft (a row moved again in a row is one move). */
function addMove(row, from, to) {
  const last = state.moves[state.moves.length - 1];
  if (last && last.row.id === row.id && last.to[0] === from[0] && last.to[1] === from[1]) {
    state.moves.pop();
    if (last.from[0] !== to[0] || last.from[1] !== to[1]) state.moves.push({ row, from: last.from, to });
  } else {
    state.moves.push({ row, from, to });
  }
  recount();
}

function stopEditing() {
  state.editing = false;
  state.moves = [];
  state.picked = null;
  state.dragging = false;
  recount();
  $("conflict").hidden = true;
}

function cancelEditing() {
  const positions = rowPositions();
  const stale = state.stale;
  stopEditing();
  render(true);
  animateFrom(positions);
  announce("Cancelled; the order is as it was.");
  if (stale) refresh().catch(fail);
}

/** The intents that make the draft: one move for each row moved, to its last place, by its neighbours there. */
function moveIntents() {
  const finals = new Map();
  state.moves.forEach((move, k) => finals.set(move.row.id, { row: move.row, place: move.to, since: k }));
  for (const entry of finals.values()) {
    let [s, i] = entry.place;
    for (let k = entry.since + 1; k < state.moves.length; k += 1) {
      const move = state.moves[k];
      if (s === move.from[0] && i > move.from[1]) i -= 1;
      if (s === move.to[0] && i >= move.to[1]) i += 1;
    }
    entry.place = [s, i];
  }
  const sorted = [...finals.values()].sort((a, b) => a.place[0] - b.place[0] || a.place[1] - b.place[1]);
  return sorted.map(({ row, place: [s, i] }) => ({
    op: "moveRow", row: row.id,
    to: { section: state.outline[s].id, before: neighbours(s, i, -1), after: neighbours(s, i, 1), index: i },
  }));
}

/** The ids of up to four rows beside place `i` of section `s` in what is shown, nearest first. */
function neighbours(s, i, step) {
  const ids = [];
  for (let j = i + step; ids.length < 4 && j >= 0 && j < countOf(s); j += step) {
    const row = rowAt(s, j);
    if (row === null) break;
    ids.push(row.id);
  }
  return ids;
}

async function save(rebased) {
  const intents = moveIntents();
  if (intents.length === 0) {
    stopEditing();
    render(true);
    announce("Nothing moved.");
    return;
  }
  const body = rebased ? { intents } : { base: state.baseVersion, intents };
  const { status, answer } = await call("POST", "/intents", body);
  if (status === 409) {
    $("conflict").hidden = false;
    announce("Someone else saved the list meanwhile.");
    return;
  }
  if (status !== 200) {
    showNotice((answer && answer.error) || "The order could not be saved (" + status + ").");
    return;
  }
  const positions = rowPositions();
  stopEditing();
  const fresh = await readWindow(Math.floor(firstShown() / CHUNK) * CHUNK, 2 * CHUNK);
  if (fresh !== null && fresh.version >= state.version) {
    setOutline(fresh);
    keepRows(fresh);
  }
  render(true);
  animateFrom(positions);
  announce("Saved.");
}

// MARK: - Keyboard reordering

function onKey(event) {
  const item = event.target.closest && event.target.closest(".row[data-id]");
  if (!item) return;
  const id = Number(item.dataset.id);
  if (!state.editing) {
    if ((event.key === "Delete" || event.key === "Backspace") && canEdit()) {
      event.preventDefault();
      deleteRow(id).catch(fail);
    } else if (event.key === "ArrowUp" || event.key === "ArrowDown") {
      event.preventDefault();
      focusNext(item, event.key === "ArrowUp" ? -1 : 1);
    }
    return;
  }
  if (event.key === " ") {
    event.preventDefault();
    if (state.picked === null) {
      state.picked = id;
      state.pickedMoves = state.moves.slice();
      item.classList.add("picked");
      announce("Picked up " + describe(id) + ". Move it with the arrow keys, drop it with Space, Escape puts it back.");
    } else {
      state.picked = null;
      render(true);
      focusRow(id);
      announce("Dropped " + describe(id) + ".");
    }
  } else if (event.key === "Escape" && state.picked !== null) {
    event.preventDefault();
    state.moves = state.pickedMoves;
    state.picked = null;
    recount();
    render(true);
    focusRow(id);
    announce("Put back " + describe(id) + ".");
  } else if ((event.key === "ArrowUp" || event.key === "ArrowDown") && state.picked === id) {
    event.preventDefault();
    moveByKey(id, event.key === "ArrowUp" ? -1 : 1);
  } else if (event.key === "ArrowUp" || event.key === "ArrowDown") {
    event.preventDefault();
    focusNext(item, event.key === "ArrowUp" ? -1 : 1);
  }
}

/** Focuses the row after (or before) `item`, bringing it on screen. */
function focusNext(item, step) {
  const all = [...document.querySelectorAll(".row[data-id]")];
  const next = all[all.indexOf(item) + step];
  if (!next) return;
  next.focus({ preventScroll: true });
  next.scrollIntoView({ block: "nearest" });
  render(false);
}

/** Moves the picked row one place up or down; past a section's end it goes into the next section (an empty one too). */
function moveByKey(id, step) {
  const place = placeOf(id);
  if (!place) return;
  const [s, r] = place;
  const row = rowAt(s, r);
  let to = null;
  if (step < 0 && r > 0) to = [s, r - 1];
  else if (step > 0 && r < countOf(s) - 1) to = [s, r + 1];
  else if (step < 0 && s > 0) to = [s - 1, countOf(s - 1)];
  else if (step > 0 && s < state.outline.length - 1) to = [s + 1, 0];
  if (to !== null) {
    addMove(row, place, to);
    scrollToRow(to[0], to[1]);
  }
  render(true);
  focusRow(id);
  announce(describe(id));
}

function focusRow(id) {
  const item = document.querySelector(`.row[data-id="${id}"]`);
  if (item) item.focus({ preventScroll: true });
}

/** "Bread, row 2 of 3 in Groceries": where a row is, for a screen reader. */
function describe(id) {
  const place = placeOf(id);
  if (!place) return "";
  const [s, i] = place;
  return `${escaped(rowAt(s, i).title)}, row ${i + 1} of ${countOf(s)} in ${escaped(state.outline[s].title)}`;
}

// MARK: - Delete and undo

async function deleteRow(id) {
  const place = placeOf(id);
  if (!place) return;
  const [s, index] = place;
  const row = rowAt(s, index);
  const placement = { section: state.outline[s].id, before: neighbours(s, index, -1), after: neighbours(s, index, 1), index };
  const { status, answer } = await call("POST", "/intents", { intents: [{ op: "deleteRow", row: id }] });
  if (status !== 200) {
    showNotice((answer && answer.error) || "The row could not be deleted (" + status + ").");
    render(true);
    return;
  }
  const content = { kind: row.kind, title: row.title };
  if (row.kind === "field" && row.value !== null) content.value = row.value;
  state.lastDeleted = { content, placement };
  $("undo-text").textContent = "Deleted " + escaped(row.title) + ".";
  $("undo-bar").hidden = false;
  announce("Deleted " + escaped(row.title) + ". Undo is offered.");
  await refresh();
}

async function undoDelete() {
  const deleted = state.lastDeleted;
  if (!deleted) return;
  state.lastDeleted = null;
  $("undo-bar").hidden = true;
  const { status, answer } = await call("POST", "/intents", { intents: [{ op: "addRow", content: deleted.content, at: deleted.placement }] });
  if (status !== 200) showNotice((answer && answer.error) || "The row could not be put back (" + status + ").");
  announce("Put back " + escaped(deleted.content.title) + ".");
  await refresh();
}

// MARK: - Swipe to delete (touch)

/** The row a finger is swiping: its element, its id, where the touch started and how far it went left. */
let swipe = null;

/** A row pressed by a finger (not while editing, not on a button) may be swiped left to delete it. */
function onPointerDown(event) {
  if (event.pointerType !== "touch" || state.editing || !canEdit() || event.target.closest("button")) return;
  const item = event.target.closest(".row[data-id]");
  if (!item) return;
  swipe = { item, id: Number(item.dataset.id), pointer: event.pointerId, x: event.clientX, y: event.clientY, dx: 0, sideways: false };
}

function onPointerMove(event) {
  if (!swipe || event.pointerId !== swipe.pointer) return;
  const dx = event.clientX - swipe.x;
  const dy = event.clientY - swipe.y;
  if (!swipe.sideways) {
    if (Math.abs(dy) > 10 && Math.abs(dy) > Math.abs(dx)) { swipe = null; return; } // a scroll, not a swipe
    if (Math.abs(dx) < 10) return;
    swipe.sideways = true;
    swipe.item.classList.add("swiping");
  }
  swipe.dx = Math.min(0, dx);
  swipe.item.style.transform = `translateX(${swipe.dx}px)`;
}

/** A swipe past a third of the row (or 120 px) deletes it, with Undo offered; a shorter one springs back. */
function onPointerUp(event) {
  if (!swipe || event.pointerId !== swipe.pointer) return;
  const { item, id, dx, sideways } = swipe;
  swipe = null;
  if (!sideways || !item.isConnected) return;
  item.classList.remove("swiping");
  if (event.type === "pointerup" && -dx >= Math.min(120, item.offsetWidth / 3)) {
    item.style.transform = "translateX(-100%)";
    deleteRow(id).catch(fail);
  } else {
    item.style.transform = "";
  }
}

// MARK: - Adding, renaming and deleting sections and rows

/** The section's buttons beside its header: add a row, rename it, delete it. */
function sectionActions(section, s, count) {
  const actions = document.createElement("span");
  actions.className = "section-actions";
  const shownTitle = escaped(section.title);
  for (const [name, label, act] of [
    ["add-row", "Add row", () => addRow(s)],
    ["rename-section", "Rename", () => renameSection(s)],
    ["delete-section", "Delete", () => deleteSection(s, count)],
  ]) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = name;
    button.textContent = label;
    button.setAttribute("aria-label", label + " " + (name === "add-row" ? "to " : "") + "section " + shownTitle);
    button.addEventListener("click", act);
    actions.append(button);
  }
  return actions;
}

/** What the editor's Save does: turns the form's values into intents, or null to close. */
let editorAction = null;

/**
 * Opens the editor: `heading` says what it does; `fields` says which inputs show (`kind`,
 * `title`, `value`) and what they start with; `ok` names its button; `action` makes the intents.
 */
function openEditor(heading, fields, ok, action) {
  $("editor-heading").textContent = heading;
  $("editor-kind-label").hidden = !("kind" in fields);
  $("editor-title-label").hidden = !("title" in fields);
  $("editor-kind").value = fields.kind ?? "text";
  $("editor-title").value = fields.title ?? "";
  $("editor-value").value = fields.value ?? "";
  $("editor-ok").textContent = ok;
  $("editor-error").textContent = "";
  editorAction = action;
  showValueField("value" in fields);
  $("editor").hidden = false;
  ("title" in fields ? $("editor-title") : $("editor-ok")).focus();
}

/** Shows the value input for a field row (or when `always`). */
function showValueField(always) {
  $("editor-value-label").hidden = !(always || (!$("editor-kind-label").hidden && $("editor-kind").value === "field"));
}

function closeEditor() {
  $("editor").hidden = true;
  editorAction = null;
}

async function submitEditor(event) {
  event.preventDefault();
  if (!editorAction) return;
  const values = { kind: $("editor-kind").value, title: $("editor-title").value, value: $("editor-value").value };
  const intents = editorAction(values);
  if (intents === null) return;
  const { status, answer } = await call("POST", "/intents", { intents });
  if (status !== 200) {
    $("editor-error").textContent = (answer && answer.error) || "The change could not be written (" + status + ").";
    return;
  }
  const dropped = (answer.outcomes || []).find((o) => o.outcome && o.outcome.result === "dropped");
  if (dropped) {
    $("editor-error").textContent = "The change was not made: the list changed meanwhile.";
    return;
  }
  closeEditor();
  announce("Saved.");
  await refresh();
}

/** The ids of up to four sections beside place `s`, nearest first. */
function sectionNeighbours(s, step) {
  const ids = [];
  for (let j = s + step; ids.length < 4 && j >= 0 && j < state.outline.length; j += step) ids.push(state.outline[j].id);
  return ids;
}

function addSection() {
  openEditor("Add a section at the end of the list", { title: "" }, "Add", ({ title }) => {
    const at = { before: sectionNeighbours(state.outline.length, -1), after: [], index: state.outline.length };
    return [{ op: "addSection", title, at }];
  });
}

function renameSection(s) {
  const section = state.outline[s];
  openEditor("Rename the section " + escaped(section.title), { title: section.title }, "Rename", ({ title }) => [
    { op: "renameSection", section: section.id, title },
  ]);
}

function deleteSection(s, count) {
  const section = state.outline[s];
  const intents = [{ op: "deleteSection", section: section.id, force: count > 0 }];
  if (count === 0) {
    call("POST", "/intents", { intents })
      .then(({ status, answer }) => {
        if (status !== 200) showNotice((answer && answer.error) || "The section could not be deleted (" + status + ").");
        announce("Deleted the section " + escaped(section.title) + ".");
        return refresh();
      })
      .catch(fail);
    return;
  }
  // A section with rows goes only when asked twice: its rows go with it.
  const rows = count === 1 ? "its row" : "its " + count.toLocaleString("en") + " rows";
  openEditor("Delete the section " + escaped(section.title) + " and " + rows + "?", {}, "Delete", () => intents);
}

function addRow(s) {
  const section = state.outline[s];
  openEditor("Add a row at the end of " + escaped(section.title), { kind: "text", title: "" }, "Add", ({ kind, title, value }) => {
    const count = countOf(s);
    const content = { kind, title };
    if (kind === "field" && value !== "") content.value = value;
    return [{ op: "addRow", content, at: { section: section.id, before: neighbours(s, count, -1), after: [], index: count } }];
  });
}

function renameRow(row) {
  const fields = { title: row.title };
  if (row.kind === "field") fields.value = row.value ?? "";
  openEditor("Rename " + escaped(row.title), fields, "Rename", ({ title, value }) => {
    const intent = { op: "updateRow", row: row.id, title };
    if (row.kind === "field") intent.value = value === "" ? null : value;
    return [intent];
  });
}

// MARK: - Live updates

function follow() {
  if (state.events) state.events.close();
  const events = new EventSource(base + "/events?since=" + state.version);
  state.events = events;
  const update = () => {
    if (state.editing) state.stale = true;
    else refresh().catch(fail);
  };
  events.addEventListener("change", update);
  events.addEventListener("reload", update);
  events.addEventListener("deleted", () => { showNotice("This list was deleted."); events.close(); });
}

/** Draws the rows that came on screen, once a frame at most. */
let frameAsked = false;
function onScroll() {
  if (frameAsked || state.dragging || !state.painted) return;
  frameAsked = true;
  window.requestAnimationFrame(() => {
    frameAsked = false;
    if (!state.dragging) render(false);
  });
}

// MARK: - Session

async function start() {
  $("list-name").textContent = escaped(listName);
  document.title = escaped(listName) + " — sectionctl";
  if (!dragAvailable) showNotice("Drag is off: the server has no SortableJS (apt-get install libjs-sortable, or serve --assets DIR). Rows move by keyboard: Edit, then Space and the arrow keys.");
  const { status, answer } = await call("GET", "/session");
  if (status === 401 || (status === 200 && answer.role === null)) {
    $("login").hidden = false;
    $("token").focus();
    return;
  }
  if (status !== 200) throw new Error((answer && answer.error) || "the session could not be read (" + status + ")");
  await opened(answer);
}

async function opened(session) {
  state.role = session.role;
  state.csrf = session.csrf;
  $("login").hidden = true;
  await refresh();
  state.painted = true;
  // The first rows are drawn: what the benchmark's first paint reads.
  performance.mark("sectionctl-first-rows");
  follow();
  document.body.dataset.ready = "true";
}

async function login(event) {
  event.preventDefault();
  const token = $("token").value.trim();
  const { status, answer } = await call("POST", "/session", { token });
  $("token").value = "";
  if (status !== 200) {
    $("login-error").textContent = (answer && answer.error) || "The token was refused (" + status + ").";
    return;
  }
  $("login-error").textContent = "";
  await opened(answer);
}

function fail(error) {
  showNotice(String(error && error.message ? error.message : error));
}

$("login").addEventListener("submit", (event) => { login(event).catch(fail); });
$("edit").addEventListener("click", () => { closeEditor(); startEditing(); });
$("add-section").addEventListener("click", addSection);
$("editor").addEventListener("submit", (event) => { submitEditor(event).catch(fail); });
$("editor-cancel").addEventListener("click", closeEditor);
$("editor-kind").addEventListener("change", () => showValueField(false));
$("editor").addEventListener("keydown", (event) => { if (event.key === "Escape") closeEditor(); });
$("cancel").addEventListener("click", cancelEditing);
$("save").addEventListener("click", () => { save(false).catch(fail); });
$("rebase").addEventListener("click", () => { save(true).catch(fail); });
$("reload").addEventListener("click", () => { stopEditing(); refresh().catch(fail); });
$("undo").addEventListener("click", () => { undoDelete().catch(fail); });
$("table").addEventListener("keydown", onKey);
$("table").addEventListener("pointerdown", onPointerDown);
window.addEventListener("pointermove", onPointerMove);
window.addEventListener("pointerup", onPointerUp);
window.addEventListener("pointercancel", onPointerUp);
window.addEventListener("scroll", onScroll, { passive: true });
window.addEventListener("resize", onScroll);
start().catch(fail);
