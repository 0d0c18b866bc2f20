// Reads the README's code: the first app is the first code block that starts a KafkaStreams.

/** The code of each fenced block of `markdown` (of one language if given), in order. */
export function codeBlocks(markdown: string, language?: string): string[] {
  return [...markdown.matchAll(/^```([a-z]*)\n([\s\S]*?)^```$/gm)]
    .filter((m) => language === undefined || m[1] === language)
    .map((m) => m[2] as string);
}

export function firstApp(readme: string): string {
  const app = codeBlocks(readme).find((code) => code.includes('new KafkaStreams('));
  if (app === undefined)
    throw new Error('README.md has no code block with `new KafkaStreams(`: the first app is gone');
  return app;
}
