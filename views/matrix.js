// Compare's matrix, filtered and paged in the browser (views/matrix.py mounts it; read its docstring).
const CLS = /^[a-z0-9 ]*$/;
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}
function link(path, params, cls, text) {
  const a = el('a', cls, text);
  a.href = path + '?' + new URLSearchParams(params).toString();
  a.target = '_self';
  return a;
}
function fill(t, vals) { return String(t).replace(/\{(\w+)\}/g, (m, k) => (k in vals ? String(vals[k]) : m)); }
function button(text) { const b = el('button', 'frl-btn', text); b.type = 'button'; return b; }

class Matrix {
  constructor(parent) {
    // Our own box: the parent also holds the <style> Streamlit puts there for this component's CSS.
    const root = el('div', 'frl-matrix');
    parent.appendChild(root);
    this.root = root; this.v = null; this.m = null; this.sel = []; this.page = 1;
    this.seq = 0; this.titles = new Map(); this.send = null; this.drawn = null; this.shownIds = [];
    this.sort = null;  // {col: -1 for the model, else a column index; dir: 1 or -1}: a header click sorts
    this.bar = el('div', 'frl-bar');
    this.btn = button('Filter');
    this.btn.setAttribute('aria-haspopup', 'true');
    this.picked = el('span', 'frl-picked');
    this.panel = el('div', 'frl-panel'); this.panel.hidden = true;
    this.find = el('input'); this.find.type = 'search'; this.find.maxLength = 200;
    this.clear = button('');
    this.list = el('div', 'frl-list');
    this.panel.append(this.find, this.clear, this.list);
    this.bar.append(this.btn, this.picked, this.panel);
    this.count = el('div', 'frl-count');
    this.count.setAttribute('aria-live', 'polite');  // a screen reader hears the new count
    this.empty = el('div', 'frl-note info');
    this.wrap = el('div', 'frl-wrap');
    this.table = el('table', 'frl');
    this.head = el('thead'); this.body = el('tbody');
    this.table.append(this.head, this.body); this.wrap.append(this.table);
    this.pager = el('div', 'frl-pager');
    this.prev = button(''); this.next = button(''); this.where = el('span');
    this.pager.append(this.prev, this.next, this.where);
    this.warn = el('div', 'frl-note warn');
    root.append(this.bar, this.count, this.empty, this.wrap, this.pager, this.warn);
    this.btn.addEventListener('click', () => this.toggle());
    this.find.addEventListener('input', () => this.narrow());
    this.clear.addEventListener('click', () => { this.sel = []; this.commit(true); });
    this.list.addEventListener('change', (e) => {
      const box = e.target; if (!box || box.type !== 'checkbox') return;
      const pair = [box.dataset.k, box.dataset.v];
      this.sel = box.checked ? [...this.sel, pair] : this.sel.filter(([k, v]) => !(k === pair[0] && v === pair[1]));
      this.commit(true);
    });
    this.picked.addEventListener('click', (e) => {
      const b = e.target.closest('button'); if (!b) return;
      this.sel = this.sel.filter(([k, v]) => !(k === b.dataset.k && v === b.dataset.v));
      this.commit(true);
    });
    this.prev.addEventListener('click', () => { this.page -= 1; this.commit(false); });
    this.next.addEventListener('click', () => { this.page += 1; this.commit(false); });
    this.panel.addEventListener('keydown', (e) => { if (e.key === 'Escape') { this.toggle(false); this.btn.focus(); } });
    this.outside = (e) => { if (!this.bar.contains(e.target)) this.toggle(false); };
    document.addEventListener('mousedown', this.outside);
  }
  toggle(open) {
    const show = open === undefined ? this.panel.hidden : open;
    this.panel.hidden = !show;
    this.btn.setAttribute('aria-expanded', String(show));
    if (show) { this.find.focus(); }
  }
  update(d) {
    let fresh = false;
    if (d.v && d.v !== this.v && typeof d.model === 'string') { this.load(JSON.parse(d.model)); this.v = d.v; this.titles.clear(); fresh = true; }
    if (!this.m) return;
    fresh = fresh || d.total !== this.total || !!d.searched !== this.searched;
    this.total = d.total; this.searched = !!d.searched;
    for (const [rid, ts] of Object.entries(d.titles || {})) this.titles.set(rid, ts);
    // The run's choice is adopted once it has seen the browser's latest (its seq): a rerun still
    // answering an earlier click must not undo a later one. It may differ from what the browser
    // sent: a value the store no longer has dropped, a link's choice, the first page after a search.
    const view = d.view || {filters: [], page: 1, seq: 0};
    if ((view.seq || 0) >= this.seq) {
      // Count on from the run's count: a matrix drawn anew (back from another page) starts at 0
      // while the session remembers a higher one, and its next change must still count as newer.
      this.seq = view.seq || 0;
      const sel = view.filters.map((p) => [String(p[0]), String(p[1])]);
      if (JSON.stringify(sel) !== JSON.stringify(this.sel) || view.page !== this.page) { this.sel = sel; this.page = view.page || 1; fresh = true; }
    }
    if (fresh || !this.drawn) this.draw(); else this.hovers();
  }
  hovers() {
    for (const tr of this.body.rows) {
      const ts = this.titles.get(tr.dataset.rid) || [];
      [...tr.cells].slice(1).forEach((td, i) => { if (typeof ts[i] === 'string' && ts[i] && td.title !== ts[i]) td.title = ts[i]; });
    }
  }
  load(m) {
    this.m = m; const t = m.texts;
    this.btn.textContent = t.filter; this.find.placeholder = t.find; this.find.setAttribute('aria-label', t.find);
    this.clear.textContent = t.clear; this.prev.textContent = t.prev; this.next.textContent = t.next;
    for (const f of m.facets) f.index = new Map(f.values.map((v, i) => [v, i]));
    const tr = el('tr'); tr.append(this.header(-1, 'model', t.model));
    m.columns.forEach((c, ci) => tr.append(this.header(ci, null, c.label)));
    this.head.replaceChildren(tr);
    this.list.replaceChildren();
    m.facets.forEach((f) => {
      const group = el('div', 'frl-facet'); group.append(el('h4', null, f.label)); this.list.append(group);
      f.values.forEach((v, i) => {
        const lab = el('label'); const box = el('input'); box.type = 'checkbox';
        box.dataset.k = f.key; box.dataset.v = v;
        lab.dataset.text = (f.label + ': ' + f.shown[i]).toLowerCase();
        lab.append(box, document.createTextNode(' ' + f.label + ': ' + f.shown[i]));
        group.append(lab);
      });
    });
  }
  header(col, cls, label) {
    // A sortable column head: a button inside the <th> (keyboard and screen readers reach it).
    const th = el('th', cls); const b = el('button', 'frl-sort', label); b.type = 'button';
    b.dataset.col = String(col); b.dataset.label = label;
    b.addEventListener('click', () => {
      const same = this.sort && this.sort.col === col;
      this.sort = {col, dir: same ? -this.sort.dir : 1};
      this.page = 1; this.commit(false);
    });
    th.append(b); return th;
  }
  sorted(rows) {
    // Model: by name. A dimension: by its first category in the lens's order (levels run low to
    // high), an empty cell last whichever the direction. Array.sort is stable: ties keep store order.
    if (!this.sort) return rows;
    const {col, dir} = this.sort;
    const key = (r) => (col < 0 ? r[1] : (r[5][col][0].length ? Math.min(...r[5][col][0]) : null));
    return [...rows].sort((a, b) => {
      const x = key(a), y = key(b);
      if (x === null || y === null) return x === y ? 0 : (x === null ? 1 : -1);
      return dir * (col < 0 ? String(x).localeCompare(String(y)) : x - y);
    });
  }
  marksort() {
    for (const b of this.head.querySelectorAll('button.frl-sort')) {
      const on = this.sort && this.sort.col === Number(b.dataset.col);
      b.textContent = b.dataset.label + (on ? (this.sort.dir > 0 ? ' ▲' : ' ▼') : '');
      b.parentElement.setAttribute('aria-sort', on ? (this.sort.dir > 0 ? 'ascending' : 'descending') : 'none');
    }
  }
  narrow() {
    const q = this.find.value.trim().toLowerCase();
    for (const group of this.list.children) {
      let any = false;
      for (const lab of group.querySelectorAll('label')) { lab.hidden = !!q && !lab.dataset.text.includes(q); any = any || !lab.hidden; }
      group.hidden = !any;
    }
  }
  commit(refilter) {
    if (refilter) this.page = 1;
    this.draw();
    this.seq += 1;
    const ids = this.sort ? this.shownIds : [];  // sorted here: the server sends these rows' hover texts
    if (this.send) this.send('view', {filters: this.sel.map((p) => [...p]), page: this.page, seq: this.seq, ids});
  }
  draw() {
    const m = this.m, t = m.texts;
    const want = m.facets.map((f) => new Set(this.sel.filter(([k]) => k === f.key).map(([, v]) => f.index.get(v)).filter((i) => i !== undefined)));
    const rows = this.sorted(m.rows.filter((r) => want.every((s, fi) => !s.size || r[4][fi].some((i) => s.has(i)))));
    this.marksort();
    const on = (this.searched ? [t.search] : []).concat(m.facets.filter((f, fi) => want[fi].size).map((f) => f.label));
    this.count.textContent = fill(t.count, {n: rows.length, total: this.total}) + (on.length ? fill(t.by, {what: on.join(', ')}) : '');
    const n = this.sel.length;
    this.btn.textContent = n ? t.filter + ' (' + n + ')' : t.filter;
    this.picked.replaceChildren(...this.sel.map(([k, v]) => {
      const f = m.facets.find((x) => x.key === k); const i = f ? f.index.get(v) : undefined;
      const b = el('button', null, (f ? f.label + ': ' + (i !== undefined ? f.shown[i] : v) : v) + ' ×');
      b.type = 'button'; b.dataset.k = k; b.dataset.v = v; b.title = 'Remove';
      return b;
    }));
    const chosen = new Set(this.sel.map((p) => JSON.stringify(p)));
    for (const box of this.list.querySelectorAll('input[type=checkbox]')) box.checked = chosen.has(JSON.stringify([box.dataset.k, box.dataset.v]));
    const per = m.page_rows, pages = Math.max(1, Math.ceil(rows.length / per));
    this.page = Math.min(Math.max(1, this.page), pages);
    const part = rows.slice((this.page - 1) * per, this.page * per);
    this.body.replaceChildren(...part.map((r) => this.row(r)));
    this.shownIds = part.map((r) => r[0]);
    this.drawn = true;
    this.empty.textContent = rows.length ? '' : t.empty; this.empty.hidden = !!rows.length;
    this.pager.hidden = pages <= 1;
    this.prev.disabled = this.page <= 1; this.next.disabled = this.page >= pages;
    this.where.textContent = fill(t.page, {p: this.page, pages, lo: (this.page - 1) * per + 1, hi: Math.min(this.page * per, rows.length), n: rows.length});
    const dis = rows.reduce((s, r) => s + r[3], 0);
    this.warn.textContent = dis ? fill(t.warn, {n: dis}) : ''; this.warn.hidden = !dis;
  }
  row(r) {
    const [rid, model, meta, , , cells] = r;
    const tr = el('tr'); const td = el('td', 'model'); tr.dataset.rid = rid;
    td.append(link('report', {report: rid}, null, model), el('div', 'meta', meta));
    tr.append(td);
    const titles = this.titles.get(rid) || [];
    this.m.columns.forEach((c, ci) => {
      const [idx, marks, dis] = cells[ci]; const cell = el('td');
      if (typeof titles[ci] === 'string' && titles[ci]) cell.title = titles[ci];
      for (const i of idx) {
        const [cls, label] = c.chips[i] || ['', ''];
        const a = link('evidence', {report: rid, dim: c.id}, 'chip' + (CLS.test(cls) && cls ? ' ' + cls : '') + (dis ? ' dis' : ''), label);
        if (marks) a.append(el('i', null, marks));
        cell.append(a);
      }
      tr.append(cell);
    });
    return tr;
  }
}

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  let ui = parentElement.__frlMatrix;
  if (!ui) { ui = new Matrix(parentElement); parentElement.__frlMatrix = ui; }
  ui.send = setStateValue;
  ui.update(data || {});
  // Streamlit calls the last cleanup when the component leaves the page.
  return () => document.removeEventListener('mousedown', ui.outside);
}
