// The list page of `sectionctl serve` (docs/browser.md): a grouped table read through the
// service's endpoints, kept live by its event stream, reordered by drag (SortableJS, when the
// server has it) or by keyboard, saved as one change of intents. Titles are only ever inserted as
// text (textContent), escaped as the command line escapes them.

import { escaped } from "./escape.js";

const listName = decodeURIComponent(location.pathname.split("/")[2] || "");
const base = "/lists/" + encodeURIComponent(listName);
const $ = (id) => document.getElementById(id);

/** The page's state: the list as last read, the session, and the reorder in progress. */
const state = {
  version: 0,
  sections: [], // [{id, title, emptyText, rows: [{id, kind, title, value}]}]
  role: null,
  csrf: "",
  editing: false,
  draft: null, // the sections while editing (rows reordered)
  before: null, // the order when Edit was pressed: what Cancel restores
  baseVersion: 0,
  staleWhileEditing: false,
  picked: null, // the row id picked by keyboard
  pickedFrom: null,
  sortables: [],
  events: null,
  lastDeleted: null,
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
  return { status: response.status, answer };
}

// MARK: - Reading the list

/** Reads the whole list, window by window, at one version (again from the start if it moves on). */
async function readList() {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    let from = "0:0";
    let version = null;
    let sections = null;
    let moved = false;
    while (from !== null) {
      const query = "?limit=1000&from=" + from + (version === null ? "" : "&version=" + version);
      const { status, answer } = await call("GET", "/window" + query);
      if (status === 409) { moved = true; break; }
      if (status !== 200) throw new Error((answer && answer.error) || "the list could not be read (" + status + ")");
      if (sections === null) {
        version = answer.version;
        sections = answer.sections.map((s) => ({ id: s.id, title: s.title, emptyText: s.empty_text, rows: [] }));
      }
      for (const row of answer.rows) {
        sections[row.section].rows.push({ id: row.id, kind: row.kind, title: row.title, value: row.value });
      }
      from = answer.next;
    }
    if (!moved) return { version, sections };
  }
  throw new Error("the list kept changing while it was read; reload the page");
}

async function refresh() {
  const { version, sections } = await readList();
  if (state.editing) {
    if (version !== state.baseVersion) state.staleWhileEditing = true;
    return;
  }
  const positions = rowPositions();
  state.version = version;
  state.sections = sections;
  render();
  animateFrom(positions);
}

// MARK: - Rendering

function clone(sections) {
  return sections.map((s) => ({ ...s, rows: s.rows.map((r) => ({ ...r })) }));
}

function shown() {
  return state.editing ? state.draft : state.sections;
}

function render() {
  const table = $("table");
  const canEdit = state.role === "edit" || state.role === "admin";
  table.classList.toggle("editing", state.editing);
  table.replaceChildren();
  for (const sortable of state.sortables) sortable.destroy();
  state.sortables = [];
  shown().forEach((section, sectionIndex) => {
    const element = document.createElement("section");
    element.className = "section" + (state.editing ? " editing-section" : "");
    element.dataset.id = String(section.id);
    const header = document.createElement("h2");
    header.className = "section-header";
    header.id = "section-" + section.id;
    header.textContent = escaped(section.title);
    const rows = document.createElement("ul");
    rows.className = "rows";
    rows.dataset.section = String(section.id);
    rows.setAttribute("aria-labelledby", header.id);
    section.rows.forEach((row, rowIndex) => rows.append(rowElement(row, section, rowIndex, canEdit)));
    const footer = document.createElement("p");
    footer.className = "footer";
    footer.textContent = escaped(section.emptyText ?? "No Data");
    footer.hidden = !(state.editing && section.rows.length === 0);
    element.append(header, rows, footer);
    table.append(element);
    if (state.editing && dragAvailable) {
      state.sortables.push(window.Sortable.create(rows, {
        group: "rows", animation: 150, handle: ".handle", draggable: ".row", forceFallback: true, fallbackTolerance: 3,
        onEnd: () => { readDraftFromDOM(); },
      }));
    }
  });
  $("version").textContent = "version " + state.version;
  $("edit").hidden = !canEdit || state.editing;
  $("save").hidden = !state.editing;
  $("cancel").hidden = !state.editing;
}

function rowElement(row, section, rowIndex, canEdit) {
  const item = document.createElement("li");
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
  item.append(title);
  if (row.kind === "field") {
    const value = document.createElement("span");
    value.className = "value";
    value.textContent = row.value === null || row.value === undefined ? "-" : escaped(row.value);
    item.append(value);
  }
  if (canEdit && !state.editing) {
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "delete";
    remove.textContent = "Delete";
    remove.setAttribute("aria-label", "Delete " + escaped(row.title));
    remove.addEventListener("click", () => deleteRow(row.id));
    item.append(remove);
  }
  if (state.picked === row.id) item.classList.add("picked");
  return item;
}

