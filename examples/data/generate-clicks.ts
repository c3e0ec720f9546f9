// Writes the sample clickstream the demonstration job reads (deterministic: the same file every time).
//   node --import tsx examples/data/generate-clicks.ts [count] > examples/data/clicks.jsonl
const count = Number(process.argv[2] ?? 20_000);
let seed = 20261129;
const random = (): number => {
  // mulberry32: small, fast and reproducible
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pages = ['/', '/search', '/product/1', '/product/2', '/product/3', '/cart', '/help'];
const start = Date.UTC(2026, 10, 29, 9, 0, 0);
const lines: string[] = [];
for (let i = 0; i < count; i++) {
  const uid = `user-${Math.floor(random() ** 2 * 200)}`;
  // ~50 ms apart with up to 4 s of disorder; every 1,000th event arrives 2 minutes late
  const late = i % 1000 === 999 ? 120_000 : 0;
  const ts = start + i * 50 - Math.floor(random() * 4_000) - late;
  const r = random();
  const kind = r < 0.03 ? 'login' : r < 0.05 ? 'buy' : 'view';
  const page =
    kind === 'buy' ? '/checkout' : kind === 'login' ? '/login' : pages[Math.floor(random() * pages.length)]!;
  lines.push(JSON.stringify({ uid, kind, page, ts }));
}
// Two malformed lines, to show how bad input is reported.
lines.splice(4_321, 0, '{"uid": "user-7", "kind": "view", "page": "/", "ts": ');
lines.splice(12_345, 0, 'not json at all');
process.stdout.write(lines.join('\n') + '\n');
