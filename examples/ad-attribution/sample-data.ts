// A small fixed input for the ad-attribution example: impressions, clicks and price changes over one hour.
import type { Click, Impression, Price } from './ad-attribution.ts';

const min = 60_000;

export const sampleImpressions: Impression[] = [
  { ad: 'shoes-1', campaign: 'shoes', user: 'ann', ts: 0 * min },
  { ad: 'shoes-1', campaign: 'shoes', user: 'bob', ts: 1 * min },
  { ad: 'shoes-2', campaign: 'shoes', user: 'ann', ts: 3 * min },
  { ad: 'bikes-1', campaign: 'bikes', user: 'cid', ts: 4 * min },
  { ad: 'shoes-1', campaign: 'shoes', user: 'ann', ts: 20 * min },
  { ad: 'bikes-1', campaign: 'bikes', user: 'bob', ts: 30 * min },
  { ad: 'bikes-1', campaign: 'bikes', user: 'cid', ts: 41 * min },
  { ad: 'books-1', campaign: 'books', user: 'ann', ts: 50 * min },
];

export const sampleClicks: Click[] = [
  { ad: 'shoes-1', user: 'ann', ts: 2 * min }, // 2 min after shown: credited
  { ad: 'bikes-1', user: 'cid', ts: 5 * min }, // before any bikes price: unpriced
  { ad: 'shoes-1', user: 'bob', ts: 15 * min }, // 14 min after shown: not credited
  { ad: 'shoes-1', user: 'ann', ts: 25 * min }, // credited to the impression at 20 min
  { ad: 'bikes-1', user: 'bob', ts: 32 * min }, // credited, at the first bikes price
  { ad: 'bikes-1', user: 'cid', ts: 45 * min }, // credited, after the bikes price change
  { ad: 'books-1', user: 'ann', ts: 55 * min }, // credited, no books price ever: unpriced
];

export const samplePrices: Price[] = [
  { campaign: 'shoes', cents: 40, from: 0 },
  { campaign: 'bikes', cents: 25, from: 10 * min },
  { campaign: 'shoes', cents: 55, from: 24 * min },
  { campaign: 'bikes', cents: 30, from: 40 * min },
];
