// Opens an attention explorer page in Debian's headless chromium with the network off and goes
// through it as a user would; prints one JSON line of findings and exits 1 on any failure.
//
//   node attention.mjs seed PAGE.html OUT_DIR    bertviz's seed pair: every view, hover, zoom, neuron, save; screenshots
//   node attention.mjs long PAGE.html OUT_DIR    a 512-token page: how long it takes to open and to draw each view
import {chromium} from 'playwright-core';
import {mkdtempSync, rmSync, writeFileSync, readFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join, resolve} from 'node:path';
import {pathToFileURL} from 'node:url';

const [mode, pagePath, outDir] = process.argv.slice(2);
if (!['seed', 'long'].includes(mode) || !pagePath || !outDir) {
  console.error('usage: node attention.mjs seed|long PAGE.html OUT_DIR');
  process.exit(2);
}
const url = pathToFileURL(resolve(pagePath)).href;
const profile = mkdtempSync(join(tmpdir(), 'vectorbert-chromium-'));
const failures = [];
const findings = {mode};
const check = (ok, what) => {
  if (!ok) {
    failures.push(what);
  }
};

const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  offline: true,
  acceptDownloads: true,
  viewport: {width: 1400, height: 900},
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
    '--no-first-run', '--disable-sync', '--disable-quic'],
});
try {
  const page = context.pages()[0] ?? await context.newPage();
  const errors = [];
  const requests = [];
  page.on('console', message => {
    if (message.type() === 'error' || message.type() === 'warning') {
      errors.push(`${message.type()}: ${message.text()}`);
    }
  });
  page.on('pageerror', error => errors.push(`page error: ${error.message}`));
  page.on('request', request => {
    if (request.url() !== url) {
      requests.push(request.url().slice(0, 100));
    }
  });

  const opening = Date.now();
  await page.goto(url, {waitUntil: 'load', timeout: 120000});
  await page.evaluate(() => window.vectorbert.ready);
  findings.openMs = Date.now() - opening;
  const data = await page.evaluate(() => ({n: vectorbert.data.tokens.length, layers: vectorbert.data.layers,
    heads: vectorbert.data.heads, neuronLayers: vectorbert.data.neuron.layers, drawn: vectorbert.drawn.head}));
  findings.tokens = data.n;
  check(data.drawn >= 1, 'the head view was drawn on opening');
  const drawnCount = view => page.evaluate(v => vectorbert.drawn[v], view);
  const timed = async (what, action, view, after) => {
    const before = await drawnCount(view);
    const start = Date.now();
    await action();
    await page.waitForFunction(([v, b, a]) => vectorbert.drawn[v] >= b + a, [view, before, after], {timeout: 120000});
    findings[what] = Date.now() - start;
  };

  if (mode === 'seed') {
    // Head view: layer 0, head 8 alone (double-click its chip), as bertviz's notebooks open it.
    await timed('layerSwitchMs', () => page.selectOption('#layer', '5'), 'head', 1);
    await timed('headsMs', () => page.dblclick('#heads label:nth-child(9)'), 'head', 1);
    await page.selectOption('#layer', '0');
    await page.waitForFunction(() => vectorbert.state.layer === 0 && vectorbert.state.heads.size === 1);
    check(await page.evaluate(() => [...vectorbert.state.heads][0]) === 8, 'head 8 alone after its double-click');
    const flies = await page.evaluate(() => vectorbert.tokenPoint('left', 2));
    await timed('hoverMs', () => page.mouse.move(flies.x, flies.y), 'head', 1);
    check(JSON.stringify(await page.evaluate(() => vectorbert.state.hover)) === '{"side":"left","index":2}', 'hovering "flies" selects it');
    await page.screenshot({path: join(outDir, 'attention-head-view.png'), fullPage: true});
    await page.mouse.move(5, 5);

    // Sentence filter: only sentence B's queries looking at sentence A.
    await timed('filterMs', () => page.selectOption('#filter', 'BA'), 'head', 1);
    await page.selectOption('#filter', 'all');

    // Model view: every layer's row of thumbnails, then one enlarged.
    await page.click('#tabs button[data-view="model"]');
    await page.waitForFunction(l => vectorbert.drawn.model >= l, data.layers.length, {timeout: 120000});
    check(await page.locator('#grid canvas').count() === data.layers.length * data.heads.length, 'a thumbnail per layer and head');
    await page.screenshot({path: join(outDir, 'attention-model-view.png'), fullPage: true});
    await page.click('#grid canvas[data-layer="3"][data-head="8"]');
    await page.waitForSelector('#zoom:not([hidden])');
    check((await page.textContent('#zoom-title')).startsWith('Layer 3, head 8'), 'the enlarged head is the one clicked');
    await page.screenshot({path: join(outDir, 'attention-model-zoom.png')});
    await page.click('#zoom-close');

    // Neuron view: layer 0, head 8, query "flies"; its softmax must be the stored attention.
    await page.click('#tabs button[data-view="neuron"]');
    await page.selectOption('#layer', '0');
    await page.selectOption('#neuron-head', '8');
    await timed('neuronMs', () => page.selectOption('#neuron-query', '2'), 'neuron', 1);
    const agreement = await page.evaluate(async () => {
      const view = await vectorbert.neuron(0, 8, 2);
      const stored = await vectorbert.attention(0, 8);
      const n = vectorbert.data.tokens.length;
      let worst = 0;
      for (let j = 0; j < n; j++) {
        const p = view.softmax[j];
        const bound = (2 * Math.sqrt(p) + 1 / 510) / 510 + 1e-6;
        worst = Math.max(worst, Math.abs(stored[2 * n + j] - p) / bound);
      }
      return {worst, sum: view.softmax.reduce((a, b) => a + b, 0)};
    });
    findings.neuronVsStored = agreement.worst;
    check(agreement.worst <= 1 && Math.abs(agreement.sum - 1) < 1e-9, 'the neuron view\'s softmax is the stored attention');
    check(await page.isVisible('#neuron-canvas'), 'the neuron view is drawn');
    await page.screenshot({path: join(outDir, 'attention-neuron-view.png'), fullPage: true});

    // Save PNG: a download of the current view.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#save')]);
    findings.saved = download.suggestedFilename();
    const saved = join(outDir, 'saved-' + download.suggestedFilename());
    await download.saveAs(saved);
    check(readFileSync(saved).subarray(1, 4).toString() === 'PNG', 'the saved file is a PNG');
    check(findings.saved === 'attention-neuron-layer0-head8.png', 'the saved file is named after the view');
  } else {
    await timed('layerSwitchMs', () => page.selectOption('#layer', '11'), 'head', 1);
    const flies = await page.evaluate(() => vectorbert.tokenPoint('left', 100));
    await timed('hoverMs', () => page.mouse.move(flies.x, flies.y), 'head', 1);
    await timed('modelViewMs', () => page.click('#tabs button[data-view="model"]'), 'model', data.layers.length);
    await page.screenshot({path: join(outDir, 'attention-512-model-view.png')});
    await timed('neuronMs', () => page.click('#tabs button[data-view="neuron"]'), 'neuron', 1);
  }
  findings.took = await page.evaluate(() => vectorbert.took);
  findings.errors = errors;
  findings.requests = requests;
  check(errors.length === 0, 'no console errors');
  check(requests.length === 0, 'no requests');
} catch (error) {
  failures.push(String(error.stack || error));
} finally {
  await context.close();
  rmSync(profile, {recursive: true, force: true});
}
findings.failures = failures;
const line = JSON.stringify(findings);
writeFileSync(join(outDir, `browser-${mode}.json`), line + '\n');
console.log(line);
process.exit(failures.length === 0 ? 0 : 1);
