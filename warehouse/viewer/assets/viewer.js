/* lifeloom release viewer: loads data shards (data/*.js, each calling LL.put) with script tags, so the site works
   opened from disk, and renders them. Shard HTML (turn and chunk text) is escaped by the Python writer. */
(function () {
  "use strict";
  const LL = {
    store: {},
    waiting: {},
    put(key, value) {
      this.store[key] = value;
      (this.waiting[key] || []).forEach((resolve) => resolve(value));
      delete this.waiting[key];
    },
    root() { return document.body.getAttribute("data-root") || ""; },
    load(key) {
      return new Promise((resolve, reject) => {
        if (key in this.store) { resolve(this.store[key]); return; }
        const first = !(key in this.waiting);
        (this.waiting[key] = this.waiting[key] || []).push(resolve);
        if (!first) return;
        const tag = document.createElement("script");
        tag.src = this.root() + "data/" + key + ".js";
        tag.onerror = () => reject(new Error("cannot load " + tag.src));
        document.head.appendChild(tag);
      });
    },
  };
  window.LL = LL;

  function esc(text) {
    return String(text == null ? "" : text).replace(/[&<>"']/g, (c) => (
      { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  }
  function el(html) { const d = document.createElement("div"); d.innerHTML = html; return d.firstElementChild; }
  function ready(fn) {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", fn); else fn();
  }
  function param(name) { return new URLSearchParams(window.location.search).get(name); }
  function scrollToHash() {
    const id = decodeURIComponent(window.location.hash.slice(1));
    const target = id && document.getElementById(id);
    if (target) { target.classList.add("target"); target.scrollIntoView({ block: "center" }); }
  }

  LL.sessionsPage = () => ready(async () => {
    const box = document.getElementById("sessions");
    const pid = box.dataset.persona;
    const months = box.dataset.months ? box.dataset.months.split(",") : [];
    const month = param("m") && months.includes(param("m")) ? param("m") : months[0];
    document.querySelectorAll(".monthnav a").forEach((a) => a.classList.toggle("on", a.dataset.month === month));
    if (!month) { box.textContent = "No conversations."; return; }
    const data = await LL.load(pid + "/sessions-" + month);
    const root = LL.root();
    box.innerHTML = data.days.map((day) => (
      '<section class="day"><h2>' + esc(day.date) + "</h2>" + day.sessions.map((s) => (
        '<div class="session" id="' + esc(s.id) + '"><h3>' + esc(s.time) + " · " + esc(s.category.replace(/_/g, " ")) +
        ' <span class="id">' + esc(s.id) + "</span></h3>" + s.turns.map((t) => (
          '<div class="turn ' + esc(t.role) + '" id="' + esc(t.id) + '"><div class="who">' + esc(t.role) +
          ' <span class="id">' + esc(t.time) + " · " + esc(t.id) + "</span></div><div class=\"text\">" + t.html +
          "</div>" + (t.uploads.length ? '<div class="uploads">uploaded: ' + t.uploads.map((u) => (
            '<a href="documents.html#' + esc(u.id) + '">' + esc(u.title) + "</a>")).join(", ") + "</div>" : "") +
          (t.refs.length ? '<div class="refs">' + t.refs.map((r) => (
            "<span>“" + esc(r.phrase) + "” → " + esc(r.date) + "</span>")).join(" ") + "</div>" : "") + "</div>"
        )).join("") + "</div>")).join("") + "</section>")).join("");
    void root;
    scrollToHash();
  });

  function tableHtml(t) {
    const cols = t.columns || [];
    return '<table class="grid small"><caption>' + esc(t.caption || "") + "</caption><tr>" +
      cols.map((c) => "<th>" + esc(c) + "</th>").join("") + "</tr>" +
      (t.rows || []).map((r) => "<tr>" + r.map((v) => "<td>" + esc(v) + "</td>").join("") + "</tr>").join("") +
      "</table>";
  }
  function docHtml(d) {
    const head = esc(d.type) + " · " + esc(d.format) + " · " + esc(d.created) +
      (d.sender ? " · from " + esc(d.sender) : "") + (d.recipients.length ? " · to " + esc(d.recipients.join(", ")) : "") +
      (d.version > 1 ? " · version " + esc(d.version) : "");
    return '<article class="doc" id="' + esc(d.id) + '"><h3>' + esc(d.title) + ' <span class="id">' + esc(d.id) +
      '</span></h3><div class="meta small">' + head + "</div>" + d.chunks.map((c) => (
        '<div class="chunk" id="' + esc(c.id) + '">' + (c.section ? '<div class="section">' + esc(c.section) +
        "</div>" : "") + '<div class="text">' + c.html + "</div></div>")).join("") +
      d.tables.map(tableHtml).join("") + "</article>";
  }
  LL.documentsPage = () => ready(async () => {
    const box = document.getElementById("documents");
    const data = await LL.load(box.dataset.persona + "/documents");
    const byId = {};
    data.docs.forEach((d) => { byId[d.id] = d; });
    const render = () => {
      const kind = document.getElementById("doctype").value;
      const docs = data.docs.filter((d) => !kind || d.type === kind);
      const threads = {};
      const order = [];
      docs.forEach((d) => {
        const key = d.type === "email" ? "thread:" + d.thread : d.id;
        if (!(key in threads)) { threads[key] = []; order.push(key); }
        threads[key].push(d);
      });
      box.innerHTML = order.map((key) => {
        const group = threads[key];
        if (group.length === 1 && group[0].parent && byId[group[0].parent]) {
          return '<div class="revision"><div>' + docHtml(byId[group[0].parent]) + "</div><div>" + docHtml(group[0]) +
            "</div></div>";
        }
        return group.length > 1 ? '<div class="thread"><div class="small">thread of ' + group.length +
          " emails</div>" + group.map(docHtml).join("") + "</div>" : docHtml(group[0]);
      }).join("");
      scrollToHash();
    };
    document.getElementById("doctype").addEventListener("change", render);
    render();
  });

  LL.questionsPage = () => ready(async () => {
    const box = document.getElementById("questions");
    const form = document.getElementById("filters");
    const data = await LL.load("questions");
    const qs = data.questions;
    const fill = (name, values) => {
      const select = form.elements[name];
      [...new Set(values)].sort().forEach((v) => select.appendChild(el("<option>" + esc(v) + "</option>")));
    };
    fill("persona", qs.map((q) => q.persona));
    fill("category", qs.map((q) => q.category));
    fill("characteristic", qs.flatMap((q) => q.characteristics));
    fill("checkpoint", qs.map((q) => q.checkpoint));
    fill("type", qs.map((q) => q.type));
    const root = LL.root();
    const render = () => {
      const f = Object.fromEntries(new FormData(form).entries());
      const text = (f.text || "").toLowerCase();
      const shown = qs.filter((q) => (!f.persona || q.persona === f.persona) &&
        (!f.category || q.category === f.category) && (!f.characteristic || q.characteristics.includes(f.characteristic)) &&
        (!f.checkpoint || q.checkpoint === f.checkpoint) && (!f.type || q.type === f.type) &&
        (!text || (q.question + " " + q.answer).toLowerCase().includes(text)));
      document.getElementById("shown").textContent = shown.length + " shown";
      box.innerHTML = shown.slice(0, 500).map((q) => (
        '<details class="question" id="' + esc(q.id) + '"><summary><span class="id">' + esc(q.id) + "</span> " +
        esc(q.question) + ' <span class="tag">' + esc(q.category) + " · " + esc(q.characteristics[0] || "") + " · " +
        esc(q.checkpoint) + " · " + esc(q.type) + "</span>" + (q.memory_free ? ' <span class="bad">memory-free</span>' : "") +
        "</summary><div class=\"body\"><p><b>answer</b> " + esc(q.answer) + "</p>" +
        (q.reference && q.reference !== q.answer ? "<p><b>reference</b> " + esc(q.reference) + "</p>" : "") +
        (q.options.length ? "<ol class=\"options\" type=\"A\">" + q.options.map((o, i) => (
          "<li" + (i === q.gold ? ' class="gold"' : "") + ">" + esc(o) + (i === q.gold ? " ✓" : "") + "</li>")).join("") +
          "</ol>" : "") +
        "<p class=\"small\">asked " + esc(q.time) + " of " + esc(data.names[q.persona] || q.persona) + " · template <code>" +
        esc(q.template) + "</code> · solved by: " + esc(q.solved_by.join(", ") || "no baseline") + "</p>" +
        "<h4>evidence</h4><ul class=\"evidence\">" + q.evidence.map((e) => (
          "<li><a href=\"" + esc(root + e.link) + "\">" + esc(e.id) + "</a> " + (e.fact ? "<span class=\"small\">(" +
          esc(e.fact) + ")</span> " : "") + esc(e.text) + "</li>")).join("") + "</ul>" +
        "<details><summary class=\"small\">derivation</summary><pre>" + esc(JSON.stringify(q.derivation, null, 2)) +
        "</pre></details></div></details>")).join("") +
        (shown.length > 500 ? '<p class="small">… ' + (shown.length - 500) + " more: narrow the filters</p>" : "");
      if (window.location.hash) {
        const open = document.getElementById(decodeURIComponent(window.location.hash.slice(1)));
        if (open) open.open = true;
        scrollToHash();
      }
    };
    form.addEventListener("input", render);
    render();
  });

  LL.searchPage = () => ready(() => {
    const form = document.getElementById("search");
    const status = document.getElementById("status");
    const list = document.getElementById("results");
    const indexes = {};
    const root = LL.root();
    const run = async (event) => {
      if (event) event.preventDefault();
      const pid = form.elements.persona.value;
      const query = form.elements.q.value.trim();
      if (!query) return;
      if (!indexes[pid]) {
        status.textContent = "indexing " + pid + "…";
        const data = await LL.load(pid + "/search");
        const index = new MiniSearch({ fields: ["text"], storeFields: ["kind", "time", "text", "link"] });
        index.addAll(data.items);
        indexes[pid] = index;
      }
      const hits = indexes[pid].search(query, { prefix: true, fuzzy: 0.1 }).slice(0, 100);
      status.textContent = hits.length + " results";
      list.innerHTML = hits.map((h) => (
        "<li><a href=\"" + esc(root + h.link) + "\">" + esc(h.id) + "</a> <span class=\"small\">" + esc(h.kind) + " · " +
        esc(h.time) + "</span><div class=\"small\">" + esc(h.text.slice(0, 300)) + "</div></li>")).join("");
    };
    form.addEventListener("submit", run);
    if (param("q")) {  // search.html?persona=p0001&q=words: a search that can be linked to
      if (param("persona")) form.elements.persona.value = param("persona");
      form.elements.q.value = param("q");
      run();
    }
  });
})();
