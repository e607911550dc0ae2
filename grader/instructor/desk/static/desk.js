// grade desk: decide without leaving the page, keys for the hands, and other TAs' decisions shown live.
// No inline script anywhere (the CSP forbids it); without this file every form still works by POST.
"use strict";
(function () {
  const main = () => document.getElementById("main");
  let version = document.querySelector('meta[name="desk-version"]').content;
  let busy = false;

  function items() { return Array.from(document.querySelectorAll("article.item")); }
  function current() { return document.activeElement && document.activeElement.closest("article.item"); }

  async function refresh(flash) {  // this page again, its main swapped: the counts and cards as recorded
    const r = await fetch(location.pathname + location.search, {credentials: "same-origin"});
    if (!r.ok) return;
    const doc = new DOMParser().parseFromString(await r.text(), "text/html");
    const key = current() && current().dataset.key;
    main().replaceWith(doc.getElementById("main"));
    version = doc.querySelector('meta[name="desk-version"]').content;
    if (flash) { const live = document.getElementById("live"); live.hidden = false; setTimeout(() => { live.hidden = true; }, 4000); }
    const again = key && document.querySelector(`article.item[data-key="${CSS.escape(key)}"]`);
    if (again) again.focus();
  }

  function say(text, bad) {
    let p = main().querySelector(".message");
    if (!p) { p = document.createElement("p"); p.className = "message"; p.setAttribute("role", "status"); main().prepend(p); }
    p.textContent = text;
    p.classList.toggle("bad", !!bad);
  }

  document.addEventListener("submit", async (ev) => {
    const form = ev.target;
    if (!form.classList.contains("decide")) return;
    ev.preventDefault();
    const data = new URLSearchParams(new FormData(form));
    if (ev.submitter && ev.submitter.name) data.set(ev.submitter.name, ev.submitter.value);  // the choice clicked
    busy = true;
    try {
      const r = await fetch(form.action, {method: "POST", body: data, credentials: "same-origin",
                                          headers: {"Accept": "application/json"}});
      const answer = await r.json();
      await refresh(false);
      say(answer.ok ? answer.message : answer.error, !answer.ok);
    } catch (e) {
      say("the desk did not answer / 데스크가 응답하지 않습니다: " + e, true);
    } finally { busy = false; }
  });

  document.addEventListener("keydown", (ev) => {
    const t = ev.target;
    if (t.closest && t.closest("input, select, textarea")) { if (ev.key === "Escape") t.blur(); return; }
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const list = items();
    const at = list.indexOf(current());
    if (ev.key === "j" || ev.key === "k") {
      const next = list[Math.max(0, Math.min(list.length - 1, at + (ev.key === "j" ? 1 : -1)))];
      if (next) { next.focus(); next.scrollIntoView({block: "nearest"}); }
    } else if (/^[1-9]$/.test(ev.key) && at >= 0) {
      const b = list[at].querySelector(`button[data-n="${ev.key}"]`);
      if (b) b.click();
    } else if (ev.key === "Enter" && at >= 0) {
      const a = list[at].querySelector("a.who");
      if (a) location.href = a.href;
    } else if (ev.key === "/") {
      const f = document.getElementById("student-filter") || list[at >= 0 ? at : 0]?.querySelector('input[name="reason"]');
      if (f) { ev.preventDefault(); f.focus(); }
    } else if (ev.key === "u") {
      location.href = "/";
    } else { return; }
    ev.preventDefault();
  });

  setInterval(async () => {  // another TA's decision (or the CLI's): shown without a reload
    if (busy || document.hidden) return;
    const typing = document.activeElement && document.activeElement.matches("input, select");
    try {
      const r = await fetch("/state", {credentials: "same-origin"});
      const s = await r.json();
      if (s.version !== version && !typing) await refresh(true);
    } catch (e) { /* the desk stopped: the page stays as it is */ }
  }, 4000);

  const first = items()[0];
  if (location.hash) { const el = document.getElementById(decodeURIComponent(location.hash.slice(1))); if (el) el.focus(); }
  else if (first) first.focus({preventScroll: true});
})();
