'use strict';
// vectorbert's attention explorer: bertviz's head, model and neuron views drawn on canvas from the
// numbers inlined below the page. Layers are inflated when a view first needs them.
(() => {
  const data = JSON.parse(document.getElementById('vectorbert-data').textContent);
  const tokens = data.tokens;
  const n = tokens.length;
  const sentenceB = data.sentenceB;          // where the pair's second text starts, -1 for one text
  const headSize = data.headSize;
  const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf',
    '#393b79', '#ad494a', '#637939', '#843c39', '#7b4173', '#3182bd'];
  const colorOf = head => COLORS[head % COLORS.length];
  const SQUARES = new Float32Array(256).map((_, b) => (b / 255) * (b / 255));   // a stored byte b means p = (b/255)²
  const MIN_ALPHA = 3 / 255;                  // fainter lines do not show, and drawing them was most of the time
  const $ = id => document.getElementById(id);

  const state = {
    view: data.view,
    layer: data.layers[0],
    heads: new Set(data.heads),
    filter: 'all',
    hover: null,                               // {side: 'left' | 'right', index}
    neuronHead: data.heads.includes(8) ? 8 : data.heads[0],
    neuronQuery: Math.min(n - 1, sentenceB > 0 ? 2 : 1),
    zoom: null,                                // {layer, head}
  };
  const drawn = {head: 0, model: 0, neuron: 0};   // frames drawn, for tests
  const took = {};                                // milliseconds the last frame of each step took, for tests

  // --- the numbers -------------------------------------------------------------------------------
  function bytesOf(base64) {
    const text = atob(base64);
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) {
      bytes[i] = text.charCodeAt(i);
    }
    return bytes;
  }

  async function inflate(base64) {
    const stream = new Blob([bytesOf(base64)]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }

  const layerCache = new Map();
  /** The layer's stored bytes, [chosen head][query][key]. */
  function layerBytes(layer) {
    if (!layerCache.has(layer)) {
      layerCache.set(layer, inflate(data.attention.byLayer[data.layers.indexOf(layer)]));
    }
    return layerCache.get(layer);
  }

  /** One head's probabilities as a Float32Array [query * n + key]. */
  async function attention(layer, head) {
    const bytes = await layerBytes(layer);
    const offset = data.heads.indexOf(head) * n * n;
    const p = new Float32Array(n * n);
    for (let i = 0; i < p.length; i++) {       // a plain loop: Float32Array.from with a function took 30 ms a head
      p[i] = SQUARES[bytes[offset + i]];
    }
    return p;
  }

  const vectorCache = new Map();
  /** {queries, keys} of a layer the file holds them for, each a Float32Array [chosen head][token][headSize]; else null. */
  function queriesAndKeys(layer) {
    const at = data.neuron.layers.indexOf(layer);
    if (at < 0) {
      return Promise.resolve(null);
    }
    if (!vectorCache.has(layer)) {
      // Little-endian float32, as every machine a browser runs on stores them.
      vectorCache.set(layer, Promise.all([inflate(data.neuron.queries[at]), inflate(data.neuron.keys[at])])
        .then(([q, k]) => ({queries: new Float32Array(q.buffer), keys: new Float32Array(k.buffer)})));
    }
    return vectorCache.get(layer);
  }

  /** What the neuron view shows for one query: the vectors, their products, scores q·k/√d and the softmax. */
  async function neuron(layer, head, query) {
    const qk = await queriesAndKeys(layer);
    if (qk === null) {
      return null;
    }
    const base = data.heads.indexOf(head) * n * headSize;
    const q = qk.queries.subarray(base + query * headSize, base + (query + 1) * headSize);
    const keys = [];
    const products = [];
    const scores = new Float64Array(n);
    for (let j = 0; j < n; j++) {
      const k = qk.keys.subarray(base + j * headSize, base + (j + 1) * headSize);
      const product = Float32Array.from(k, (v, i) => v * q[i]);
      keys.push(k);
      products.push(product);
      scores[j] = product.reduce((s, v) => s + v, 0) / Math.sqrt(headSize);
    }
    const top = Math.max(...scores);
    const exps = scores.map(s => Math.exp(s - top));
    const total = exps.reduce((s, v) => s + v, 0);
    return {query: q, keys, products, scores: Array.from(scores), softmax: Array.from(exps, v => v / total)};
  }

  // --- shared drawing ----------------------------------------------------------------------------
  const ratio = () => window.devicePixelRatio || 1;
  function sized(canvas, width, height) {
    canvas.width = Math.round(width * ratio());
    canvas.height = Math.round(height * ratio());
    canvas.style.width = width + 'px';
    canvas.style.height = height + 'px';
    const g = canvas.getContext('2d');
    g.setTransform(ratio(), 0, 0, ratio(), 0, 0);
    return g;
  }
  const inA = i => sentenceB < 0 || i < sentenceB;
  const FONT = '12px system-ui, sans-serif';
  const measure = document.createElement('canvas').getContext('2d');
  measure.font = FONT;
  const tokenWidth = Math.min(160, Math.ceil(Math.max(...tokens.map(t => measure.measureText(t).width))) + 10);

  // --- head view ---------------------------------------------------------------------------------
  const pitch = n <= 128 ? 20 : n <= 256 ? 14 : 11;
  const LINES = 300;
  const head = {left: 10, top: 10};
  head.x1 = head.left + tokenWidth;               // where lines start (the right edge of the left column)
  head.x2 = head.x1 + LINES;                      // where they end
  head.width = head.x2 + tokenWidth + 10;
  head.height = head.top * 2 + (n + (sentenceB > 0 ? 1 : 0)) * pitch;
  const rowY = i => head.top + (i + (sentenceB > 0 && i >= sentenceB ? 1 : 0)) * pitch + pitch / 2;

  function shown(i, side) {
    if (state.filter === 'all') {
      return true;
    }
    const wanted = side === 'left' ? state.filter[0] : state.filter[1];
    return (wanted === 'A') === inA(i);
  }

  let headFrame = 0;
  async function drawHead() {
    const frame = ++headFrame;
    const start = performance.now();
    const heads = data.heads.filter(h => state.heads.has(h));
    const maps = await Promise.all(heads.map(h => attention(state.layer, h)));
    if (frame !== headFrame) {
      return;                                   // a newer request superseded this one
    }
    const decoded = performance.now();
    drawHeadOn($('head-canvas'), heads, maps);
    took.decode = decoded - start;
    took.head = performance.now() - decoded;
    drawn.head++;
  }

  function drawHeadOn(canvas, heads, maps) {
    const g = sized(canvas, head.width, head.height);
    g.fillStyle = '#fff';
    g.fillRect(0, 0, head.width, head.height);
    g.font = FONT;
    g.textBaseline = 'middle';
    const hover = state.hover;
    for (let i = 0; i < n; i++) {
      const y = rowY(i);
      for (const side of ['left', 'right']) {
        const active = hover && hover.side === side && hover.index === i;
        if (active) {
          g.fillStyle = '#e8eef8';
          g.fillRect(side === 'left' ? head.left : head.x2, y - pitch / 2, tokenWidth, pitch);
        }
        g.fillStyle = shown(i, side) ? '#222' : '#bbb';
        g.textAlign = side === 'left' ? 'right' : 'left';
        g.font = active ? 'bold ' + FONT : FONT;
        g.fillText(tokens[i], side === 'left' ? head.x1 - 6 : head.x2 + 6, y, tokenWidth - 8);
      }
    }
    // One short path per line: Chromium's software raster took 4 to 5 s for a 512-token layer drawn as
    // one path per head and opacity (Skia fills a path's union), and well under a second drawn line by line.
    g.lineWidth = hover ? 2.5 : 1.6;
    const fade = Math.sqrt(heads.length);      // a line's opacity is p/√heads, so many heads stay readable
    heads.forEach((h, at) => {
      const p = maps[at];
      g.strokeStyle = colorOf(h);
      for (let i = 0; i < n; i++) {
        if (!shown(i, 'left') || (hover && hover.side === 'left' && hover.index !== i)) {
          continue;
        }
        for (let j = 0; j < n; j++) {
          const alpha = p[i * n + j] / fade;
          if (alpha < MIN_ALPHA || !shown(j, 'right') || (hover && hover.side === 'right' && hover.index !== j)) {
            continue;
          }
          g.globalAlpha = Math.min(1, alpha);
          g.beginPath();
          g.moveTo(head.x1, rowY(i));
          g.lineTo(head.x2, rowY(j));
          g.stroke();
        }
      }
    });
    g.globalAlpha = 1;
  }

  function tokenAt(event) {
    const box = $('head-canvas').getBoundingClientRect();
    const x = event.clientX - box.left;
    const y = event.clientY - box.top;
    const side = x < head.x1 ? 'left' : x > head.x2 ? 'right' : null;
    if (side === null) {
      return null;
    }
    for (let i = 0; i < n; i++) {
      if (Math.abs(rowY(i) - y) <= pitch / 2) {
        return {side, index: i};
      }
    }
    return null;
  }

  $('head-canvas').addEventListener('mousemove', event => {
    const at = tokenAt(event);
    if (JSON.stringify(at) !== JSON.stringify(state.hover)) {
      state.hover = at;
      drawHead();
    }
  });
  $('head-canvas').addEventListener('mouseleave', () => {
    if (state.hover) {
      state.hover = null;
      drawHead();
    }
  });

  // --- model view --------------------------------------------------------------------------------
  const thumb = Math.max(40, Math.min(96, Math.floor(1000 / data.heads.length) - 4));
  let modelBuilt = false;

  /** A heatmap of one head: cell brightness is the stored √p (so faint attention still shows), max-pooled to fit. */
  function heatmap(canvas, bytes, offset, size, color) {
    const cells = Math.min(n, size);
    const g = sized(canvas, size, size);
    const image = g.createImageData(cells, cells);
    const [r, gr, b] = [1, 3, 5].map(i => parseInt(color.slice(i, i + 2), 16));
    for (let a = 0; a < cells; a++) {
      const i0 = Math.floor(a * n / cells), i1 = Math.max(i0 + 1, Math.floor((a + 1) * n / cells));
      for (let c = 0; c < cells; c++) {
        const j0 = Math.floor(c * n / cells), j1 = Math.max(j0 + 1, Math.floor((c + 1) * n / cells));
        let top = 0;
        for (let i = i0; i < i1; i++) {
          for (let j = j0; j < j1; j++) {
            top = Math.max(top, bytes[offset + i * n + j]);
          }
        }
        const t = top / 255;
        const at = (a * cells + c) * 4;
        image.data[at] = 255 - t * (255 - r);
        image.data[at + 1] = 255 - t * (255 - gr);
        image.data[at + 2] = 255 - t * (255 - b);
        image.data[at + 3] = 255;
      }
    }
    const scratch = document.createElement('canvas');
    scratch.width = cells;
    scratch.height = cells;
    scratch.getContext('2d').putImageData(image, 0, 0);
    g.imageSmoothingEnabled = false;
    g.drawImage(scratch, 0, 0, size, size);
    return g;
  }

  async function drawModel() {
    if (modelBuilt) {
      return;
    }
    modelBuilt = true;
    const grid = $('grid');
    grid.style.gridTemplateColumns = `28px repeat(${data.heads.length}, ${thumb + 2}px)`;
    grid.append(label(''));
    data.heads.forEach(h => grid.append(label('H' + h)));
    for (const layer of data.layers) {
      grid.append(label('L' + layer));
      const cells = data.heads.map(h => {
        const canvas = document.createElement('canvas');
        canvas.title = `Layer ${layer}, head ${h}: click to enlarge`;
        canvas.dataset.layer = layer;
        canvas.dataset.head = h;
        canvas.addEventListener('click', () => openZoom(layer, h));
        sized(canvas, thumb, thumb);
        grid.append(canvas);
        return canvas;
      });
      const bytes = await layerBytes(layer);
      data.heads.forEach((h, at) => heatmap(cells[at], bytes, at * n * n, thumb, colorOf(h)));
      drawn.model++;
      await new Promise(resolve => setTimeout(resolve));   // let the page answer between layers
    }
  }

  function label(text) {
    const span = document.createElement('span');
    span.className = 'label';
    span.textContent = text;
    return span;
  }

  async function openZoom(layer, h) {
    state.zoom = {layer, head: h};
    const size = Math.max(n, Math.min(640, n * Math.floor(640 / n)));
    const margin = n <= 64 ? tokenWidth : 0;
    const canvas = $('zoom-canvas');
    const bytes = await layerBytes(layer);
    const square = document.createElement('canvas');
    heatmap(square, bytes, data.heads.indexOf(h) * n * n, size, colorOf(h));
    const g = sized(canvas, size + margin, size + margin);
    g.fillStyle = '#fff';
    g.fillRect(0, 0, size + margin, size + margin);
    g.drawImage(square, margin, margin, size, size);
    if (margin > 0) {                         // few enough tokens to name every row (query) and column (key)
      g.font = '11px system-ui, sans-serif';
      g.fillStyle = '#222';
      const cell = size / n;
      g.textAlign = 'right';
      g.textBaseline = 'middle';
      tokens.forEach((t, i) => g.fillText(t, margin - 4, margin + (i + 0.5) * cell, margin - 6));
      g.save();
      g.rotate(-Math.PI / 2);
      g.textAlign = 'left';
      tokens.forEach((t, j) => g.fillText(t, -margin + 4, margin + (j + 0.5) * cell, margin - 6));
      g.restore();
    }
    $('zoom-title').textContent = `Layer ${layer}, head ${h}: rows attend (queries), columns are attended to (keys)`;
    $('zoom').hidden = false;
  }
  $('zoom-close').addEventListener('click', () => {
    $('zoom').hidden = true;
    state.zoom = null;
  });
  $('zoom-open').addEventListener('click', () => {
    const {layer, head: h} = state.zoom;
    $('zoom').hidden = true;
    state.zoom = null;
    state.layer = layer;
    $('layer').value = layer;
    state.heads = new Set([h]);
    syncHeadBoxes();
    show('head');
  });

  // --- neuron view -------------------------------------------------------------------------------
  let neuronFrame = 0;
  async function drawNeuron() {
    const frame = ++neuronFrame;
    const view = await neuron(state.layer, state.neuronHead, state.neuronQuery);
    if (frame !== neuronFrame) {
      return;
    }
    const canvas = $('neuron-canvas');
    const missing = $('neuron-missing');
    canvas.hidden = view === null;
    missing.hidden = view !== null;
    if (view === null) {
      missing.textContent = data.neuron.layers.length === 0
        ? `This page was made for the ${data.view} view alone and holds no queries and keys; make it with --view neuron or all.`
        : `This file holds queries and keys for layer${data.neuron.layers.length > 1 ? 's' : ''} `
          + `${ranges(data.neuron.layers)} only; choose one of them, or make the page with --layers ${state.layer}.`;
      drawn.neuron++;
      return;
    }
    const cell = Math.max(2, Math.min(5, Math.floor(320 / headSize)));
    const vectorWidth = cell * headSize;
    const rowH = 16;
    const x = {token: 10, vector: 20 + tokenWidth, product: 40 + tokenWidth + vectorWidth};
    x.score = x.product + vectorWidth + 20;
    x.softmax = x.score + 70;
    const width = x.softmax + 170;
    const top = 10 + rowH * 3;
    const height = top + n * rowH + 10;
    const g = sized(canvas, width, height);
    g.fillStyle = '#fff';
    g.fillRect(0, 0, width, height);
    g.font = FONT;
    g.textBaseline = 'middle';
    const scale = values => Math.max(1e-9, ...values.map(v => Math.max(...v.map(Math.abs))));
    const vectorScale = scale([view.query, ...view.keys]);
    const productScale = scale(view.products);
    const cells = (values, x0, y, s) => {
      values.forEach((v, i) => {
        const t = Math.min(1, Math.abs(v) / s);
        g.fillStyle = v >= 0 ? `rgba(31, 119, 180, ${t})` : `rgba(255, 127, 14, ${t})`;
        g.fillRect(x0 + i * cell, y - rowH / 2 + 2, cell, rowH - 4);
      });
    };
    const text = (value, x0, y, align = 'left', color = '#222', room = undefined) => {
      g.fillStyle = color;
      g.textAlign = align;
      g.fillText(value, x0, y, room);
    };
    let y = 10 + rowH / 2;
    text(`query q: ${tokens[state.neuronQuery]}`, x.token, y);
    cells(view.query, x.vector, y, vectorScale);
    y += rowH * 1.5;
    text('key k', x.vector, y, 'left', '#555');
    text('q × k (element-wise)', x.product, y, 'left', '#555');
    text('q·k/√d', x.score, y, 'left', '#555');
    text('softmax', x.softmax, y, 'left', '#555');
    view.keys.forEach((k, j) => {
      const yj = top + j * rowH + rowH / 2;
      if (j === state.neuronQuery) {
        g.fillStyle = '#eef2f8';
        g.fillRect(x.token - 4, yj - rowH / 2, width - 10, rowH);
      }
      text(tokens[j], x.vector - 10, yj, 'right', '#222', tokenWidth - 8);
      cells(k, x.vector, yj, vectorScale);
      cells(view.products[j], x.product, yj, productScale);
      text(view.scores[j].toFixed(2), x.score + 50, yj, 'right');
      g.fillStyle = colorOf(state.neuronHead);
      g.fillRect(x.softmax, yj - rowH / 2 + 3, 100 * view.softmax[j], rowH - 6);
      text(view.softmax[j].toFixed(3), x.softmax + 106, yj);
    });
    neuronRows = {top, rowH, x: x.token, width: x.vector - x.token};
    drawn.neuron++;
  }
  let neuronRows = null;
  $('neuron-canvas').addEventListener('click', event => {
    if (neuronRows === null) {
      return;
    }
    const box = $('neuron-canvas').getBoundingClientRect();
    const x = event.clientX - box.left;
    const row = Math.floor((event.clientY - box.top - neuronRows.top) / neuronRows.rowH);
    if (x < neuronRows.x + neuronRows.width && row >= 0 && row < n) {
      state.neuronQuery = row;                 // a key's token becomes the query, as bertviz's hover does
      $('neuron-query').value = row;
      drawNeuron();
    }
  });

  // --- controls ----------------------------------------------------------------------------------
  function ranges(list) {
    const out = [];
    for (let i = 0; i < list.length; i++) {
      let j = i;
      while (j + 1 < list.length && list[j + 1] === list[j] + 1) {
        j++;
      }
      out.push(j > i ? `${list[i]}-${list[j]}` : `${list[i]}`);
      i = j;
    }
    return out.join(',');
  }

  function option(select, value, text) {
    const o = document.createElement('option');
    o.value = value;
    o.textContent = text;
    select.append(o);
  }

  function syncHeadBoxes() {
    for (const box of document.querySelectorAll('#heads input')) {
      box.checked = state.heads.has(Number(box.value));
    }
  }

  function show(view) {
    state.view = view;
    document.body.dataset.view = view;
    for (const button of document.querySelectorAll('#tabs button')) {
      button.classList.toggle('active', button.dataset.view === view);
    }
    for (const control of document.querySelectorAll('[data-views]')) {
      control.hidden = !control.dataset.views.split(' ').includes(view);
    }
    return view === 'head' ? drawHead() : view === 'model' ? drawModel() : drawNeuron();
  }

  function setUp() {
    data.layers.forEach(l => option($('layer'), l, `${l}`));
    data.heads.forEach(h => option($('neuron-head'), h, `${h}`));
    tokens.forEach((t, i) => option($('neuron-query'), i, `${i}: ${t}`));
    $('neuron-head').value = state.neuronHead;
    $('neuron-query').value = state.neuronQuery;
    for (const h of data.heads) {
      const box = document.createElement('label');
      box.style.background = colorOf(h) + '33';
      box.title = 'Click: show or hide this head. Double-click: only this head.';
      box.innerHTML = `<input type="checkbox" value="${h}" checked>${h}`;
      box.addEventListener('dblclick', event => {
        event.preventDefault();
        state.heads = new Set([h]);
        syncHeadBoxes();
        drawHead();
      });
      $('heads').append(box);
    }
    $('heads').addEventListener('change', event => {
      const h = Number(event.target.value);
      if (event.target.checked) {
        state.heads.add(h);
      } else {
        state.heads.delete(h);
      }
      drawHead();
    });
    $('layer').addEventListener('change', () => {
      state.layer = Number($('layer').value);
      return state.view === 'neuron' ? drawNeuron() : drawHead();
    });
    $('filter').addEventListener('change', () => {
      state.filter = $('filter').value;
      drawHead();
    });
    if (sentenceB < 0) {
      $('filter').closest('label').remove();
    }
    $('neuron-head').addEventListener('change', () => {
      state.neuronHead = Number($('neuron-head').value);
      drawNeuron();
    });
    $('neuron-query').addEventListener('change', () => {
      state.neuronQuery = Number($('neuron-query').value);
      drawNeuron();
    });
    for (const button of document.querySelectorAll('#tabs button')) {
      button.addEventListener('click', () => show(button.dataset.view));
    }
    $('save').addEventListener('click', savePng);
    if (data.form) {                          // served: ask the server for another text's page
      const form = $('ask');
      form.action = data.form.action;
      for (const field of ['text', 'pair', 'layers', 'heads']) {
        form.elements[field].value = data.form[field] ?? '';
      }
      form.hidden = false;
    }
    const pair = sentenceB > 0 ? ` (sentence A: tokens 0-${sentenceB - 1}, B: ${sentenceB}-${n - 1})` : '';
    $('summary').textContent = `${data.model} · ${n} tokens${pair}${data.truncated ? ', cut to the model\'s length' : ''}`
      + ` · layers ${ranges(data.layers)} of 0-${data.layerCount - 1} · heads ${ranges(data.heads)} of 0-${data.headCount - 1}`;
    $('note').textContent = 'Attention is stored as 8-bit square roots, p ≈ (b/255)² (off by at most 0.004 at p = 1 and 0.0004 at'
      + ' p = 0.01); a line\'s opacity is p/√(heads shown), and lines fainter than 3/255 are not drawn. Queries and keys'
      + (data.neuron.layers.length === 0 ? ' (float32) for the neuron view: none (a page for one view).'
        : ` (float32) for the neuron view: layer${data.neuron.layers.length > 1 ? 's' : ''} ${ranges(data.neuron.layers)}.`);
  }

  // --- saving ------------------------------------------------------------------------------------
  function currentCanvas() {
    if (state.zoom) {
      return $('zoom-canvas');
    }
    if (state.view === 'head') {
      return $('head-canvas');
    }
    if (state.view === 'neuron') {
      return $('neuron-canvas');
    }
    const thumbs = [...document.querySelectorAll('#grid canvas')];       // the grid, redrawn as one picture
    const pad = 28;
    const out = document.createElement('canvas');
    const step = thumb + 4;
    const g = sized(out, pad + data.heads.length * step, pad + data.layers.length * step);
    g.fillStyle = '#fff';
    g.fillRect(0, 0, out.width, out.height);
    g.font = '11px system-ui, sans-serif';
    g.fillStyle = '#555';
    g.textAlign = 'center';
    data.heads.forEach((h, c) => g.fillText('H' + h, pad + c * step + thumb / 2, pad / 2));
    data.layers.forEach((l, r) => g.fillText('L' + l, pad / 2, pad + r * step + thumb / 2));
    thumbs.forEach((t, i) => g.drawImage(t, pad + (i % data.heads.length) * step, pad + Math.floor(i / data.heads.length) * step,
      thumb, thumb));
    return out;
  }

  function savePng() {
    const name = state.zoom ? `attention-layer${state.zoom.layer}-head${state.zoom.head}.png`
      : state.view === 'head' ? `attention-layer${state.layer}.png`
        : state.view === 'neuron' ? `attention-neuron-layer${state.layer}-head${state.neuronHead}.png` : 'attention-model.png';
    currentCanvas().toBlob(blob => {
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = name;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 10000);
    }, 'image/png');
  }

  // --- start -------------------------------------------------------------------------------------
  setUp();
  const ready = show(state.view);
  // For scripts and tests: the decoded numbers, the state and where a token is drawn.
  window.vectorbert = {
    data, state, drawn, took, ready, attention, neuron,
    tokenPoint(side, i) {              // scrolled into view first, so a pointer can reach it
      const top = $('head-canvas').getBoundingClientRect().top + rowY(i);
      if (top < 0 || top > window.innerHeight) {
        window.scrollBy(0, top - window.innerHeight / 2);
      }
      const box = $('head-canvas').getBoundingClientRect();
      return {x: box.left + (side === 'left' ? head.x1 - 20 : head.x2 + 20), y: box.top + rowY(i)};
    },
  };
})();
