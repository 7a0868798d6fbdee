/* mdchunk inspector: shows how every page of the site was cut into chunks.
 *
 * Data: window.MDCHUNK_INSPECTOR, assigned by data.js (written by mdchunk/inspector.py):
 *   {version, maxTokens, siteRoot, pages: [{sourcePath, url, title, markdown, warnings,
 *    chunks: [{span: [start, end], embedPrefix, record}]}]}
 * span indexes the page Markdown in UTF-16 code units; record is the native chunk record with
 * originalText (and embedText when embedPrefix is not null) left null, rebuilt from the span.
 *
 * Page text is data, never markup: every node is built with createElement and textContent.
 * Navigation lives in the location hash (#page=<sourcePath>, #chunk=<id>), so links to a chunk
 * work and the browser's back button does too.
 */
"use strict";

(function () {
  const data = window.MDCHUNK_INSPECTOR;
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";

  const state = {
    page: null, // the shown page (an entry of data.pages)
    chunk: null, // the selected chunk (an entry of page.chunks)
    filter: "", // lower-cased filter text
    absolute: false, // open chunks at their absoluteUrl instead of the relative site link
  };
  const chunkById = new Map(); // record id -> {page, chunk}
  const pageByPath = new Map(); // sourcePath -> page
  const pageById = new Map(); // page id (the chunks' parentId, `doc:guide/install`) -> page
  const searchText = new WeakMap(); // chunk -> lower-cased text and breadcrumb

  /* ---- DOM helpers: text always goes through text nodes ---- */

  function el(tag, className, ...children) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(typeof child === "string" || typeof child === "number" ? String(child) : child);
    }
    return node;
  }

  function link(href, className, ...children) {
    const node = el("a", className, ...children);
    node.setAttribute("href", href);
    return node;
  }

  function svg(tag, attributes, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function clear(node) {
    node.replaceChildren();
    return node;
  }

  const number = (value) => value.toLocaleString("en-US");
  /** `1 chunk`, `3 chunks`: a count with its noun. */
  const counted = (value, noun) => `${typeof value === "number" ? number(value) : value} ${noun}` +
    (value === 1 ? "" : "s");

  /* ---- the data ---- */

  function chunkText(page, chunk) {
    return page.markdown.slice(chunk.span[0], chunk.span[1]);
  }

  /** The full native record: the stored one with its text put back. */
  function fullRecord(page, chunk) {
    const text = chunkText(page, chunk);
    const record = Object.assign({}, chunk.record, { originalText: text });
    if (chunk.embedPrefix !== null) record.embedText = chunk.embedPrefix + text;
    return record;
  }

  const tokens = (chunk) => chunk.record.tokenStats.tokens;

  /** The chunk's own budget: its adaptive size when adaptive sizing is on, else max_tokens. */
  function budget(chunk) {
    const adaptive = chunk.record.adaptiveSizing;
    return adaptive ? adaptive.adaptiveSize : data.maxTokens;
  }

  const isOversize = (chunk) => chunk.record.flags.allowOversize || tokens(chunk) > budget(chunk);
  const isSmall = (chunk) => chunk.record.flags.smallChunk;

  /** Short labels for the chunk's flags: [label, css class, explanation]. */
  function flagsOf(chunk) {
    const flags = chunk.record.flags;
    const out = [];
    if (isOversize(chunk)) {
      out.push(["oversize", "flag-oversize",
        `${tokens(chunk)} > ${budget(chunk)} tokens` +
        (flags.oversizeReason ? ` (${flags.oversizeReason})` : "")]);
    }
    if (flags.smallChunk) out.push(["small", "flag-small", flags.smallChunkReason || "small"]);
    if (flags.forcedSplit) {
      out.push(["forced split", "flag-forced", "cut inside a sentence: no sentence end fitted"]);
    }
    if (flags.hasOverlapPrevious) {
      out.push(["overlap", "flag-overlap", "starts with the tail of the previous chunk"]);
    }
    return out;
  }

  function matches(page, chunk) {
    if (!state.filter) return true;
    let text = searchText.get(chunk);
    if (text === undefined) {
      text = (chunkText(page, chunk) + "\n" + (chunk.record.headerBreadcrumb || "")).toLowerCase();
      searchText.set(chunk, text);
    }
    return text.includes(state.filter);
  }

  /* ---- links ---- */

  /** The chunk's (or page's) deep link in the site, from the inspector's folder.
   * Over file:// a folder does not open its index.html, so name it. */
  function siteHref(url) {
    const hashAt = url.indexOf("#");
    let path = hashAt < 0 ? url : url.slice(0, hashAt);
    const hash = hashAt < 0 ? "" : url.slice(hashAt);
    if (location.protocol === "file:" && (path === "" || path.endsWith("/"))) {
      path += "index.html";
    }
    return data.siteRoot + path + hash;
  }

  /** The link that opens a chunk in the site: absoluteUrl only when asked and safe. */
  function chunkSiteHref(chunk) {
    const absolute = chunk.record.absoluteUrl;
    if (state.absolute && absolute && /^https?:\/\//i.test(absolute)) return absolute;
    return siteHref(chunk.record.url);
  }

  const chunkHref = (chunk) => "#chunk=" + encodeURIComponent(chunk.record.id);
  const pageHref = (page) => "#page=" + encodeURIComponent(page.sourcePath);

  function siteLink(href, label) {
    const node = link(href, "site-link", label);
    node.target = "_blank";
    node.rel = "noopener";
    return node;
  }

  /* ---- the page list ---- */

  function renderPageList() {
    const list = clear($("page-list"));
    for (const page of data.pages) {
      const shown = page.chunks.filter((chunk) => matches(page, chunk)).length;
      if (state.filter && !shown) continue;
      const count = state.filter ? `${shown}/${page.chunks.length}` : page.chunks.length;
      const anchor = link(pageHref(page), "page-link",
        el("span", "page-title", page.title),
        el("span", "page-path", page.sourcePath),
        el("span", "badges",
          el("span", "badge", counted(count, "chunk")),
          page.warnings.length
            ? el("span", "badge badge-warning", counted(page.warnings.length, "warning"))
            : null));
      if (page.warnings.length) anchor.title = page.warnings.join("\n");
      const item = el("li", page === state.page ? "current" : "", anchor);
      item.dataset.path = page.sourcePath;
      list.append(item);
    }
    const total = data.pages.reduce((sum, page) => sum + page.chunks.length, 0);
    const shown = data.pages.reduce(
      (sum, page) => sum + page.chunks.filter((chunk) => matches(page, chunk)).length, 0);
    $("filter-count").textContent = state.filter ? `${shown} of ${total} chunks match` : "";
  }

  /* ---- a page: its Markdown with the chunks drawn on it ---- */

  function renderPage() {
    const view = clear($("page-view"));
    const page = state.page;
    if (!page) {
      view.append(el("p", "hint", "Choose a page on the left."));
      return;
    }
    const pageTokens = page.chunks.reduce((sum, chunk) => sum + tokens(chunk), 0);
    view.append(el("header", "page-head",
      el("h2", null, page.title),
      el("p", "page-facts",
        el("code", null, page.sourcePath), " · ",
        siteLink(siteHref(page.url), "open page in the site"), " · ",
        `${counted(page.chunks.length, "chunk")}, ${counted(pageTokens, "token")}`)));
    if (page.warnings.length) {
      view.append(el("ul", "warnings", ...page.warnings.map((text) => el("li", null, text))));
    }
    const markdown = el("div", "markdown");
    let cursor = 0; // end of the text drawn so far (chunks may overlap)
    page.chunks.forEach((chunk, index) => {
      const [start, end] = chunk.span;
      if (start > cursor) markdown.append(gap(page.markdown.slice(cursor, start)));
      const shownFrom = Math.max(start, cursor);
      const next = page.chunks[index + 1];
      const overlapAt = next && next.span[0] < end ? Math.max(next.span[0], shownFrom) : end;
      const text = el("pre", "chunk-text", page.markdown.slice(shownFrom, overlapAt));
      if (overlapAt < end) {
        const mark = el("mark", "overlap", page.markdown.slice(overlapAt, end));
        mark.title = `also the start of chunk #${next.record.chunkNumber}`;
        text.append(mark);
      }
      markdown.append(renderChunk(chunk, text));
      cursor = Math.max(cursor, end);
    });
    if (cursor < page.markdown.length) markdown.append(gap(page.markdown.slice(cursor)));
    view.append(markdown);
    applyFilterToPage();
  }

  /** Text between chunks (in no chunk); blank text between chunks is not drawn. */
  function gap(text) {
    return el("pre", text.trim() ? "gap" : "gap blank", text);
  }

  function renderChunk(chunk, text) {
    const record = chunk.record;
    const head = el("div", "chunk-head",
      el("span", "chunk-number", `#${record.chunkNumber}`),
      el("span", "chunk-tokens", `${tokens(chunk)} tok`),
      ...flagsOf(chunk).map(([label, className, why]) => {
        const flag = el("span", "flag " + className, label);
        flag.title = why;
        return flag;
      }),
      el("span", "chunk-crumb", record.headerBreadcrumb || "(preamble)"));
    const classes = ["chunk", record.chunkNumber % 2 ? "tint-1" : "tint-0"];
    if (isOversize(chunk)) classes.push("is-oversize");
    if (isSmall(chunk)) classes.push("is-small");
    if (chunk === state.chunk) classes.push("selected");
    const box = el("div", classes.join(" "), head, text);
    box.id = "chunk-" + record.chunkNumber;
    box.dataset.id = record.id;
    box.tabIndex = 0;
    box.setAttribute("role", "button");
    box.setAttribute("aria-label", `chunk ${record.chunkNumber}, ${tokens(chunk)} tokens`);
    const select = () => { location.hash = chunkHref(chunk); };
    box.addEventListener("click", (event) => {
      if (!window.getSelection().isCollapsed) return; // selecting text, not choosing a chunk
      event.preventDefault();
      select();
    });
    box.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        select();
      }
    });
    return box;
  }

  function applyFilterToPage() {
    const page = state.page;
    if (!page) return;
    const view = $("page-view");
    for (const box of view.querySelectorAll(".chunk")) {
      const { chunk } = chunkById.get(box.dataset.id);
      box.hidden = !matches(page, chunk);
    }
    for (const gap of view.querySelectorAll(".gap")) gap.hidden = Boolean(state.filter);
  }

  /* ---- the selected chunk's record ---- */

  function renderRecord() {
    const section = $("record-section");
    const chunk = state.chunk;
    section.hidden = !chunk;
    if (!chunk) return;
    const page = chunkById.get(chunk.record.id).page;
    const record = fullRecord(page, chunk);
    const links = clear($("record-links"));
    const open = siteLink(chunkSiteHref(chunk), "open in the site ↗");
    open.id = "record-site-link";
    links.append(el("strong", null, record.id), " ", open);
    const here = link(chunkHref(chunk), "chunk-link", "link to this chunk");
    links.append(" · ", here);
    for (const [label, id] of [["← previous", record.prevId], ["next →", record.nextId]]) {
      if (id) links.append(" · ", link("#chunk=" + encodeURIComponent(id), null, label));
    }
    if (record.absoluteUrl) {
      const box = el("input");
      box.type = "checkbox";
      box.checked = state.absolute;
      box.addEventListener("change", () => {
        state.absolute = box.checked;
        open.setAttribute("href", chunkSiteHref(chunk));
      });
      links.append(el("label", "absolute", box, " use absoluteUrl"));
    }
    $("record").textContent = JSON.stringify(record, null, 2);
  }

  /* ---- the site: histogram, oversize and small chunks, warnings ---- */

  function renderSummary() {
    let chunks = 0;
    let total = 0;
    for (const page of data.pages) {
      chunks += page.chunks.length;
      for (const chunk of page.chunks) total += tokens(chunk);
    }
    // As the build counts them: pages with chunks (an empty page has none).
    const pages = data.pages.filter((page) => page.chunks.length).length;
    $("summary").textContent = `${counted(pages, "page")} · ${counted(chunks, "chunk")} · ` +
      `${counted(total, "token")} · max_tokens ${data.maxTokens}`;
  }

  /** The histogram's bins: 16 up to max_tokens (the last ends exactly there), as many of the same
   * width above it as needed up to twice max_tokens, then one for anything larger. A bin holds
   * the token counts low..high; width max_tokens/16 is exact, being a division by 16. */
  function histogramBins(values) {
    const max = data.maxTokens;
    const width = max / 16;
    const largest = values.reduce((a, b) => Math.max(a, b), 0);
    const count = 16 + Math.max(1, Math.ceil((Math.min(largest, 2 * max) - max) / width));
    const bins = Array.from({ length: count }, (_, index) => ({
      low: index === 0 ? 0 : Math.floor(index * width) + 1,
      high: Math.floor((index + 1) * width),
      count: 0,
    }));
    const overflow = { low: Math.floor(count * width) + 1, high: Infinity, count: 0 };
    for (const value of values) {
      const index = Math.max(0, Math.ceil(value / width) - 1);
      if (index < count) bins[index].count += 1;
      else overflow.count += 1;
    }
    if (overflow.count) bins.push(overflow);
    return { bins, width };
  }

  function renderHistogram() {
    const values = data.pages.flatMap((page) => page.chunks.map(tokens));
    const { bins, width } = histogramBins(values);
    const W = 400, H = 170, left = 34, right = 8, top = 18, bottom = 24;
    const plotW = W - left - right, plotH = H - top - bottom;
    const barW = plotW / bins.length;
    const most = Math.max(1, ...bins.map((bin) => bin.count));
    const chart = svg("svg", {
      viewBox: `0 0 ${W} ${H}`, class: "histogram-svg", role: "img",
      "aria-label": `token histogram of ${values.length} chunks, max_tokens ${data.maxTokens}`,
    });
    bins.forEach((bin, index) => {
      const height = (bin.count / most) * plotH;
      const over = bin.low > data.maxTokens;
      const bar = svg("rect", {
        class: over ? "bar over" : "bar",
        x: (left + index * barW + 0.5).toFixed(2), width: Math.max(1, barW - 1).toFixed(2),
        y: (top + plotH - height).toFixed(2), height: height.toFixed(2),
      });
      const range = bin.high === Infinity ? `> ${bin.low - 1}` : `${bin.low}–${bin.high}`;
      bar.append(svg("title", {}, `${range} tokens: ${bin.count} chunks`));
      chart.append(bar);
    });
    const xOf = (value) => left + (value / width) * barW;
    chart.append(svg("line", { class: "axis", x1: left, x2: W - right, y1: top + plotH,
      y2: top + plotH }));
    chart.append(svg("line", { class: "axis", x1: left, x2: left, y1: top, y2: top + plotH }));
    chart.append(svg("text", { class: "tick", x: left - 4, y: top + 4, "text-anchor": "end" },
      String(most)));
    chart.append(svg("text", { class: "tick", x: left - 4, y: top + plotH, "text-anchor": "end" },
      "0"));
    const lastBin = bins[bins.length - 1];
    const xTicks = [[0, "0"], [data.maxTokens, String(data.maxTokens)]];
    if (lastBin.high === Infinity) xTicks.push([lastBin.low - 1, `>${lastBin.low - 1}`]);
    else xTicks.push([lastBin.high, String(lastBin.high)]);
    for (const [value, label] of xTicks) {
      chart.append(svg("text", { class: "tick", x: xOf(value).toFixed(2), y: H - 8,
        "text-anchor": "middle" }, label));
    }
    const maxX = xOf(data.maxTokens).toFixed(2);
    chart.append(svg("line", { class: "max-line", x1: maxX, x2: maxX, y1: top - 6,
      y2: top + plotH }));
    chart.append(svg("text", { class: "max-label", x: (Number(maxX) + 4).toFixed(2),
      y: top - 6 }, `max_tokens ${data.maxTokens}`));
    clear($("histogram")).append(chart);
  }

  function chunkItem(page, chunk, detail) {
    return el("li", null,
      link(chunkHref(chunk), "chunk-link",
        `${page.sourcePath} #${chunk.record.chunkNumber}`),
      ` ${tokens(chunk)} tok${detail ? " · " + detail : ""} `,
      siteLink(siteHref(chunk.record.url), "site ↗"));
  }

  function renderLists() {
    const oversize = clear($("oversize-list"));
    const small = clear($("small-list"));
    const warnings = clear($("warning-list"));
    const counts = [0, 0, 0];
    for (const page of data.pages) {
      for (const chunk of page.chunks) {
        if (isOversize(chunk)) {
          oversize.append(chunkItem(page, chunk, chunk.record.flags.oversizeReason));
          counts[0] += 1;
        }
        if (isSmall(chunk)) {
          small.append(chunkItem(page, chunk, chunk.record.flags.smallChunkReason));
          counts[1] += 1;
        }
      }
      for (const warning of page.warnings) {
        warnings.append(el("li", null, link(pageHref(page), null, page.sourcePath), ": ",
          warning));
        counts[2] += 1;
      }
    }
    [["oversize-count", oversize], ["small-count", small], ["warning-count", warnings]]
      .forEach(([id, list], index) => {
        $(id).textContent = `(${counts[index]})`;
        if (!counts[index]) list.append(el("li", "none", "none"));
      });
  }

  /* ---- navigation ---- */

  function route() {
    let hash = "";
    try {
      hash = decodeURIComponent(location.hash.slice(1));
    } catch (error) {
      hash = ""; // a hand-made hash that is not valid percent-encoding
    }
    let page = state.page;
    let chunk = null;
    if (hash.startsWith("chunk=") && chunkById.has(hash.slice(6))) {
      ({ page, chunk } = chunkById.get(hash.slice(6)));
    } else if (hash.startsWith("page=") && pageByPath.has(hash.slice(5))) {
      page = pageByPath.get(hash.slice(5));
    } else if (chunkById.has(hash)) { // a chunk id as the index writes it: #doc:api::ch2
      ({ page, chunk } = chunkById.get(hash));
    } else if (pageById.has(hash)) { // a page id: #doc:api
      page = pageById.get(hash);
    } else if (!page) {
      page = data.pages.find((candidate) => candidate.chunks.length) || data.pages[0] || null;
    }
    const pageChanged = page !== state.page;
    state.page = page;
    state.chunk = chunk;
    if (pageChanged) {
      renderPage();
      $("page-view").scrollTop = 0;
    } else {
      for (const box of $("page-view").querySelectorAll(".chunk")) {
        box.classList.toggle("selected", Boolean(chunk) && box.dataset.id === chunk.record.id);
      }
    }
    for (const item of $("page-list").children) {
      item.classList.toggle("current", Boolean(page) && item.dataset.path === page.sourcePath);
    }
    document.title = page ? `${page.title} · mdchunk inspector` : "mdchunk inspector";
    renderRecord();
    if (chunk) {
      const box = $("chunk-" + chunk.record.chunkNumber);
      if (box) box.scrollIntoView({ block: "nearest" });
    }
  }

  function start() {
    if (!data || !Array.isArray(data.pages)) {
      clear($("page-view")).append(
        el("p", "hint", "No inspector data: data.js is missing or was not written by mdchunk."));
      return;
    }
    for (const page of data.pages) {
      pageByPath.set(page.sourcePath, page);
      for (const chunk of page.chunks) {
        chunkById.set(chunk.record.id, { page, chunk });
        pageById.set(chunk.record.parentId, page);
      }
    }
    renderSummary();
    renderHistogram();
    renderLists();
    renderPageList();
    let timer = null;
    $("filter").addEventListener("input", (event) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        state.filter = event.target.value.trim().toLowerCase();
        renderPageList();
        applyFilterToPage();
      }, 120);
    });
    window.addEventListener("hashchange", route);
    route();
  }

  start();
})();
