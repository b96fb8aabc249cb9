/* The card query language in the browser: grammar/query.lark parsed by hand, resolved against the
   pack's fields and run over the documents of assets/data.js, exactly as catalog/query_parse.py and
   catalog/query.py do in Python (tests/test_catalog_browser.py runs both on the same queries).
   Classic script (file:// pages cannot load modules): it defines window.CardQuery. */
(function () {
  "use strict";

  function norm(s) { return String(s).normalize("NFKC").toLowerCase(); }

  class QueryError extends Error {
    constructor(message, col, hint, length) {
      super(message);
      this.col = col; this.hint = hint || null; this.length = Math.max(1, length || 1);
    }
  }

  // ---------------------------------------------------------------- lexing (Lark's contextual lexer)
  const RE = {
    ws: /\s+/y,
    or: /or(?=[\s()"]|$)/iy,
    and: /and(?=[\s()"]|$)/iy,
    fieldOp: /[A-Za-z][A-Za-z0-9_-]*(!=|<=|>=|:|=|<|>)/y,
    bare: /[^\s()"\-:<>=!][^\s()":<>=!]*/y,
    value: /[^\s()"]+/y,
    string: /"([^"\\]|\\.)*"/y,
  };

  function match(re, text, pos) { re.lastIndex = pos; const m = re.exec(text); return m ? m[0] : null; }

  function unquote(s) {
    let out = "", body = s.slice(1, -1);
    for (let i = 0; i < body.length; i++) {
      if (body[i] === "\\" && i + 1 < body.length) i++;
      out += body[i];
    }
    return out;
  }

  // Lexes one token at pos; `kinds` are the terminals the parser accepts there (Lark's contextual lexer).
  // Returns {type, text, col, end} or null at the end of the text.
  function lex(text, pos, kinds) {
    const ws = match(RE.ws, text, pos);
    if (ws) pos += ws.length;
    if (pos >= text.length) return { type: "$END", text: "", col: text.length + 1, end: pos };
    const col = pos + 1;
    const tok = (type, t) => ({ type, text: t, col, end: pos + t.length });
    const ch = text[pos];
    if (kinds.has("OR")) { const m = match(RE.or, text, pos); if (m) return tok("OR", m); }
    if (kinds.has("AND")) { const m = match(RE.and, text, pos); if (m) return tok("AND", m); }
    if (kinds.has("VALUE")) {
      const s = match(RE.string, text, pos); if (s) return tok("STRING", s);
      const v = match(RE.value, text, pos); if (v) return tok("VALUE", v);
    } else {
      if (ch === "(" ) return tok("LPAR", "(");
      if (ch === ")") return tok("RPAR", ")");
      if (ch === "-") return tok("NEG", "-");
      const f = match(RE.fieldOp, text, pos); if (f) return tok("FIELD_OP", f);
      const b = match(RE.bare, text, pos); if (b) return tok("BARE", b);
      const s = match(RE.string, text, pos); if (s) return tok("STRING", s);
    }
    // Nothing the parser accepts here: as Lark, try every terminal to report the token it saw.
    if (ch === '"') throw charError(text, col);
    if (ch === "(") return tok("LPAR", "(");
    if (ch === ")") return tok("RPAR", ")");
    const v = match(RE.value, text, pos);
    if (v) return tok("VALUE", v);
    throw charError(text, col);
  }

  function charError(text, col) {
    const ch = text[col - 1] || "";
    const before = text.slice(0, col - 1).replace(/\s+$/, "");
    if (ch === '"') return new QueryError("this quote is never closed", col, 'end the phrase with another "');
    if (":<>=!".includes(ch) && before && /[A-Za-z0-9]$/.test(before) && text[col - 2] === " ")
      return new QueryError(`a space before '${ch}'`, col - 1, "write a term without spaces: cost<=3, type:event");
    if (":<>=!".includes(ch)) return new QueryError(`'${ch}' needs a field name before it`, col,
      "a term reads FIELD:VALUE, e.g. type:event");
    if (ch === ")") return new QueryError("')' closes no parenthesis", col);
    return new QueryError(`unexpected '${ch}'`, col);
  }

  // ---------------------------------------------------------------- parsing (grammar/query.lark)
  const TERM_START = new Set(["NEG", "LPAR", "FIELD_OP", "BARE", "STRING"]);

  function parse(text) {
    if (/[\n\r]/.test(text)) throw new QueryError("a query is one line", text.search(/[\n\r]/) + 1);
    let pos = 0;
    let tok;
    // Lark reports the first token the grammar does not accept; so do we, from the same decisions.
    function next(kinds) { tok = lex(text, pos, kinds); return tok; }
    function take() { pos = tok.end; }
    function fail() { throw tokenError(tok, text); }

    function disj() {
      let left = conj();
      for (;;) {
        next(new Set(["OR", "AND", ...TERM_START, "RPAR"]));
        if (tok.type !== "OR") return left;
        take();
        const right = conj();
        left = { t: "or", items: [...(left.t === "or" ? left.items : [left]), right], col: left.col };
      }
    }
    function conj() {
      let left = unary();
      for (;;) {
        next(new Set(["OR", "AND", ...TERM_START, "RPAR"]));
        if (tok.type === "AND") { take(); }
        else if (!TERM_START.has(tok.type)) return left;
        const right = unary();
        left = { t: "and", items: [...(left.t === "and" ? left.items : [left]), right], col: left.col };
      }
    }
    function unary() {
      next(TERM_START);
      if (tok.type === "NEG") { const col = tok.col; take(); return { t: "not", inner: unary(), col }; }
      return atom();
    }
    function atom() {
      if (tok.type === "LPAR") {
        take();
        const inner = disj();
        next(new Set(["OR", "AND", ...TERM_START, "RPAR"]));
        if (tok.type !== "RPAR") fail();
        take();
        return inner;
      }
      if (tok.type === "FIELD_OP") {
        const f = tok; take();
        const op = ["!=", "<=", ">=", ":", "=", "<", ">"].find((o) => f.text.endsWith(o));
        next(new Set(["VALUE"]));
        if (tok.type !== "VALUE" && tok.type !== "STRING") fail();
        const v = tok; take();
        return { t: "term", field: f.text.slice(0, -op.length).toLowerCase(), op,
                 value: v.type === "STRING" ? unquote(v.text) : v.text, quoted: v.type === "STRING",
                 col: f.col, valueCol: v.col };
      }
      if (tok.type === "BARE") { const b = tok; take(); return { t: "bare", text: b.text, col: b.col }; }
      if (tok.type === "STRING") { const s = tok; take(); return { t: "bare", text: unquote(s.text), col: s.col }; }
      fail();
    }

    next(TERM_START);
    if (tok.type === "$END") return null;
    const tree = disj();
    next(new Set(["OR", "AND", ...TERM_START, "RPAR"]));
    if (tok.type !== "$END") fail();
    return tree;
  }

  function tokenError(tok, text) {
    if (tok.type === "$END") return atEnd(text);
    const col = tok.col;
    if (tok.type === "VALUE" && ":<>=!".includes(tok.text[0])) {
      if (text[col - 2] === " " && /[A-Za-z0-9]$/.test(text.slice(0, col - 1).replace(/\s+$/, ""))) {
        const op = /^(!=|<=|>=|[:=<>!])/.exec(tok.text)[0];
        return new QueryError(`a space before '${op}'`, col - 1, "write a term without spaces: cost<=3, type:event");
      }
      return new QueryError(`'${tok.text}' needs a field name before it`, col, "a term reads FIELD:VALUE, e.g. type:event");
    }
    if (tok.type === "OR" || tok.type === "AND")
      return new QueryError(`'${tok.text}' needs a term on each side`, col, 'to search for the word, quote it: "or"');
    if (tok.type === "RPAR") return new QueryError("')' closes no parenthesis, or a term is missing before it", col);
    const before = text.slice(0, col - 1);
    const trimmed = before.replace(/\s+$/, "");
    if (trimmed !== before && ":<>=".includes(trimmed.slice(-1)) && trimmed)
      return new QueryError("a value is missing after the operator", col, "write it without a space: cost<=3");
    return new QueryError(`unexpected '${tok.text}'`, col);
  }

  function atEnd(text) {
    const end = text.length + 1;
    const s = text.replace(/\s+$/, "");
    if (s && ":<>=".includes(s.slice(-1))) return new QueryError("a value is missing after the operator", s.length,
      "e.g. cost<=3, type:event");
    if ((s.match(/\(/g) || []).length > (s.match(/\)/g) || []).length)
      return new QueryError("a parenthesis is never closed", s.lastIndexOf("(") + 1, "close it with ')'");
    if (s.slice(-1) === "-") return new QueryError("'-' needs a term after it", s.length);
    const word = s ? s.split(/\s+/).pop().toLowerCase() : "";
    if (word === "or" || word === "and") return new QueryError(`'${word}' needs a term after it`, s.length - word.length + 1);
    return new QueryError("the query ends too early", end);
  }

  // ---------------------------------------------------------------- resolving (catalog/query.py)
  const MODIFIERS = new Set(["sort", "limit"]);
  const NUMERIC = { ":": "=", "=": "=", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">=" };

  function resolveField(index, name) {
    name = name.toLowerCase();
    const real = index.aliases[name] || name;
    return index.fields[real] ? { name: real, ...index.fields[real] } : null;
  }

  function closest(word, candidates) {  // a did-you-mean hint (not necessarily the same as Python's)
    let best = null, score = 0;
    for (const c of candidates) {
      const d = distance(word, c), s = 1 - d / Math.max(word.length, c.length);
      if (s > score && s >= 0.6) { best = c; score = s; }
    }
    return best ? `did you mean '${best}'?` : null;
  }

  function distance(a, b) {
    const row = Array.from({ length: b.length + 1 }, (_, i) => i);
    for (let i = 1; i <= a.length; i++) {
      let prev = row[0]; row[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const cur = row[j];
        row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
        prev = cur;
      }
    }
    return row[b.length];
  }

  function kindWord(kind) {
    return { text: "text field", facet: "list of values", bool: "true/false field" }[kind] || kind;
  }

  function plan(text, index) {
    const tree = parse(text);
    const errors = [];
    const top = tree === null ? [] : tree.t === "and" ? tree.items : [tree];
    const sort = [];
    let limit = null;
    const rest = [];
    for (const node of top) {
      if (node.t === "term" && MODIFIERS.has(node.field)) {
        if (node.field === "limit") {
          if ((node.op !== ":" && node.op !== "=") || !/^[0-9]+$/.test(node.value))
            errors.push(new QueryError("limit takes a whole number: limit:20", node.valueCol, null, node.value.length || 1));
          else limit = parseInt(node.value, 10);
        } else {
          const desc = node.value.startsWith("-");
          const name = desc ? node.value.slice(1) : node.value;
          const f = resolveField(index, name);
          const sortable = Object.keys(index.fields).filter((n) => index.fields[n].sortable).sort();
          if ((node.op !== ":" && node.op !== "=") || !f || !f.sortable) {
            const hint = (closest(name, sortable) || "sort keys: " + sortable.join(", ")) + "; sort:-KEY sorts descending";
            errors.push(new QueryError(`cannot sort by '${name}'`, node.valueCol, hint, node.value.length || 1));
          } else sort.push([f.name, f.kind, desc]);
        }
      } else rest.push(node);
    }
    let root = null;
    if (rest.length) root = resolve(rest.length === 1 ? rest[0] : { t: "and", items: rest, col: rest[0].col }, index, errors);
    if (errors.length) { errors.sort((a, b) => a.col - b.col); throw errors; }
    return { root, sort, limit };
  }

  function resolve(node, index, errors) {
    if (node.t === "and" || node.t === "or") return { t: node.t, items: node.items.map((n) => resolve(n, index, errors)) };
    if (node.t === "not") return { t: "not", inner: resolve(node.inner, index, errors) };
    if (node.t === "bare") return { t: "check", field: "*", kind: "text", op: ":", value: norm(node.text), word: node.text };
    if (MODIFIERS.has(node.field)) {
      errors.push(new QueryError(`${node.field}: applies to the whole query; put it outside parentheses and negations`,
        node.col, null, node.field.length));
      return null;
    }
    const f = resolveField(index, node.field);
    if (!f) {
      const known = [...Object.keys(index.fields), ...Object.keys(index.aliases)].sort();
      errors.push(new QueryError(`unknown field '${node.field}'`, node.col,
        closest(node.field, known) || "fields: " + Object.keys(index.fields).sort().join(", "), node.field.length));
      return null;
    }
    const value = norm(node.value);
    if (f.kind === "number") {
      if (!/^[-+]?[0-9]+$/.test(value.trim())) {
        errors.push(new QueryError(`'${f.name}' is a number, not '${node.value}'`, node.valueCol, `e.g. ${f.name}>=2`,
          node.value.length || 1));
        return null;
      }
      return { t: "check", field: f.name, kind: "number", op: NUMERIC[node.op], value: parseInt(value, 10) };
    }
    if (![":", "=", "!="].includes(node.op)) {
      errors.push(new QueryError(`'${node.op}' compares numbers; '${f.name}' is a ${kindWord(f.kind)}`,
        node.col + node.field.length, `use ${f.name}:VALUE, or -${f.name}:VALUE for cards without it`, node.op.length));
      return null;
    }
    if (f.kind === "text") return { t: "check", field: f.name, kind: "text", op: node.op, value };
    const canonical = f.values[value];
    if (canonical === undefined) {
      const shown = [...new Set(Object.values(f.values))].sort();
      const hint = closest(value, Object.keys(f.values)) ||
        `values: ${shown.slice(0, 15).join(", ")}` + (shown.length > 15 ? ` (and ${shown.length - 15} more)` : "");
      errors.push(new QueryError(`'${node.value}' is not a value of '${f.name}' in this pack`, node.valueCol, hint,
        node.value.length || 1));
      return null;
    }
    return { t: "check", field: f.name, kind: f.kind, op: node.op, value: canonical };
  }

  // ---------------------------------------------------------------- running
  // `bare(check, doc)` decides bare words; by default as Python does (a substring of a name or generated
  // text); the page passes MiniSearch's answer instead.
  function substring(check, doc) {
    return ["name", "text"].some((k) => (doc.t[k] || []).some((s) => s.includes(check.value)));
  }

  function matches(node, doc, bare) {
    if (node.t === "and") return node.items.every((n) => matches(n, doc, bare));
    if (node.t === "or") return node.items.some((n) => matches(n, doc, bare));
    if (node.t === "not") return !matches(node.inner, doc, bare);
    const c = node;
    if (c.field === "*") return bare(c, doc);
    if (c.kind === "number") {
      const n = doc.n[c.field];
      if (n === undefined) return false;
      const v = c.value;
      return { "=": n === v, "!=": n !== v, "<": n < v, "<=": n <= v, ">": n > v, ">=": n >= v }[c.op];
    }
    if (c.kind === "text") {
      const strings = doc.t[c.field] || [];
      if (c.op === "=") return strings.includes(c.value);
      const found = strings.some((s) => s.includes(c.value));
      return c.op === "!=" ? !found : found;
    }
    const has = (doc.f[c.field] || []).includes(c.value);
    return c.op === "!=" ? !has : has;
  }

  function key(doc, name, kind) {
    if (kind === "number") return doc.n[name] === undefined ? null : doc.n[name];
    const values = (kind === "text" ? doc.t : doc.f)[name];
    return values && values.length ? values[0] : null;
  }

  function compare(a, b) { return a < b ? -1 : a > b ? 1 : 0; }

  // The positions of the documents found, in result order (as catalog/query.py `run`). `order`, when
  // given, is the order to start from (the page's relevance ranking); sort: keys still come first.
  function run(index, text, bare, order) {
    const p = plan(text, index);
    const docs = index.docs;
    const start = order || docs.map((_, i) => i);
    let found = start.filter((i) => p.root === null || matches(p.root, docs[i], bare || substring));
    for (const [name, kind, desc] of [...p.sort].reverse()) {
      const present = found.filter((i) => key(docs[i], name, kind) !== null);
      const absent = found.filter((i) => key(docs[i], name, kind) === null);
      present.sort((a, b) => (desc ? -1 : 1) * compare(key(docs[a], name, kind), key(docs[b], name, kind)));
      found = present.concat(absent);
    }
    return { found: p.limit === null ? found : found.slice(0, p.limit), plan: p };
  }

  function bareWords(node, out) {
    if (!node) return out;
    if (node.t === "check" && node.field === "*") out.push(node);
    for (const n of node.items || []) bareWords(n, out);
    if (node.inner) bareWords(node.inner, out);
    return out;
  }

  window.CardQuery = { parse, plan, run, matches, norm, bareWords, QueryError };
})();
