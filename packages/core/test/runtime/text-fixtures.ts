// Deterministic input text for the runtime tests, and the counts a correct run must produce.

/** A small seeded PRNG (mulberry32), so every run feeds the same text. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VOCABULARY = Array.from({ length: 400 }, (_, i) => `w${i.toString(36)}`);

/** `n` lines of `wordsPerLine` words, skewed towards the first words of the vocabulary. */
export function makeLines(n: number, wordsPerLine: number, seed = 42): string[] {
  const rand = prng(seed);
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const words: string[] = [];
    for (let j = 0; j < wordsPerLine; j++)
      words.push(VOCABULARY[Math.floor(rand() ** 2 * VOCABULARY.length)]!);
    // Mixed case and punctuation exercise the lower-casing and the /\W+/ split.
    lines.push(i % 7 === 0 ? `${words.join(', ').toUpperCase()}!` : words.join(' '));
  }
  return lines;
}

export function countWords(lines: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of lines) {
    for (const w of line.toLowerCase().split(/\W+/)) if (w) counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  return counts;
}
