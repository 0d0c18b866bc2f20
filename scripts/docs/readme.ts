// Reads the README's code: the first app is the first code block that starts a KafkaStreams.

/** The code of each fenced block of `markdown`, in order. */
export function codeBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```[a-z]*\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string);
}

export function firstApp(readme: string): string {
  const app = codeBlocks(readme).find((code) => code.includes('new KafkaStreams('));
  if (app === undefined)
    throw new Error('README.md has no code block with `new KafkaStreams(`: the first app is gone');
  return app;
}
