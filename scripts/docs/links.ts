// Link checks of the docs with linkinator: the built site (every page, asset and #fragment) and the
// markdown guides as GitHub shows them. External links are not checked: CI has no internet.
import { LinkChecker, LinkState } from 'linkinator';

export interface LinkReport {
  /** Distinct URLs checked (pages, assets, files; a URL with a #fragment counts apart). */
  checked: number;
  broken: string[];
}

const PROXY_VARIABLES = ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY'];
const external = async (link: string) => /^https?:\/\/(?!localhost|127\.0\.0\.1)/.test(link);

export async function checkLinks(
  path: string | string[],
  options: { markdown?: boolean; serverRoot?: string } = {},
): Promise<LinkReport> {
  // linkinator sends every request through an HTTP(S)_PROXY it finds and ignores NO_PROXY; the
  // links checked are all on its own local server, which no proxy can reach.
  const proxies = PROXY_VARIABLES.map((name) => [name, process.env[name]] as const);
  for (const name of PROXY_VARIABLES) delete process.env[name];
  let result: Awaited<ReturnType<LinkChecker['check']>>;
  try {
    result = await new LinkChecker().check({
      path,
      ...options,
      recurse: true,
      checkFragments: true,
      linksToSkip: external,
    });
  } finally {
    for (const [name, value] of proxies) if (value !== undefined) process.env[name] = value;
  }
  const broken = result.links
    .filter((link) => link.state === LinkState.BROKEN)
    .map((link) => `${link.url} (${link.status ?? 'no status'}, on ${link.parent ?? 'the start page'})`);
  return {
    checked: result.links.filter((link) => link.state === LinkState.OK).length + broken.length,
    broken,
  };
}
