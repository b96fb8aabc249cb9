/* The card browser's index page: the search box (the query language, bare words through MiniSearch),
   the filters (each one adds a term to the query), the list shown in result order, and the query kept
   in the address (#q=...) so a search can be linked, also from file://. */
(function () {
  "use strict";
  const data = window.CARDSMITH_SITE;
  const index = data.index;
  const Q = window.CardQuery;
  const JA = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\u30fc\\u3005";
  const CJK = new RegExp(`[${JA}]`, "u");
  // a run of Japanese characters, or a run of other letters and digits ("1枚堆肥" is "1" and "枚堆肥")
  const WORDS = new RegExp(`[${JA}]+|(?:(?![${JA}])[\\p{L}\\p{N}])+`, "gu");

  // Words for the full-text index. Japanese is written without spaces: a run of kanji and kana becomes
  // its character bigrams (and, when indexing, its last character, so a one-character search finds it
  // as a prefix); other scripts split on anything that is not a letter or digit.
  function tokenize(text, forQuery) {
    const out = [];
    for (const m of Q.norm(text).matchAll(WORDS)) {
      const w = m[0];
      if (!CJK.test(w[0]) || w.length === 1) { out.push(w); continue; }
      const chars = Array.from(w);
      for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
      if (!forQuery) out.push(chars[chars.length - 1]);
    }
    return out;
  }

  const mini = new MiniSearch({
    fields: ["name", "text"], idField: "id",
    tokenize: (text) => tokenize(text, false),
    processTerm: (term) => term,
    searchOptions: {
      tokenize: (text) => tokenize(text, true), processTerm: (term) => term,
      boost: { name: 3 }, prefix: true, combineWith: "AND",
      fuzzy: (term) => (!CJK.test(term[0]) && term.length >= 5 ? 0.2 : false),
    },
  });
  mini.addAll(data.fulltext);

  const position = new Map(index.docs.map((d, i) => [d.id, i]));
  const cards = index.docs.map((d) => document.getElementById("card-" + d.id));
  const grid = document.getElementById("cards");
  const q = document.getElementById("q");
  const countEl = document.getElementById("count");
  const effective = document.getElementById("effective");
  const errorEl = document.getElementById("error");
  const none = document.getElementById("none");
  const selects = Array.from(document.querySelectorAll("#filters select"));
  const ranges = Array.from(document.querySelectorAll("#filters .range input"));

  function quote(v) { return /[\s()"]/.test(v) ? '"' + v.replace(/["\\]/g, "\\$&") + '"' : v; }

  // The filters as query terms, appended to what the user typed.
  function filterTerms() {
    const terms = [];
    for (const s of selects) if (s.value) terms.push(`${s.dataset.field}:${quote(s.value)}`);
    for (const r of ranges) if (r.value !== "") terms.push(`${r.parentElement.dataset.field}${r.dataset.op}${parseInt(r.value, 10)}`);
    return terms;
  }

  // Bare words: MiniSearch's answer per word (cached for one search), and a relevance order.
  function fullText(words) {
    const hits = new Map();
    const score = new Map();
    for (const w of words) {
      if (hits.has(w.value)) continue;
      const found = new Set();
      for (const r of mini.search(w.word)) { found.add(r.id); score.set(r.id, (score.get(r.id) || 0) + r.score); }
      hits.set(w.value, found);
    }
    return { bare: (check, doc) => hits.get(check.value).has(doc.id), score };
  }

  function search(text) {
    const started = performance.now();
    let result;
    try {
      const plan = Q.plan(text, index);
      const words = Q.bareWords(plan.root, []);
      const ft = fullText(words);
      let order = null;
      if (words.length) {
        order = index.docs.map((_, i) => i);
        order.sort((a, b) => (ft.score.get(index.docs[b].id) || 0) - (ft.score.get(index.docs[a].id) || 0) || a - b);
      }
      result = { ...Q.run(index, text, ft.bare, order), error: null };
    } catch (e) {
      const errors = Array.isArray(e) ? e : [e];
      if (!(errors[0] instanceof Q.QueryError)) throw e;
      result = { found: null, error: errors };
    }
    result.ms = performance.now() - started;
    return result;
  }

  function showError(text, errors) {
    errorEl.textContent = errors.map((e) => `query:1:${e.col}: error: ${e.message}\n  ${text}\n  ` +
      " ".repeat(e.col - 1) + "^".repeat(e.length || 1) + (e.hint ? `\n  = help: ${e.hint}` : "")).join("\n");
    errorEl.hidden = false;
  }

  function update(pushHash) {
    const typed = q.value.trim();
    const terms = filterTerms();
    const text = [typed ? (terms.length && /\bor\b/i.test(typed) ? `(${typed})` : typed) : "", ...terms]
      .filter(Boolean).join(" ");
    const r = search(text);
    window.lastSearch = { query: text, ms: r.ms, count: r.found ? r.found.length : null,
                          error: r.error ? r.error.map((e) => ({ col: e.col, message: e.message })) : null };
    effective.textContent = terms.length ? text : "";
    if (r.error) { showError(text, r.error); return; }
    errorEl.hidden = true;
    const shown = new Set(r.found);
    const frag = document.createDocumentFragment();
    for (const i of r.found) frag.appendChild(cards[i]);
    for (let i = 0; i < cards.length; i++) if (!shown.has(i)) { cards[i].hidden = true; frag.appendChild(cards[i]); }
    for (const i of r.found) cards[i].hidden = false;
    grid.appendChild(frag);
    countEl.textContent = String(r.found.length);
    none.hidden = r.found.length > 0;
    if (pushHash) {
      const hash = text ? "#q=" + encodeURIComponent(text) : "#";
      try { if (location.hash !== hash) history.replaceState(null, "", hash); } catch (e) { /* a browser that refuses */ }
    }
  }

  function fromHash() {
    const m = /^#q=(.*)$/.exec(location.hash);
    if (!m) return;
    q.value = decodeURIComponent(m[1]);
    for (const s of selects) s.value = "";
    for (const r of ranges) r.value = "";
  }

  q.addEventListener("input", () => update(true));
  for (const el of [...selects, ...ranges]) el.addEventListener("input", () => update(true));
  document.getElementById("clear").addEventListener("click", () => {
    q.value = ""; for (const s of selects) s.value = ""; for (const r of ranges) r.value = "";
    update(true); q.focus();
  });
  window.addEventListener("hashchange", () => { fromHash(); update(false); });
  fromHash();
  update(false);
  window.CardSite = { search, tokenize, update, position };
})();
