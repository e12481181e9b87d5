// Autosave for the Trace annotation tool (seed 000 App. K.1): every change is one PUT of one field.
"use strict";
(function () {
  const body = document.body;
  const token = body.dataset.token, item = body.dataset.item;
  const status = document.getElementById("status");
  const pending = new Map();          // field -> timer of a debounced text save
  let inflight = 0;

  function show(text, bad) { status.textContent = text; status.className = bad ? "error" : ""; }

  function save(field, value, keepalive) {
    inflight += 1; show("saving…");
    return fetch(`/api/${encodeURIComponent(token)}/item/${encodeURIComponent(item)}/${encodeURIComponent(field)}`, {
      method: "PUT", headers: {"Content-Type": "application/json"}, body: JSON.stringify({value: value}),
      keepalive: !!keepalive,
    }).then(async (r) => {
      inflight -= 1;
      if (!r.ok) { const t = await r.text(); show(`not saved (${r.status}): ${t}`, true); return; }
      if (inflight === 0 && pending.size === 0) show("saved");
    }).catch(() => { inflight -= 1; show("not saved: server unreachable — your change will be re-sent", true);
                     setTimeout(() => save(field, value), 1500); });
  }

  function later(field, el) {
    clearTimeout(pending.get(field));
    pending.set(field, setTimeout(() => { pending.delete(field); save(field, el.value); }, 300));
  }

  document.querySelectorAll('input[type=radio][data-field]').forEach((el) => el.addEventListener("change", () => {
    save(el.dataset.field, el.dataset.int ? parseInt(el.value, 10) : el.value);
  }));

  const errorBoxes = Array.from(document.querySelectorAll('input[name=errors]'));
  errorBoxes.forEach((el) => el.addEventListener("change", () => {
    if (el.checked && el.value === "no_errors") errorBoxes.forEach((o) => { if (o !== el) o.checked = false; });
    if (el.checked && el.value !== "no_errors") errorBoxes.forEach((o) => { if (o.value === "no_errors") o.checked = false; });
    save("errors", errorBoxes.filter((o) => o.checked).map((o) => o.value));
  }));

  const poiBoxes = Array.from(document.querySelectorAll('input[name=pois]'));
  function savePois() { save("pois", poiBoxes.filter((o) => o.checked).map((o) => o.value)); }
  poiBoxes.forEach((el) => el.addEventListener("change", () => {
    if (poiBoxes.filter((o) => o.checked).length > 3) { el.checked = false; show("pick at most 3 POIs", true); return; }
    savePois();
  }));

  document.querySelectorAll("textarea[data-field]").forEach((el) => {
    el.addEventListener("input", () => later(el.dataset.field, el));
    el.addEventListener("change", () => { clearTimeout(pending.get(el.dataset.field)); pending.delete(el.dataset.field);
                                          save(el.dataset.field, el.value); });
  });

  document.querySelectorAll(".add-quote").forEach((button) => button.addEventListener("click", () => {
    const box = button.closest(".candidate");
    const sel = window.getSelection();
    const text = sel ? sel.toString().trim() : "";
    if (!text || !sel.anchorNode || !box.contains(sel.anchorNode)) { show("select text in this POI's reviews first", true); return; }
    const sentence = document.getElementById("sentence");
    const line = `I recommend ${box.dataset.name} because "${text.replace(/"/g, "'")}".`;
    sentence.value = sentence.value ? `${sentence.value} ${line}` : line;
    save("sentence", sentence.value);
    const mine = poiBoxes.find((o) => o.value === box.dataset.poi);
    if (mine && !mine.checked && poiBoxes.filter((o) => o.checked).length < 3) { mine.checked = true; savePois(); }
  }));

  window.addEventListener("beforeunload", () => {
    pending.forEach((timer, field) => { clearTimeout(timer); save(field, document.querySelector(`[data-field="${field}"]`).value, true); });
  });
})();
