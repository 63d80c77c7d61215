(function () {
  'use strict';
  // Everything from a trace reaches the page as text (textContent, text
  // nodes, option labels): no markup is ever parsed from the data.
  // The data is JSON lines: the overview first, then a trace a line,
  // each parsed when it is first opened.
  var RAW = document.getElementById('report-data').textContent;
  var NL = RAW.indexOf('\n');
  var D = JSON.parse(NL < 0 ? RAW : RAW.slice(0, NL));
  var LINES = null, CACHE = new Map(), BYN = new Map();
  D.list.forEach(function (e) { BYN.set(e[0], e); });
  // A report of one trace opens on it; of several, on the overview.
  var FOLDER = D.totals.traces > 1;
  var ROW = 27, FIND = 20, GAP = 28, MAXF = 6;
  // A row of the overview's table: [n, name, errors, warnings, lines,
  // messages, protocol, dialect, sides, rules, line of the data].
  var L_N = 0, L_NAME = 1, L_ERR = 2, L_WARN = 3, L_MSG = 5, L_PROTO = 6, L_DIALECT = 7, L_SIDES = 8, L_RULES = 9, L_DATA = 10;

  // traceData returns trace n, prepared, or null if the page does not
  // hold its messages.
  function traceData(n) {
    var e = BYN.get(n);
    if (!e || !e[L_DATA]) return null;
    if (!CACHE.has(n)) {
      if (!LINES) LINES = RAW.split('\n');
      CACHE.set(n, prepare(JSON.parse(LINES[e[L_DATA]])));
    }
    return CACHE.get(n);
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent) {
    for (var i = 1; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === null || c === undefined) continue;
      parent.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    }
    return parent;
  }
  function fmt(n) { return Number(n).toLocaleString('en-US'); }
  function plural(n, w) { return fmt(n) + ' ' + w + (n === 1 ? '' : 's'); }

  // Links: #L123 in the first trace, #t2-L123 in the second, #t2 the
  // second trace itself; #overview (or none) the overview of several.
  function hashOf(t, line) { return (t === 1 ? '#L' : '#t' + t + '-L') + line; }
  function traceHash(t) { return '#t' + t; }
  function parseHash(h) {
    var m = /^#(?:t(\d+)(?:-L(\d+))?|L(\d+))$/.exec(h || '');
    if (!m) return null;
    var t = m[1] ? parseInt(m[1], 10) : 1;
    if (!BYN.has(t)) return null;
    return { t: t, line: parseInt(m[2] || m[3] || '0', 10) };
  }
  function lineLink(t, line, text) {
    var a = el('a', 'lnk', text);
    a.href = hashOf(t, line);
    return a;
  }

  // prepare turns a trace's arrays into rows with their findings and
  // links, once.
  function prepare(T) {
    if (T.prepared) return T;
    var rows = [], byLine = new Map();
    T.rows.forEach(function (r) {
      var row = { n: r[0], line: r[1], from: r[2], label: r[3], brief: r[4], answers: r[5], groups: r[6], lives: r[7], text: r[8], cut: r[9], answeredBy: 0, f: [], err: false, warn: false, lc: null };
      rows.push(row);
      byLine.set(row.line, row);
    });
    var orphans = [];
    T.findings.forEach(function (a) {
      var f = { line: a[0], sev: a[1], rule: a[2], ptr: a[3], msg: a[4], req: a[5], side: a[6] };
      var row = byLine.get(f.line);
      if (row) {
        row.f.push(f);
        if (f.sev === 'error') row.err = true; else row.warn = true;
      } else {
        orphans.push(f);
      }
    });
    rows.forEach(function (row) {
      if (row.answers) {
        var q = byLine.get(row.answers);
        if (q && !q.answeredBy) q.answeredBy = row.line;
      }
    });
    var items = [], prev = -1;
    rows.forEach(function (row) {
      if (row.n !== prev + 1) items.push({ gap: true, count: row.n - prev - 1 });
      items.push(row);
      prev = row.n;
    });
    if (T.omitted > 0 && T.messages > prev + 1) items.push({ gap: true, count: T.messages - prev - 1 });
    var labels = {};
    rows.forEach(function (r) { if (r.label) labels[r.label] = (labels[r.label] || 0) + 1; });
    T.prepared = true;
    T.R = rows; T.byLine = byLine; T.items = items; T.orphans = orphans;
    T.labels = Object.keys(labels).sort();
    return T;
  }

  var S = { t: 0, errs: false, finds: false, group: -1, method: '', q: '', sel: 0, fsel: 0 };
  var vis = [], offs = new Float64Array(1), drawn = '';

  function heightOf(it) {
    if (it.gap) return GAP;
    var k = it.f.length;
    return ROW + FIND * (k > MAXF ? MAXF + 1 : k);
  }

  function matches(T, r) {
    if (S.errs && !r.err) return false;
    if (S.finds && !r.f.length) return false;
    if (S.group >= 0 && r.groups.indexOf(S.group) < 0) return false;
    if (S.method && r.label !== S.method) return false;
    if (S.q) {
      if (r.lc === null) {
        var s = r.label + '\n' + r.brief + '\n' + r.text;
        for (var i = 0; i < r.f.length; i++) s += '\n' + r.f[i].rule + ' ' + r.f[i].msg + ' ' + r.f[i].ptr;
        r.lc = s.toLowerCase();
      }
      if (r.lc.indexOf(S.q) < 0) return false;
    }
    return true;
  }
  function filtering() { return S.errs || S.finds || S.group >= 0 || S.method !== '' || S.q !== ''; }

  function refilter() {
    var T = CT;
    var f = filtering();
    vis = [];
    for (var i = 0; i < T.items.length; i++) {
      var it = T.items[i];
      if (it.gap ? !f : matches(T, it)) vis.push(it);
    }
    offs = new Float64Array(vis.length + 1);
    for (var j = 0; j < vis.length; j++) offs[j + 1] = offs[j] + heightOf(vis[j]);
    sizer.style.height = offs[vis.length] + 'px';
    var n = 0;
    for (var k = 0; k < vis.length; k++) if (!vis[k].gap) n++;
    shown.textContent = f ? fmt(n) + ' of ' + plural(T.R.length, 'message') + ' shown' : plural(T.R.length, 'message');
    drawn = '';
    draw();
  }

  function indexAt(y) {
    var lo = 0, hi = vis.length - 1;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (offs[mid] <= y) lo = mid; else hi = mid - 1;
    }
    return Math.max(0, lo);
  }

  function draw() {
    var top = tl.scrollTop - 24, h = tl.clientHeight;
    var a = indexAt(Math.max(0, top - 400)), b = indexAt(top + h + 400);
    var key = a + ':' + b + ':' + S.sel;
    if (key === drawn) return;
    drawn = key;
    var frag = document.createDocumentFragment();
    for (var i = a; i <= b && i < vis.length; i++) frag.appendChild(rowNode(vis[i], offs[i]));
    sizer.textContent = '';
    sizer.appendChild(frag);
    if (!vis.length) sizer.appendChild(el('div', 'empty', filtering() ? 'No message matches the filters.' : 'This trace holds no message.'));
  }

  function msgBox(r) {
    var box = el('span', 'msg');
    add(box, el('span', 'lbl', r.label || (r.text ? '(unlabelled)' : '(empty)')));
    if (r.answers) add(box, lineLink(S.t, r.answers, '↩ L' + r.answers));
    if (r.answeredBy) add(box, lineLink(S.t, r.answeredBy, '→ L' + r.answeredBy));
    var T = CT;
    if (T.groups.length > 1 && r.groups.length) {
      // The session (job, run) as a chip, its colour from its name.
      var g = r.groups[r.groups.length - 1], name = T.groups[g], id = name.slice(name.indexOf(' ') + 1);
      var chip = el('span', 'chip', id.length > 14 ? '…' + id.slice(-12) : id);
      chip.title = name;
      var h = 0;
      for (var i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) % 360;
      chip.style.background = 'hsl(' + h + ', 60%, 88%)';
      add(box, chip);
    }
    var brief = r.brief;
    if (brief && r.label && brief.indexOf(r.label) === 0) brief = brief.slice(r.label.length).replace(/^[\s:]+/, '');
    if (brief) add(box, el('span', 'brief', brief));
    return box;
  }

  function findingLine(f) {
    var d = el('div', 'f ' + f.sev);
    add(d, el('span', 'sev', f.sev), ' ', el('span', 'rule', f.rule), ' ');
    if (f.req) add(d, el('span', 'req', f.req), ' ');
    if (f.side) add(d, el('span', 'side', 'side: ' + f.side), ' ');
    if (f.ptr) add(d, el('span', 'ptr', f.ptr), ' ');
    add(d, f.msg);
    return d;
  }

  function rowNode(it, y) {
    if (it.gap) {
      var g = el('div', 'gap', '… ' + plural(it.count, 'message') + ' left out of this report (no finding near them)');
      g.style.top = y + 'px';
      return g;
    }
    var r = it;
    var d = el('div', 'row' + (r.err ? ' err' : r.warn ? ' warn' : '') + (r.line === S.sel ? ' sel' : ''));
    d.style.top = y + 'px';
    d.style.height = heightOf(r) + 'px';
    d.dataset.line = r.line;
    var ln = lineLink(S.t, r.line, String(r.line));
    ln.className = 'ln';
    d.appendChild(ln);
    if (r.from === 'c') add(d, add(el('div', 'lane c'), msgBox(r)), el('div', 'lane a'));
    else if (r.from === 'a') add(d, el('div', 'lane c'), add(el('div', 'lane a'), msgBox(r)));
    else add(d, add(el('div', 'lane u'), msgBox(r)));
    for (var i = 0; i < r.f.length && i < MAXF; i++) d.appendChild(findingLine(r.f[i]));
    if (r.f.length > MAXF) d.appendChild(el('div', 'f', 'and ' + plural(r.f.length - MAXF, 'more finding') + ' on this line: select it to see all'));
    d.addEventListener('click', function (ev) {
      if (ev.target.tagName === 'A') return;
      go(S.t, r.line);
    });
    return d;
  }

  // pretty renders JSON text indented, as the text is (numbers and
  // strings as written), and returns the element of the value at the
  // pointer, or of its deepest part that exists.
  function pretty(src, target) {
    var pre = el('pre', 'json'), stack = [pre], i = 0, found = null, foundPath = null;
    var num = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;
    function cur() { return stack[stack.length - 1]; }
    function text(s) { cur().appendChild(document.createTextNode(s)); }
    function tok(cls, s) { cur().appendChild(el('span', cls, s)); }
    function ws() { while (i < src.length && ' \t\r\n'.indexOf(src.charAt(i)) >= 0) i++; }
    function str() {
      var j = i + 1;
      while (j < src.length) {
        var c = src.charAt(j);
        if (c === '\\') j += 2; else if (c === '"') break; else j++;
      }
      if (j >= src.length) throw new Error('unterminated string');
      var s = src.slice(i, j + 1);
      i = j + 1;
      return s;
    }
    function esc(k) { return k.replace(/~/g, '~0').replace(/\//g, '~1'); }
    function value(path, ind, depth) {
      if (depth > 200) throw new Error('too deep');
      ws();
      var mark = target !== null && (path === target || target.indexOf(path + '/') === 0);
      if (mark) {
        var sp = el('span');
        cur().appendChild(sp);
        stack.push(sp);
        if (foundPath === null || path.length >= foundPath.length) { found = sp; foundPath = path; }
      }
      var c = src.charAt(i);
      if (c === '{' || c === '[') {
        var close = c === '{' ? '}' : ']';
        i++; ws();
        if (src.charAt(i) === close) { i++; text(c + close); }
        else {
          text(c + '\n');
          for (var k = 0; ; k++) {
            ws();
            text(ind + '  ');
            var p;
            if (c === '{') {
              if (src.charAt(i) !== '"') throw new Error('key');
              var ks = str();
              tok('k', ks);
              p = path + '/' + esc(JSON.parse(ks));
              ws();
              if (src.charAt(i) !== ':') throw new Error('colon');
              i++;
              text(': ');
            } else {
              p = path + '/' + k;
            }
            value(p, ind + '  ', depth + 1);
            ws();
            if (src.charAt(i) === ',') { i++; text(',\n'); continue; }
            if (src.charAt(i) === close) { i++; text('\n' + ind + close); break; }
            throw new Error('separator');
          }
        }
      } else if (c === '"') {
        tok('s', str());
      } else {
        num.lastIndex = i;
        var m = num.exec(src);
        if (!m) throw new Error('value');
        tok(/^[tfn]/.test(m[0]) ? 'kw' : 'nm', m[0]);
        i += m[0].length;
      }
      if (mark) stack.pop();
    }
    try {
      value('', '', 0);
      ws();
      if (i !== src.length) throw new Error('trailing');
    } catch (e) {
      pre = el('pre', 'json', src);
      found = null; foundPath = null;
    }
    if (found) found.className = 'hl';
    return { pre: pre, found: found, path: foundPath };
  }

  // noRow says, truly, why a line has no message in the timeline.
  function noRow(T, line) {
    if (line <= 0) return 'About the whole trace.';
    if (line > T.lines) return 'This trace has ' + plural(T.lines, 'line') + ': there is no line ' + fmt(line) + '.';
    for (var i = 0; i < T.ranges.length; i++) {
      var g = T.ranges[i];
      if (line >= g[0] && line <= g[1]) return 'Line ' + fmt(line) + ' is one of the ' + plural(T.omitted, 'message') + ' this report leaves out of the trace (lines ' + fmt(g[0]) + '–' + fmt(g[1]) + ' here): past the size it shows whole, it keeps the messages near a finding, as the notice above the timeline says.';
    }
    return 'Line ' + fmt(line) + ' holds no message: it is blank, or part of a record whose message is on another line (an SSE event\'s data line, say).';
  }

  function showDetail(line) {
    var T = CT;
    var r = T.byLine.get(line);
    detail.textContent = '';
    detail.scrollTop = 0;
    if (!r) {
      var fs = T.orphans.filter(function (f) { return f.line === line; });
      add(detail, el('h2', null, line > 0 ? 'Line ' + line : 'The whole trace'));
      add(detail, el('p', 'sub', noRow(T, line)));
      fs.forEach(function (f) { detail.appendChild(findingCard(f, null, false)); });
      return;
    }
    var lanes = T.lanes;
    var dir = r.from === 'c' ? lanes[0] + ' → ' + lanes[1] : r.from === 'a' ? lanes[1] + ' → ' + lanes[0] : 'sender not known';
    add(detail, el('h2', null, 'Line ' + r.line + ' · ' + (r.label || 'message') + ' · ' + dir));
    var sub = el('div', 'sub');
    if (r.answers) add(sub, 'answers the request on ', lineLink(S.t, r.answers, 'line ' + r.answers), ' ');
    if (r.answeredBy) add(sub, 'answered on ', lineLink(S.t, r.answeredBy, 'line ' + r.answeredBy), ' ');
    if (r.groups.length) add(sub, r.groups.map(function (g) { return T.groups[g]; }).join(', '));
    detail.appendChild(sub);
    if (r.brief) detail.appendChild(el('div', 'sub', r.brief));
    var sel = r.f[S.fsel] || r.f[0] || null;
    var shown = pretty(r.cut ? '' : r.text, sel ? sel.ptr : null);
    r.f.forEach(function (f, k) {
      var c = findingCard(f, shown, f === sel);
      c.addEventListener('click', function () { S.fsel = k; showDetail(line); });
      detail.appendChild(c);
    });
    if (sel && shown.found && shown.path !== sel.ptr) {
      detail.appendChild(el('div', 'sub', 'The message has nothing at ' + sel.ptr + ': ' + (shown.path === '' ? 'the whole message' : shown.path) + ', where it would be, is highlighted.'));
    }
    if (r.cut) {
      detail.appendChild(el('div', 'notice', 'This line is ' + fmt(r.text.length + r.cut) + ' bytes long: the report keeps its first ' + fmt(r.text.length) + '.'));
      detail.appendChild(el('pre', 'json', r.text));
    } else {
      detail.appendChild(shown.pre);
    }
    r.lives.forEach(function (li) { detail.appendChild(lifeNode(T, li)); });
    if (shown.found) shown.found.scrollIntoView({ block: 'nearest' });
  }

  function findingCard(f, shown, on) {
    var c = el('div', 'fd ' + f.sev + (on ? ' on' : ''));
    add(c, el('span', 'sev', f.sev), ' ', el('span', 'rule', f.rule), ' ');
    if (f.req) add(c, el('span', 'req', 'requirement ' + f.req), ' ');
    if (f.side) add(c, el('span', 'side', 'side at fault: ' + f.side), ' ');
    if (f.ptr) add(c, el('span', 'ptr', f.ptr));
    add(c, el('div', 'msgtext', f.msg));
    var help = D.rules && Object.prototype.hasOwnProperty.call(D.rules, f.rule) ? D.rules[f.rule] : '';
    if (help) add(c, el('div', 'rulehelp', 'Rule ' + f.rule + ': ' + help));
    return c;
  }

  function lifeNode(T, li) {
    var L = T.lives[li];
    var d = el('div', 'life');
    add(d, el('b', null, L[0] + ' ' + L[1]), L[2] && L[2] !== L[0] + ' ' + L[1] ? ' · ' + L[2] : '');
    var ol = el('ol');
    L[3].forEach(function (s) {
      var item = el('li');
      add(item, lineLink(S.t, s[0], 'L' + s[0]), ' ' + s[1] + (s[2] ? ' (and ' + plural(s[2], 'message') + ' more like it)' : ''));
      ol.appendChild(item);
    });
    if (L[4]) ol.appendChild(el('li', null, 'and ' + plural(L[4], 'more step') + ', not listed'));
    d.appendChild(ol);
    return d;
  }

  // go selects a line, showing it even if the filters hide it.
  function go(t, line) {
    var h = hashOf(t, line);
    if (location.hash !== h) location.hash = h; else select(t, line);
  }

  // select opens trace t (if it is not open) at line (none: 0).
  function select(t, line) {
    if (t !== S.t || VIEW !== 'trace') openTrace(t);
    if (!CT || line <= 0) return;
    var T = CT;
    S.sel = line;
    S.fsel = 0;
    var r = T.byLine.get(line);
    if (r && vis.indexOf(r) < 0) {
      S.errs = S.finds = false; S.group = -1; S.method = ''; S.q = '';
      syncControls();
      refilter();
    }
    var k = r ? vis.indexOf(r) : -1;
    if (k >= 0) {
      var y = offs[k], h = tl.clientHeight - 24;
      if (y < tl.scrollTop || y + heightOf(r) > tl.scrollTop + h) tl.scrollTop = Math.max(0, y - h / 3);
    }
    drawn = '';
    draw();
    showDetail(line);
  }

  // The page: a trace's header, toolbar and timeline, and (with several
  // traces) the overview; one of them is shown.
  var VIEW = '', CT = null;
  var header = el('header'), toolbar = el('div', 'toolbar'), main = el('main'), ov = el('main');
  var tl = el('div'), sizer = el('div'), detail = el('aside'), shown = el('span');
  tl.id = 'tl'; sizer.id = 'sizer'; detail.id = 'detail'; shown.id = 'shown'; ov.id = 'overview';
  detail.setAttribute('aria-label', 'the selected message');
  toolbar.setAttribute('role', 'search');
  var lanehead = el('div'); lanehead.id = 'lanehead';
  add(tl, lanehead, sizer);
  add(main, tl, detail);
  add(document.body, header, toolbar, main, ov);

  var cErrs = el('input'), cFinds = el('input'), sGroup = el('select'), sMethod = el('select'), q = el('input');
  cErrs.type = cFinds.type = 'checkbox'; cErrs.id = 'f-errors'; cFinds.id = 'f-findings';
  sGroup.id = 'f-group'; sMethod.id = 'f-method';
  sGroup.setAttribute('aria-label', 'session, job or run');
  sMethod.setAttribute('aria-label', 'message type');
  q.type = 'search'; q.id = 'f-search'; q.placeholder = 'search the messages';
  q.setAttribute('aria-label', 'search the messages');
  function labelled(input, text) { var l = el('label'); add(l, input, ' ' + text); return l; }
  add(toolbar, labelled(cErrs, 'errors only'), labelled(cFinds, 'with findings'), sGroup, sMethod, q, shown);
  cErrs.addEventListener('change', function () { S.errs = cErrs.checked; refilter(); });
  cFinds.addEventListener('change', function () { S.finds = cFinds.checked; refilter(); });
  sGroup.addEventListener('change', function () { S.group = parseInt(sGroup.value, 10); refilter(); });
  sMethod.addEventListener('change', function () { S.method = sMethod.value; refilter(); });
  var qTimer = 0;
  q.addEventListener('input', function () {
    clearTimeout(qTimer);
    qTimer = setTimeout(function () { S.q = q.value.trim().toLowerCase(); refilter(); }, 120);
  });
  function syncControls() {
    cErrs.checked = S.errs; cFinds.checked = S.finds; sGroup.value = String(S.group); sMethod.value = S.method; q.value = S.q;
  }
  function option(sel, value, text) { var o = el('option', null, text); o.value = value; sel.appendChild(o); }

  var raf = 0;
  tl.addEventListener('scroll', function () {
    if (!raf) raf = requestAnimationFrame(function () { raf = 0; draw(); });
  });
  window.addEventListener('resize', function () { if (VIEW === 'trace') { drawn = ''; draw(); } });
  window.addEventListener('hashchange', route);

  // route shows what the address names: a trace (and line), else the
  // overview, or the one trace of a report of one.
  function route() {
    var h = parseHash(location.hash);
    if (h) select(h.t, h.line);
    else if (FOLDER) showOverview();
    else if (D.list.length && VIEW !== 'trace') openTrace(D.list[0][L_N]);
  }

  // Keys: j or ↓ the next message shown, k or ↑ the one before, n the
  // next with a finding, p the one before it.
  document.addEventListener('keydown', function (ev) {
    if (VIEW !== 'trace' || !CT) return;
    if (ev.ctrlKey || ev.metaKey || ev.altKey || /^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(ev.target.tagName)) return;
    var step = { j: 1, ArrowDown: 1, k: -1, ArrowUp: -1, n: 1, p: -1 }[ev.key];
    if (!step) return;
    var onlyFindings = ev.key === 'n' || ev.key === 'p';
    var T = CT, r = T.byLine.get(S.sel), k = r ? vis.indexOf(r) : (step > 0 ? -1 : vis.length);
    for (k += step; k >= 0 && k < vis.length; k += step) {
      var it = vis[k];
      if (!it.gap && (!onlyFindings || it.f.length)) { ev.preventDefault(); go(S.t, it.line); return; }
    }
  });

  function kvTable(title, pairs) {
    var box = el('div');
    box.appendChild(el('b', null, title));
    var tb = el('table', 'kv');
    pairs.forEach(function (p) {
      var tr = el('tr');
      add(tr, el('td', 'num', fmt(p[1])), el('td', null, p[0]));
      tb.appendChild(tr);
    });
    if (!pairs.length) add(box, el('div', 'sub', 'none'));
    else box.appendChild(tb);
    return box;
  }

  function show(view) {
    VIEW = view;
    ov.hidden = view !== 'overview';
    header.hidden = view === 'overview';
    toolbar.hidden = main.hidden = view !== 'trace';
  }

  function count(id, cls, n, w) { var s = el('span', cls); s.id = id; add(s, el('span', 'n', fmt(n)), ' ' + w + (n === 1 ? '' : 's')); return s; }

  // quoted writes s as one word of a POSIX shell.
  function quoted(s) { return /^[\w.\/@%+=:,-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'"; }

  // traceHeading heads a trace's page: in a report of several, the way
  // back to the overview and to the traces before and after it in the
  // table.
  function traceHeading(t) {
    var h1 = el('h1');
    if (FOLDER) {
      var back = el('a', null, '← all ' + plural(D.totals.traces, 'trace'));
      back.href = '#overview'; back.id = 'back';
      add(h1, back);
      var order = OV.rows || D.list, at = -1;
      for (var i = 0; i < order.length; i++) if (order[i][L_N] === t) { at = i; break; }
      if (at > 0) { var pv = el('a', 'nav', '‹ previous'); pv.href = traceHash(order[at - 1][L_N]); pv.id = 'prev-trace'; add(h1, pv); }
      if (at >= 0 && at + 1 < order.length) { var nx = el('a', 'nav', 'next ›'); nx.href = traceHash(order[at + 1][L_N]); nx.id = 'next-trace'; add(h1, nx); }
    }
    add(h1, el('span', null, D.title));
    return h1;
  }

  function openTrace(t) {
    S.t = t; S.sel = 0; S.errs = S.finds = false; S.group = -1; S.method = ''; S.q = '';
    var T = traceData(t);
    CT = T;
    header.textContent = '';
    header.appendChild(traceHeading(t));
    if (!T) { openLeftOut(t); return; }
    show('trace');
    document.title = T.name + ' — ' + D.title;
    var meta = el('div', 'meta'); meta.id = 'trace-meta';
    add(meta, el('b', null, T.name), ' · ', T.protocol ? T.protocol.toUpperCase() + ' ' + T.dialect : 'no protocol recognised');
    if (T.note) add(meta, ' — ', T.note);
    header.appendChild(meta);
    var peers = el('div', 'meta'); peers.id = 'trace-peers';
    add(peers, T.lanes[0] + ': ', el('b', null, T.peers.client || 'not named in the trace'), ' · ' + T.lanes[1] + ': ', el('b', null, T.peers.agent || 'not named in the trace'));
    header.appendChild(peers);
    var counts = el('div', 'counts'); counts.id = 'counts';
    add(counts, count('c-lines', null, T.lines, 'line'), count('c-messages', null, T.messages, 'message'), count('c-errors', 'e', T.errors, 'error'), count('c-warnings', 'w', T.warnings, 'warning'), count('c-groups', null, T.groups.length, T.protocol === 'arcan' ? 'run' : T.protocol === 'arcp' ? 'session/job' : 'session'), count('c-lives', null, T.lives.length, 'lifecycle'));
    header.appendChild(counts);
    if (T.omitted > 0 || T.cut > 0 || T.moreLives > 0 || T.moreGroups > 0) {
      var n = el('div', 'notice'); n.id = 'omitted';
      var parts = [];
      if (T.omitted > 0) {
        var rs = T.ranges.slice(0, 12).map(function (r) { return r[0] === r[1] ? String(r[0]) : r[0] + '–' + r[1]; }).join(', ');
        parts.push('This trace is past the size this report shows whole: it keeps every finding with ' + 'the messages around it, and leaves out ' + plural(T.omitted, 'message') + ' (lines ' + rs + (T.ranges.length > 12 ? ', …' : '') + ').');
      }
      if (T.cut > 0) parts.push(plural(T.cut, 'line') + ' longer than ' + fmt(T.maxLine) + ' bytes ' + (T.cut === 1 ? 'is' : 'are') + ' cut to that length.');
      if (T.moreLives > 0) parts.push('Only the first ' + fmt(T.lives.length) + ' lifecycles are followed (' + plural(T.moreLives, 'message') + ' of later ones are not).');
      if (T.moreGroups > 0) parts.push('Only the first ' + fmt(T.groups.length) + ' sessions, jobs and runs can be filtered by (' + plural(T.moreGroups, 'message') + ' of later ones cannot).');
      n.textContent = parts.join(' ');
      header.appendChild(n);
    }
    var det = el('details'); det.id = 'summary';
    det.appendChild(el('summary', null, 'Summary: messages by type, findings by rule, every finding, every lifecycle'));
    var filled = false;
    det.addEventListener('toggle', function () {
      if (filled || !det.open) return;
      filled = true;
      var cols = el('div', 'cols');
      add(cols, kvTable('Messages by type', T.byType), kvTable('Findings by rule', T.byRule));
      det.appendChild(cols);
      var fl = el('div', 'flist');
      fl.appendChild(el('b', null, 'Findings'));
      T.findings.slice(0, 2000).forEach(function (a) {
        var row = el('div');
        add(row, a[0] > 0 ? lineLink(t, a[0], 'L' + a[0]) : 'file', ' ', el('span', 'sev ' + a[1], a[1]), el('span', 'rule', a[2]), a[3] ? el('span', 'ptr', a[3]) : null, a[4]);
        fl.appendChild(row);
      });
      if (T.findings.length > 2000) fl.appendChild(el('div', null, 'and ' + plural(T.findings.length - 2000, 'more finding') + ': filter the timeline to see them'));
      det.appendChild(fl);
      var ll = el('div', 'llist');
      ll.appendChild(el('b', null, 'Lifecycles'));
      T.lives.slice(0, 1000).forEach(function (L) {
        var row = el('div'), st = L[3];
        add(row, L[0] + ' ' + L[1] + ': ');
        st.slice(0, 12).forEach(function (s, k) { add(row, k ? ' → ' : '', lineLink(t, s[0], s[1])); });
        if (st.length > 12) add(row, ' → … ' + st[st.length - 1][1]);
        ll.appendChild(row);
      });
      if (T.lives.length > 1000) ll.appendChild(el('div', null, 'and ' + plural(T.lives.length - 1000, 'more lifecycle')));
      det.appendChild(ll);
    });
    header.appendChild(det);

    lanehead.textContent = '';
    add(lanehead, el('div', null, 'line'), el('div', null, T.lanes[0]), el('div', null, T.lanes[1]));
    sGroup.textContent = '';
    option(sGroup, -1, 'all sessions, jobs and runs (' + fmt(T.groups.length) + ')');
    T.groups.forEach(function (g, k) { option(sGroup, k, g); });
    sMethod.textContent = '';
    option(sMethod, '', 'all message types (' + fmt(T.labels.length) + ')');
    T.labels.forEach(function (l) { option(sMethod, l, l); });
    syncControls();
    tl.scrollTop = 0;
    refilter();
    detail.textContent = '';
    var hint = 'Select a message to see it whole, with its findings and lifecycles.';
    if (T.orphans.length) {
      add(detail, el('div', 'sub', 'Findings about the whole trace or about lines not in the timeline:'));
      T.orphans.forEach(function (f) {
        var c = findingCard(f, null, false);
        if (f.line > 0) c.insertBefore(lineLink(t, f.line, 'L' + f.line + ' '), c.firstChild);
        detail.appendChild(c);
      });
    }
    detail.appendChild(el('div', 'sub', hint));
  }

  // openLeftOut shows a trace whose messages the page does not hold: its
  // counts, and how to see it.
  function openLeftOut(t) {
    show('left');
    var e = BYN.get(t);
    document.title = e[L_NAME] + ' — ' + D.title;
    var meta = el('div', 'meta'); meta.id = 'trace-meta';
    add(meta, el('b', null, e[L_NAME]), ' · ', e[L_PROTO] ? e[L_PROTO].toUpperCase() + ' ' + e[L_DIALECT] : 'no protocol recognised');
    header.appendChild(meta);
    var counts = el('div', 'counts'); counts.id = 'counts';
    add(counts, count('c-lines', null, e[4], 'line'), count('c-messages', null, e[L_MSG], 'message'), count('c-errors', 'e', e[L_ERR], 'error'), count('c-warnings', 'w', e[L_WARN], 'warning'));
    header.appendChild(counts);
    var n = el('div', 'notice'); n.id = 'left-out';
    add(n, 'This report does not hold the messages of this trace: it holds those of the ' + plural(D.list.length - D.left, 'trace') + ' with the most errors and warnings' +
      ' (at most ' + fmt(D.maxDetailed) + ' traces and ' + fmt(Math.round(D.maxDetailBytes / 1048576)) + ' MB of their data). To see its messages and findings, make its own report: ',
      el('code', null, 'validate --format html ' + quoted(e[L_NAME]) + ' > report.html'));
    header.appendChild(n);
    if (e[L_RULES].length) header.appendChild(kvTable('Findings by rule', e[L_RULES]));
  }

  // The overview of several traces: totals, findings by side and by rule,
  // and the table of traces, worst first.
  var OV = { built: false, key: 'errors', desc: true, side: null, rule: null, q: '', rows: null, limit: 0, scroll: 0, last: 0 };
  var PAGE = 200;
  var COLS = [
    { key: 'n', title: '#', num: true },
    { key: 'name', title: 'Trace' },
    { key: 'errors', title: 'Errors', num: true, desc: true },
    { key: 'warnings', title: 'Warnings', num: true, desc: true },
    { key: 'messages', title: 'Messages', num: true, desc: true },
    { key: 'protocol', title: 'Protocol' },
    { key: 'sides', title: 'Findings by side', fixed: true },
    { key: 'rules', title: 'Rules', fixed: true }
  ];
  function cmp(a, b, key) {
    switch (key) {
      case 'n': return a[L_N] - b[L_N];
      case 'name': return a[L_NAME] < b[L_NAME] ? -1 : a[L_NAME] > b[L_NAME] ? 1 : a[L_N] - b[L_N];
      case 'errors': return a[L_ERR] - b[L_ERR] || a[L_WARN] - b[L_WARN] || b[L_N] - a[L_N];
      case 'warnings': return a[L_WARN] - b[L_WARN] || a[L_ERR] - b[L_ERR] || b[L_N] - a[L_N];
      case 'messages': return a[L_MSG] - b[L_MSG] || b[L_N] - a[L_N];
      default:
        var x = a[L_PROTO] + ' ' + a[L_DIALECT], y = b[L_PROTO] + ' ' + b[L_DIALECT];
        return x < y ? -1 : x > y ? 1 : a[L_N] - b[L_N];
    }
  }
  function sideName(s) { return s || 'not told'; }
  function hasSide(e, side) {
    for (var i = 0; i < e[L_SIDES].length; i++) if (e[L_SIDES][i][0] === side) return true;
    return false;
  }
  function hasRule(e, rule) {
    for (var i = 0; i < e[L_RULES].length; i++) if (e[L_RULES][i][0] === rule) return true;
    return false;
  }

  var ovSide = el('select'), ovRule = el('select'), ovQ = el('input'), ovShown = el('p'), ovBody = el('tbody'), ovMore = el('button', null, '');
  var ovHead = [];

  function tallyTable(id, caption, first, rows, help) {
    var tb = el('table', 'tally'); tb.id = id;
    tb.appendChild(el('caption', null, caption));
    var hr = el('tr');
    [first, 'Errors', 'Warnings', 'Traces'].concat(help ? ['What it checks'] : []).forEach(function (h) { var th = el('th', null, h); th.scope = 'col'; hr.appendChild(th); });
    add(tb, add(el('thead'), hr));
    var body = el('tbody');
    rows.forEach(function (r) {
      var tr = el('tr'), th = el('th');
      th.scope = 'row';
      var b = el('button', 'linkish', first === 'Side' ? sideName(r[0]) : r[0]);
      b.type = 'button';
      b.title = 'list the traces with findings ' + (first === 'Side' ? 'on this side' : 'of this rule');
      b.addEventListener('click', function () {
        if (first === 'Side') { OV.side = r[0]; ovSide.value = 's:' + r[0]; } else { OV.rule = r[0]; ovRule.value = 'r:' + r[0]; }
        refilterOverview();
        document.getElementById('ov-traces-h').scrollIntoView();
        ovSide.focus();
      });
      th.appendChild(b);
      add(tr, th, el('td', 'num', fmt(r[1])), el('td', 'num', fmt(r[2])), el('td', 'num', fmt(r[3])));
      if (help) {
        var h = el('td', 'help', Object.prototype.hasOwnProperty.call(D.rules, r[0]) ? D.rules[r[0]] : '');
        h.title = h.textContent;
        tr.appendChild(h);
      }
      if (body.children.length >= FEW) tr.hidden = true;
      body.appendChild(tr);
    });
    tb.appendChild(body);
    if (rows.length <= FEW) return tb;
    // The first few, and a button for the rest.
    var box = el('div'), more = el('button', 'more', 'Show all ' + fmt(rows.length) + ' ' + (first === 'Side' ? 'sides' : 'rules'));
    more.type = 'button'; more.id = id + '-all';
    more.addEventListener('click', function () {
      Array.prototype.forEach.call(body.children, function (tr) { tr.hidden = false; });
      more.remove();
    });
    add(box, tb, more);
    return box;
  }
  var FEW = 10;

  function buildOverview() {
    OV.built = true;
    var T = D.totals;
    add(ov, el('h1', null, D.title));
    var tot = el('p', 'counts'); tot.id = 'ov-totals';
    add(tot, count('ov-traces', null, T.traces, 'trace'), count('ov-errors', 'e', T.errors, 'error'), count('ov-warnings', 'w', T.warnings, 'warning'), count('ov-lines', null, T.lines, 'line'), count('ov-messages', null, T.messages, 'message'));
    ov.appendChild(tot);
    var st = el('p', 'meta'); st.id = 'ov-status';
    st.textContent = plural(T.failed, 'trace') + ' with errors, ' + fmt(T.warned) + ' with warnings only, ' + fmt(T.traces - T.failed - T.warned) + ' clean.';
    ov.appendChild(st);
    var notes = [];
    if (D.unlisted.traces > 0) {
      notes.push('The table lists the ' + plural(D.list.length, 'trace') + ' with the most errors and warnings (at most ' + fmt(D.maxListed) + '). The other ' + plural(D.unlisted.traces, 'trace') +
        ', with ' + plural(D.unlisted.errors, 'error') + ' and ' + plural(D.unlisted.warnings, 'warning') + ', are in the totals and the counts by side and rule, but not listed.');
    }
    if (D.left > 0) {
      notes.push('The page holds the messages of the ' + plural(D.list.length - D.left, 'trace') + ' at the top of the table (at most ' + fmt(D.maxDetailed) + ' traces and ' + fmt(Math.round(D.maxDetailBytes / 1048576)) +
        ' MB of their data); for the other ' + plural(D.left, 'listed trace') + ' it shows the counts, marked “messages not in this report”.');
    }
    if (notes.length) {
      var n = el('div', 'notice'); n.id = 'ov-left';
      n.setAttribute('role', 'note');
      add(n, notes.join(' ') + ' To see everything, make smaller reports: run ', el('code', null, 'validate --format html'), ' on a subfolder or on one trace, or split the run with ', el('code', null, '--shard K/N'), ' (one report per shard).');
      ov.appendChild(n);
    }
    var cols = el('div', 'cols');
    var sides = el('section'), rules = el('section');
    add(sides, el('h2', null, 'Findings by side'));
    if (D.sides.length) sides.appendChild(tallyTable('ov-sides', 'Errors and warnings by the side at fault', 'Side', D.sides, false));
    else sides.appendChild(el('p', 'sub', 'No finding.'));
    add(rules, el('h2', null, 'Findings by rule'));
    if (D.byRule.length) rules.appendChild(tallyTable('ov-rules', 'Errors and warnings by rule', 'Rule', D.byRule, true));
    else rules.appendChild(el('p', 'sub', 'No finding.'));
    add(cols, sides, rules);
    ov.appendChild(cols);

    var h2 = el('h2', null, 'Traces'); h2.id = 'ov-traces-h';
    ov.appendChild(h2);
    var bar = el('div', 'toolbar'); bar.setAttribute('role', 'search'); bar.setAttribute('aria-label', 'filter the traces');
    ovSide.id = 'ov-side'; ovRule.id = 'ov-rule'; ovQ.id = 'ov-q'; ovQ.type = 'search'; ovQ.placeholder = 'trace name or protocol';
    option(ovSide, '', 'any side');
    D.sides.forEach(function (s) { option(ovSide, 's:' + s[0], sideName(s[0]) + ' (' + plural(s[3], 'trace') + ')'); });
    option(ovRule, '', 'any rule');
    D.byRule.forEach(function (r) { option(ovRule, 'r:' + r[0], r[0] + ' (' + plural(r[3], 'trace') + ')'); });
    function lab(text, input) { var l = el('label'); add(l, text + ' ', input); return l; }
    add(bar, lab('findings on side', ovSide), lab('of rule', ovRule), lab('search', ovQ));
    ov.appendChild(bar);
    ovShown.id = 'ov-shown'; ovShown.setAttribute('aria-live', 'polite');
    ov.appendChild(ovShown);
    ovSide.addEventListener('change', function () { OV.side = ovSide.value ? ovSide.value.slice(2) : null; refilterOverview(); });
    ovRule.addEventListener('change', function () { OV.rule = ovRule.value ? ovRule.value.slice(2) : null; refilterOverview(); });
    var t = 0;
    ovQ.addEventListener('input', function () {
      clearTimeout(t);
      t = setTimeout(function () { OV.q = ovQ.value.trim().toLowerCase(); refilterOverview(); }, 120);
    });

    var table = el('table', 'traces'); table.id = 'ov-table';
    table.appendChild(el('caption', null, 'Traces, sorted by the column marked; choose a column’s heading to sort by it'));
    var hr = el('tr');
    COLS.forEach(function (c) {
      var th = el('th', c.num ? 'num' : null);
      th.scope = 'col';
      if (c.fixed) th.textContent = c.title;
      else {
        var b = el('button', 'sort', c.title);
        b.type = 'button';
        b.dataset.key = c.key;
        b.addEventListener('click', function () {
          if (OV.key === c.key) OV.desc = !OV.desc; else { OV.key = c.key; OV.desc = !!c.desc; }
          refilterOverview();
        });
        th.appendChild(b);
        ovHead.push({ th: th, key: c.key });
      }
      hr.appendChild(th);
    });
    add(table, add(el('thead'), hr), ovBody);
    var wrap = el('div', 'tablewrap');
    wrap.appendChild(table);
    ov.appendChild(wrap);
    ovMore.id = 'ov-more'; ovMore.type = 'button';
    ovMore.addEventListener('click', function () { OV.limit += PAGE; drawOverview(OV.limit - PAGE); });
    ov.appendChild(ovMore);
    refilterOverview();
  }

  function refilterOverview() {
    var rows = D.list.filter(function (e) {
      if (OV.side !== null && !hasSide(e, OV.side)) return false;
      if (OV.rule !== null && !hasRule(e, OV.rule)) return false;
      if (OV.q && (e[L_NAME] + ' ' + e[L_PROTO] + ' ' + e[L_DIALECT]).toLowerCase().indexOf(OV.q) < 0) return false;
      return true;
    });
    var key = OV.key, sign = OV.desc ? -1 : 1;
    if (!(key === 'errors' && OV.desc)) rows.sort(function (a, b) { return sign * cmp(a, b, key); });
    OV.rows = rows;
    OV.limit = PAGE;
    ovHead.forEach(function (h) { h.th.setAttribute('aria-sort', h.key === key ? (OV.desc ? 'descending' : 'ascending') : 'none'); });
    ovBody.textContent = '';
    drawOverview(0);
  }

  // drawOverview adds the rows of the table from from up to OV.limit.
  function drawOverview(from) {
    var rows = OV.rows, frag = document.createDocumentFragment();
    for (var i = from; i < rows.length && i < OV.limit; i++) frag.appendChild(traceRow(rows[i]));
    ovBody.appendChild(frag);
    var n = Math.min(rows.length, OV.limit);
    var filtered = OV.side !== null || OV.rule !== null || OV.q !== '';
    ovShown.textContent = (rows.length ? 'Showing ' + (n < rows.length ? '1–' + fmt(n) + ' of ' : '') + plural(rows.length, 'trace') : 'No trace matches the filters') +
      (filtered ? ' (of ' + fmt(D.list.length) + ' listed)' : '') + '.';
    ovMore.hidden = n >= rows.length;
    ovMore.textContent = 'Show ' + fmt(Math.min(PAGE, rows.length - n)) + ' more traces';
  }

  function traceRow(e) {
    var tr = el('tr', e[L_ERR] ? 'err' : e[L_WARN] ? 'warn' : null);
    tr.dataset.n = e[L_N];
    var a = el('a', null, e[L_NAME]);
    a.href = traceHash(e[L_N]);
    var name = el('td', 'name');
    add(name, a);
    if (!e[L_DATA]) add(name, ' ', el('span', 'left', 'messages not in this report'));
    var sides = e[L_SIDES].map(function (s) { return sideName(s[0]) + ' ' + fmt(s[1] + s[2]); }).join(' · ');
    var rules = e[L_RULES].slice(0, 3).map(function (r) { return r[0]; }).join(', ') + (e[L_RULES].length > 3 ? ' and ' + fmt(e[L_RULES].length - 3) + ' more' : '');
    add(tr, el('td', 'num', fmt(e[L_N])), name, el('td', e[L_ERR] ? 'num e' : 'num', fmt(e[L_ERR])), el('td', e[L_WARN] ? 'num w' : 'num', fmt(e[L_WARN])), el('td', 'num', fmt(e[L_MSG])),
      el('td', null, e[L_PROTO] ? e[L_PROTO].toUpperCase() + ' ' + e[L_DIALECT] : 'none'), el('td', null, sides), el('td', 'rules', rules));
    return tr;
  }

  function showOverview() {
    var from = VIEW === 'trace' || VIEW === 'left' ? S.t : 0;
    if (!OV.built) buildOverview();
    show('overview');
    document.title = D.title;
    if (from) {
      // Back from a trace: to its row, drawn if it is in the table.
      var at = -1;
      for (var i = 0; i < OV.rows.length; i++) if (OV.rows[i][L_N] === from) { at = i; break; }
      if (at >= OV.limit) {
        var was = OV.limit;
        OV.limit = Math.ceil((at + 1) / PAGE) * PAGE;
        drawOverview(was);
      }
      var a = ovBody.querySelector('tr[data-n="' + from + '"] a');
      if (a) { a.focus({ preventScroll: true }); a.scrollIntoView({ block: 'center' }); }
    }
  }

  if (!D.list.length) {
    show('none');
    add(document.body, el('div', 'empty', 'No trace was checked.'));
  } else {
    route();
  }
  document.documentElement.dataset.ready = '1';
})();