/** Where each row is on screen, by id: what a move animates from. */
function rowPositions() {
  const positions = new Map();
  for (const item of document.querySelectorAll(".row")) positions.set(item.dataset.id, item.getBoundingClientRect().top);
  return positions;
}

/** Animates each row that was on screen from where it was to where it is: a move, not a delete and an insert. */
function animateFrom(positions) {
  for (const item of document.querySelectorAll(".row")) {
    const was = positions.get(item.dataset.id);
    if (was === undefined) continue;
    const delta = was - item.getBoundingClientRect().top;
    if (Math.abs(delta) < 1 || !item.animate) continue;
    item.animate([{ transform: `translateY(${delta}px)` }, { transform: "translateY(0)" }], { duration: 250, easing: "ease-out" });
  }
}

// MARK: - Reorder mode

function startEditing() {
  state.editing = true;
  state.before = clone(state.sections);
  state.draft = clone(state.sections);
  state.baseVersion = state.version;
  state.staleWhileEditing = false;
  render();
  announce(dragAvailable ? "Editing. Drag rows, or pick one with Space and move it with the arrow keys." : "Editing. Pick a row with Space and move it with the arrow keys.");
}

function stopEditing() {
  state.editing = false;
  state.draft = null;
  state.picked = null;
  $("conflict").hidden = true;
}

function cancelEditing() {
  const positions = rowPositions();
  state.sections = state.before;
  stopEditing();
  render();
  animateFrom(positions);
  announce("Cancelled; the order is as it was.");
  if (state.staleWhileEditing) refresh().catch(fail);
}

/** The draft's order read back from the rows on screen (after a drag). */
function readDraftFromDOM() {
  const rowsByID = new Map();
  for (const section of state.draft) for (const row of section.rows) rowsByID.set(String(row.id), row);
  for (const list of document.querySelectorAll(".rows")) {
    const section = state.draft.find((s) => String(s.id) === list.dataset.section);
    section.rows = [...list.querySelectorAll(".row")].map((item) => rowsByID.get(item.dataset.id));
  }
  updateFooters();
}

function updateFooters() {
  for (const element of document.querySelectorAll(".section")) {
    const section = state.draft.find((s) => String(s.id) === element.dataset.id);
    element.querySelector(".footer").hidden = section.rows.length !== 0;
  }
}

/** The intents that turn `before` into `after`: one move for each row that moved. */
function moveIntents(before, after) {
  const origin = new Map();
  before.forEach((section) => section.rows.forEach((row, index) => origin.set(row.id, { section: section.id, index })));
  const moved = new Set();
  for (const section of after) {
    // The rows that stayed in this section and kept their order (the longest run by old index)
    // stay; every other row is moved.
    const stayed = section.rows.filter((row) => origin.get(row.id).section === section.id);
    const keep = longestIncreasing(stayed.map((row) => origin.get(row.id).index)).map((i) => stayed[i].id);
    const kept = new Set(keep);
    for (const row of section.rows) if (!kept.has(row.id)) moved.add(row.id);
  }
  const intents = [];
  for (const section of after) {
    section.rows.forEach((row, index) => {
      if (!moved.has(row.id)) return;
      intents.push({
        op: "moveRow", row: row.id,
        to: {
          section: section.id,
          before: section.rows.slice(Math.max(0, index - 4), index).map((r) => r.id).reverse(),
          after: section.rows.slice(index + 1, index + 5).map((r) => r.id),
          index,
        },
      });
    });
  }
  return intents;
}

/** The indexes of a longest strictly increasing subsequence of `values`. */
function longestIncreasing(values) {
  const tails = [];
  const previous = new Array(values.length).fill(-1);
  values.forEach((value, i) => {
    let low = 0;
    let high = tails.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (values[tails[middle]] < value) low = middle + 1; else high = middle;
    }
    if (low > 0) previous[i] = tails[low - 1];
    tails[low] = i;
  });
  const result = [];
  for (let i = tails.length ? tails[tails.length - 1] : -1; i !== -1; i = previous[i]) result.unshift(i);
  return result;
}

