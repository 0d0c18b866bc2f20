// The benchmark's input: lines of English-looking text drawn from a fixed vocabulary with a
// Zipf-like word distribution, from a seeded PRNG, so that every run (and every app in a run)
// sees the same words and the expected counts are known exactly.

import { prng } from '../../packages/core/test/runtime/text-fixtures.ts';
import { wordsOf } from '../../packages/examples/src/word-count/words.ts';

// The most frequent English words, most frequent first; the long tail is made of syllables.
const COMMON = `the of and to a in is it you that he was for on are with as i his they be at one have
this from or had by not word but what some we can out other were all there when up use your how said
an each she which do their time if will way about many then them write would like so these her long
make thing see him two has look more day could go come did number sound no most people my over know
water than call first who may down side been now find any new work part take get place made live
where after back little only round man year came show every good me give our under name very through
just form sentence great think say help low line differ turn cause much mean before move right boy
old too same tell does set three want air well also play small end put home read hand port large
spell add even land here must big high such follow act why ask men change went light kind off need
house picture try us again animal point mother world near build self earth father head stand own page
should country found answer school grow study still learn plant cover food sun four between state
keep eye never last let thought city tree cross farm hard start might story saw far sea draw left
late run while press close night real life few north open seem together next white children begin
got walk example ease paper group always music those both mark often letter until mile river car
feet care second book carry took science eat room friend began idea fish mountain stop once base
hear horse cut sure watch color face wood main enough plain girl usual young ready above ever red
list though feel talk bird soon body dog family direct pose leave song measure door product black
short numeral class wind question happen complete ship area half rock order fire south problem piece
told knew pass since top whole king space heard best hour better true during hundred five remember
step early hold west ground interest reach fast verb sing listen six table travel less morning ten
simple several vowel toward war lay against pattern slow center love person money serve appear road
map rain rule govern pull cold notice voice unit power town fine certain fly fall lead cry dark
machine note wait plan figure star box noun field rest correct able pound done beauty drive stood
contain front teach week final gave green quick develop ocean warm free minute strong special mind
behind clear tail produce fact street inch multiply nothing course stay wheel full force blue object
decide surface deep moon island foot system busy test record boat common gold possible plane stead
dry wonder laugh thousand ago ran check game shape equate hot miss brought heat snow tire bring yes
distant fill east paint language among`
  .split(/\s+/)
  .filter((w) => w.length > 0);

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ren',
  'tor',
  'sa',
  've',
  'dun',
  'pel',
  'ash',
  'qui',
  'bre',
  'nor',
  'tha',
  'gil',
  'wen',
  'ul',
  'fey',
  'cor',
  'dra',
  'mor',
  'ith',
  'zan',
  'pry',
  'ost',
  'hal',
  'bel',
  'rin',
  'sk',
  'ew',
];

/**
 * Made-up words drawn from syllables up to this many; beyond it the draws would mostly repeat
 * (2 to 4 of the syllables give about 800,000 words, so a million was never reached).
 */
const DRAWN_WORDS = 300_000;

/**
 * `size` distinct lower-case words: the common ones, then made-up ones for the long tail; past
 * DRAWN_WORDS, the earlier words with a number appended (no drawn word has a digit).
 */
export function vocabulary(size: number, random: () => number): string[] {
  const words = [...new Set(COMMON)].slice(0, size);
  const seen = new Set(words);
  const drawn = Math.min(size, DRAWN_WORDS);
  while (words.length < drawn) {
    const parts = 2 + Math.floor(random() * 3);
    let w = '';
    for (let i = 0; i < parts; i++) w += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    if (!seen.has(w)) {
      seen.add(w);
      words.push(w);
    }
  }
  for (let i = drawn; i < size; i++) words.push(`${words[i % drawn]}${Math.floor(i / drawn)}`);
  return words;
}

/** Draws ranks 0..n-1 with P(rank r) proportional to 1 / (r + 1)^s (Zipf). */
function zipfSampler(n: number, s: number, random: () => number): () => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let r = 0; r < n; r++) {
    sum += 1 / (r + 1) ** s;
    cdf[r] = sum;
  }
  return () => {
    const u = random() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

export interface CorpusOptions {
  lines: number;
  seed: number;
  vocabularySize?: number;
  /** Mean words per line (lines have mean-4 .. mean+4 words). */
  meanWords?: number;
}

/**
 * Sentence-like lines: a capitalised first word, commas and apostrophes now and then, a full
 * stop at the end, so that the split has real work to do (case folding, punctuation).
 */
export function generateLines(opts: CorpusOptions): string[] {
  const random = prng(opts.seed);
  const words = vocabulary(opts.vocabularySize ?? 10_000, random);
  const draw = zipfSampler(words.length, 1.0, random);
  const mean = opts.meanWords ?? 8;
  const lines: string[] = new Array(opts.lines);
  for (let i = 0; i < opts.lines; i++) {
    const count = mean - 4 + Math.floor(random() * 9);
    let line = '';
    for (let j = 0; j < count; j++) {
      let w = words[draw()]!;
      if (j === 0) w = w[0]!.toUpperCase() + w.slice(1);
      else if (random() < 0.02) w = `${w}'s`;
      line += j === 0 ? w : random() < 0.08 ? `, ${w}` : ` ${w}`;
    }
    lines[i] = `${line}.`;
  }
  return lines;
}

export interface ExpectedCounts {
  totalWords: number;
  counts: Map<string, number>;
}

export function countWords(lines: readonly string[]): ExpectedCounts {
  const counts = new Map<string, number>();
  let totalWords = 0;
  for (const line of lines) {
    for (const w of wordsOf(line)) {
      counts.set(w, (counts.get(w) ?? 0) + 1);
      totalWords++;
    }
  }
  return { totalWords, counts };
}
