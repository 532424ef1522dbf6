// Page weight: the theme fetches the whole search index (~250 KB) as soon as any page loads. Hold that
// one request back until the reader reaches for search (focus or click on the search box, or the
// theme's search keys), so a page without charts stays light; searching works exactly as before.
(function () {
  var open = XMLHttpRequest.prototype.open;
  var send = XMLHttpRequest.prototype.send;
  var held = [];
  var released = false;
  XMLHttpRequest.prototype.open = function (method, url) {
    this.__dbUrl = String(url);
    return open.apply(this, arguments);
  };
  XMLHttpRequest.prototype.send = function () {
    if (!released && /\/search\/search_index\.json$/.test(this.__dbUrl || "")) {
      held.push([this, arguments]);
      return undefined;
    }
    return send.apply(this, arguments);
  };
  // The search worker script (~40 KB) likewise starts only then: until release() the theme talks to a
  // stand-in that queues its listeners and messages and hands them to the real worker.
  var RealWorker = window.Worker;
  var standIns = [];
  if (RealWorker) {
    window.Worker = function (url, opts) {
      if (released || !/\/workers\/search\.[^\/]*\.js/.test(String(url))) return new RealWorker(url, opts);
      var s = { listeners: [], queue: [], real: null, dead: false, onmessage: null, onerror: null };
      s.postMessage = function (m, t) { if (s.real) s.real.postMessage(m, t); else s.queue.push([m, t]); };
      s.addEventListener = function (type, fn, o) {
        if (s.real) s.real.addEventListener(type, fn, o); else s.listeners.push([type, fn, o]);
      };
      s.removeEventListener = function (type, fn, o) {
        if (s.real) s.real.removeEventListener(type, fn, o);
        else s.listeners = s.listeners.filter(function (l) { return !(l[0] === type && l[1] === fn); });
      };
      s.terminate = function () { s.dead = true; if (s.real) s.real.terminate(); };
      s.start = function () {
        if (s.dead || s.real) return;
        var w = new RealWorker(url, opts);
        s.real = w;
        if (s.onmessage) w.onmessage = s.onmessage;
        if (s.onerror) w.onerror = s.onerror;
        s.listeners.forEach(function (l) { w.addEventListener(l[0], l[1], l[2]); });
        s.queue.forEach(function (q) { w.postMessage(q[0], q[1]); });
        s.queue = [];
      };
      standIns.push(s);
      return s;
    };
  }
  function release() {
    if (released) return;
    released = true;
    standIns.forEach(function (s) { s.start(); });
    held.forEach(function (h) { send.apply(h[0], h[1]); });
    held = [];
  }
  document.addEventListener("focusin", function (e) {
    if (e.target && e.target.closest && e.target.closest(".md-search")) release();
  }, true);
  document.addEventListener("click", function (e) {
    if (e.target && e.target.closest && e.target.closest('.md-search, label[for="__search"]')) release();
  }, true);
  document.addEventListener("keydown", function (e) {
    if (["s", "S", "f", "F", "/"].indexOf(e.key) >= 0) release();
  }, true);
})();