async function save(rebased) {
  const intents = moveIntents(state.before, state.draft);
  if (intents.length === 0) {
    stopEditing();
    render();
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
  state.sections = state.draft;
  state.version = answer.version;
  stopEditing();
  render();
  announce("Saved.");
  await refresh();
}

// MARK: - Keyboard reordering

function onKey(event) {
  const item = event.target.closest && event.target.closest(".row");
  if (!item) return;
  const id = Number(item.dataset.id);
  if (!state.editing) {
    if ((event.key === "Delete" || event.key === "Backspace") && (state.role === "edit" || state.role === "admin")) {
      event.preventDefault();
      deleteRow(id);
    }
    return;
  }
  if (event.key === " ") {
    event.preventDefault();
    if (state.picked === null) {
      state.picked = id;
      state.pickedFrom = clone(state.draft);
      item.classList.add("picked");
      announce("Picked up " + describe(id) + ". Move it with the arrow keys, drop it with Space, Escape puts it back.");
    } else {
      state.picked = null;
      render();
      focusRow(id);
      announce("Dropped " + describe(id) + ".");
    }
  } else if (event.key === "Escape" && state.picked !== null) {
    event.preventDefault();
    state.draft = state.pickedFrom;
    state.picked = null;
    render();
    focusRow(id);
    announce("Put back " + describe(id) + ".");
  } else if ((event.key === "ArrowUp" || event.key === "ArrowDown") && state.picked === id) {
    event.preventDefault();
    moveByKey(id, event.key === "ArrowUp" ? -1 : 1);
  } else if (event.key === "ArrowUp" || event.key === "ArrowDown") {
    event.preventDefault();
    const all = [...document.querySelectorAll(".row")];
    const next = all[all.indexOf(item) + (event.key === "ArrowUp" ? -1 : 1)];
    if (next) next.focus();
  }
}

/** Moves the picked row one place up or down; past a section's end it goes into the next section (an empty one too). */
function moveByKey(id, step) {
  const sections = state.draft;
  const s = sections.findIndex((section) => section.rows.some((row) => row.id === id));
  const r = sections[s].rows.findIndex((row) => row.id === id);
  const [row] = sections[s].rows.splice(r, 1);
  if (step < 0 && r > 0) sections[s].rows.splice(r - 1, 0, row);
  else if (step > 0 && r < sections[s].rows.length) sections[s].rows.splice(r + 1, 0, row);
  else if (step < 0 && s > 0) sections[s - 1].rows.push(row);
  else if (step > 0 && s < sections.length - 1) sections[s + 1].rows.unshift(row);
  else sections[s].rows.splice(r, 0, row);
  render();
  focusRow(id);
  announce(describe(id));
}

function focusRow(id) {
  const item = document.querySelector(`.row[data-id="${id}"]`);
  if (item) item.focus();
}

/** "Bread, row 2 of 3 in Groceries": where a row is, for a screen reader. */
function describe(id) {
  for (const section of shown()) {
    const index = section.rows.findIndex((row) => row.id === id);
    if (index >= 0) return `${escaped(section.rows[index].title)}, row ${index + 1} of ${section.rows.length} in ${escaped(section.title)}`;
  }
  return "";
}

// MARK: - Delete and undo

async function deleteRow(id) {
  const sections = state.sections;
  const section = sections.find((s) => s.rows.some((row) => row.id === id));
  if (!section) return;
  const index = section.rows.findIndex((row) => row.id === id);
  const row = section.rows[index];
  const placement = {
    section: section.id,
    before: section.rows.slice(Math.max(0, index - 4), index).map((r) => r.id).reverse(),
    after: section.rows.slice(index + 1, index + 5).map((r) => r.id),
    index,
  };
  const { status, answer } = await call("POST", "/intents", { intents: [{ op: "deleteRow", row: id }] });
  if (status !== 200) {
    showNotice((answer && answer.error) || "The row could not be deleted (" + status + ").");
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

// MARK: - Live updates

function follow() {
  if (state.events) state.events.close();
  const events = new EventSource(base + "/events?since=" + state.version);
  state.events = events;
  const update = () => { refresh().catch(fail); };
  events.addEventListener("change", update);
  events.addEventListener("reload", update);
  events.addEventListener("deleted", () => { showNotice("This list was deleted."); events.close(); });
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
$("edit").addEventListener("click", startEditing);
$("cancel").addEventListener("click", cancelEditing);
$("save").addEventListener("click", () => { save(false).catch(fail); });
$("rebase").addEventListener("click", () => { save(true).catch(fail); });
$("reload").addEventListener("click", () => { stopEditing(); refresh().catch(fail); });
$("undo").addEventListener("click", () => { undoDelete().catch(fail); });
$("table").addEventListener("keydown", onKey);
start().catch(fail);
