// Link checks of the docs with linkinator: the built site (every page, asset and #fragment) and the
// markdown guides as GitHub shows them. External links are not checked: CI has no internet.
import { LinkChecker, LinkState } from 'linkinator';

export interface LinkReport {
  /** Distinct URLs checked (pages, assets, files; a URL with a #fragment counts apart). */
  checked: number;
  broken: string[];
}

const external = async (link: string) => /^https?:\/\/(?!localhost|127\.0\.0\.1)/.test(link);

export async function checkLinks(
  path: string | string[],
  options: { markdown?: boolean; serverRoot?: string } = {},
): Promise<LinkReport> {
  const result = await new LinkChecker().check({
    path,
    ...options,
    recurse: true,
    checkFragments: true,
    linksToSkip: external,
  });
  const broken = result.links
    .filter((link) => link.state === LinkState.BROKEN)
    .map((link) => `${link.url} (${link.status ?? 'no status'}, on ${link.parent ?? 'the start page'})`);
  return {
    checked: result.links.filter((link) => link.state === LinkState.OK).length + broken.length,
    broken,
  };
}
